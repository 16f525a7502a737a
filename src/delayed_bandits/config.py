"""Loading and checking experiment configs against ``data/schemas/config.schema.yaml``, which
refers to one schema per paper (``papers/<paper>/schema.yaml``).

The workflow (``workflow/rules/common.smk``) and the CLI call the same ``validate``, so a bad
config fails before any job runs, with a message naming the key and what is allowed."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping, Sequence

import numpy as np
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from delayed_bandits import delays, kinds, papers, seeds
from delayed_bandits import resources as rs
from delayed_bandits.algorithms import Algorithm, experiment, get
from delayed_bandits.errors import ConfigError
from delayed_bandits.yamlio import read_yaml


def _import_jsonschema() -> ModuleType:
    """jsonschema, loaded without rfc3987_syntax. Where that package is installed (JupyterLab's
    jupyter-events brings it), jsonschema imports it for its "iri" format checks, and building its
    grammar costs 0.65 s of CPU in every process that loads a config, every workflow job among
    them; our schemas check no format. It is hidden only while jsonschema loads."""
    hidden = "rfc3987_syntax" not in sys.modules
    if hidden:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import jsonschema
    finally:
        if hidden:
            del sys.modules["rfc3987_syntax"]
    return jsonschema


jsonschema = _import_jsonschema()

# JSON Schema counts 3.0 as an integer; the code does not (a seed, a count, a window): an
# integer key takes a Python int, never a float of integer value (nor a bool).
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)

SCHEMA_ID = "https://delayed-bandits.invalid/schemas/"


@cache
def schemas(algorithms_of: tuple[str, ...] | None = None) -> dict[str, dict[str, Any]]:
    """The config schema and one schema per registered paper, by file name. What the registry
    knows is filled in, not repeated: the ``papers`` section (each paper's title and figure-id
    pattern), the delay kinds (``delays.KINDS``), and in each paper's schema its kinds of figure
    and its algorithm ids (``workflow/schemas`` links to the config schema's folder). Listing a
    paper's algorithms imports its kernels, so a job asks only for its own paper's
    (``algorithms_of``); None: every paper's."""
    base = read_yaml(
        resources.files("delayed_bandits").joinpath("data/schemas/config.schema.yaml").read_text()
    )
    base["$defs"]["delay"]["properties"]["kind"]["enum"] = list(delays.KINDS)
    docs = {"config.schema.yaml": base}
    section = base["properties"]["papers"].setdefault("properties", {})
    for paper in papers.registered().values():
        name = f"{paper.id}.schema.yaml"
        section[paper.id] = {
            "description": paper.title,
            "type": "object",
            "minProperties": 1,
            "additionalProperties": False,
            "patternProperties": {paper.figure_ids: {"$ref": name}},
        }
        docs[name] = _paper_schema(paper, name, algorithms_of is None or paper.id in algorithms_of)
    return docs


def _paper_schema(paper: papers.Paper, name: str, with_algorithms: bool) -> dict[str, Any]:
    """``papers/<paper>/schema.yaml`` with its id, kinds and (``with_algorithms``) algorithm ids
    filled in."""
    doc = paper.schema()
    doc["$id"] = SCHEMA_ID + name
    props = doc["properties"]
    names = [kinds.GENERIC] + [k.name for k in paper.kinds if k.in_config]
    props.setdefault(
        "kind",
        {"description": f"The kind of figure (delayed_bandits.kinds), default {kinds.GENERIC}."},
    )["enum"] = names
    if with_algorithms:
        ids = [a.id for a in paper.experiment().ALGORITHMS]
        if "variants" in props:  # ids of variants are allowed too, and checked by ``curve``
            # a paper may narrow the algorithms a variant can vary (tests/test_registry.py checks
            # its list against the registry)
            variant = props["variants"]["additionalProperties"]["properties"]["algorithm"]
            variant.setdefault("enum", ids)
        else:
            props["algorithms"]["items"]["enum"] = ids
    return doc


def _validator(
    algorithms_of: tuple[str, ...] | None, schema: Mapping[str, Any] | None = None
) -> jsonschema.Draft202012Validator:
    """The validator of the config schema, or of ``schema`` (e.g. a ``$ref`` into a paper's
    schema), with every schema resolvable by its ``$id``."""
    # without their "$schema": jsonschema would validate a schema that names its draft with that
    # draft's stock validator, whose integers include 3.0, instead of _Validator
    docs = {
        name: {key: value for key, value in doc.items() if key != "$schema"}
        for name, doc in schemas(algorithms_of).items()
    }
    registry = Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012))
        for doc in docs.values()
    )
    return _Validator(schema or docs["config.schema.yaml"], registry=registry)


def _describe(error: jsonschema.ValidationError) -> str:
    where = ".".join(str(p) for p in error.absolute_path) or "<top level>"
    message = error.message
    if error.validator in ("additionalProperties", "unevaluatedProperties"):
        allowed = set(error.schema.get("properties", {}))
        if error.validator == "unevaluatedProperties":  # a figure: its paper's keys and the common
            allowed |= set(schemas()["config.schema.yaml"]["$defs"]["figure_common"]["properties"])
        allowed = sorted(allowed)
        patterns = list(error.schema.get("patternProperties", {}))
        message += f"; allowed keys: {', '.join(allowed) or 'none'}"
        if patterns:
            message += f" or names matching {', '.join(patterns)}"
    return f"config key '{where}': {message}"


def validate(
    config: Mapping[str, Any], paper: str | None = None, only_figure: str | None = None
) -> None:
    """Raise ``ConfigError`` on the first problem: schema first, then per-paper settings (only
    ``paper``'s, or only those of its figure ``only_figure``, when given: a job checks what it
    runs, the workflow has checked the rest)."""
    _check_values(config)
    validator = _validator(None if paper is None else (paper,))
    # A figure key that fails the common figure schema also leaves every common key unevaluated,
    # so the paper schema's unevaluatedProperties error is a consequence: report the cause first.
    errors = sorted(
        validator.iter_errors(config),
        key=lambda e: (e.validator == "unevaluatedProperties", len(e.absolute_path), e.message),
    )
    if errors:
        raise ConfigError(_describe(errors[0]))
    output_prefix(config)
    for name, figures in config["papers"].items():
        for figure, fig in figures.items():
            if paper in (None, name) and only_figure in (None, figure):
                _check_figure(config, name, figure, fig)


INTEGER_MAX = 2**62 - 1
"""The largest integer a config may hold, whatever its key: a round plus a delay, a window or a
seed still fits the kernels' and numpy's int64."""


def _check_values(value: Any, where: str = "") -> None:
    """The rules every key and number of a config follows, whatever its place, checked before the
    schema (which would fail on them with a TypeError, or let them pass): every key is a string
    without a line break (YAML reads ``123:`` as an int and ``null:`` as None; a name becomes a
    path), every number is finite (YAML reads .nan, .inf and -.inf as floats, which pass a
    schema's bounds, NaN comparing false with every one) and every integer at most
    ``INTEGER_MAX`` in size."""
    here = where or "<top level>"
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(
            f"config key '{here}': {value} is not a finite number; every "
            "number in a config must be finite (.nan, .inf and -.inf are refused)"
        )
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INTEGER_MAX:
        raise ConfigError(
            f"config key '{here}': {value} is greater than the maximum of {INTEGER_MAX} "
            "(2^62 - 1, config.INTEGER_MAX) in size, the largest integer a config may hold"
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str) or "\n" in key or "\r" in key:
                raise ConfigError(
                    f"config key '{here}': the key {key!r} ({type(key).__name__}) is not a "
                    "name; every key is a string without a line break (quote a key that YAML "
                    "reads otherwise, e.g. '123': or 'null':)"
                )
            _check_values(item, f"{where}.{key}" if where else key)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_values(item, f"{where}.{i}")


# A scale's outputs go to <scale>/: never one of the repository's own directories.
TAKEN_NAMES = (
    "benchmarks",
    "config",
    "docs",
    "envs",
    "figures",
    "logs",
    "notebooks",
    "reports",
    "results",
    "src",
    "tests",
    "workflow",
)


def output_prefix(config: Mapping[str, Any]) -> str:
    """Where a run of ``config`` writes results/, figures/, reports/, logs/ and benchmarks/:
    "" (the top of the repository) at the paper scale, "<scale>/" at any other."""
    scale = config.get("scale", "paper")
    if scale in TAKEN_NAMES:
        raise ConfigError(
            f"scale: {scale!r} is a directory of the repository; allowed: paper or "
            f"any other name matching ^[a-z][a-z0-9_-]*$ except {', '.join(TAKEN_NAMES)}"
        )
    return "" if scale == "paper" else f"{scale}/"


def _check_figure(
    config: Mapping[str, Any], paper: str, figure: str, fig: Mapping[str, Any]
) -> None:
    """What the schema cannot check of one figure: the keys its kind needs, its grid's values as
    the setting keys they set, every curve's setting as its algorithm sees it, what its runs would
    cost (``_check_resources``), and the paper's own figure-level checks."""
    where = f"papers.{paper}.{figure}"
    _check_simulation_keys(fig, where)
    _check_grid(paper, fig, where)
    check_only(fig, where)
    if kinds.simulated(fig):
        _check_horizons(fig, where)
        _check_resources(config, paper, fig, where)
    for setting, raw in (settings(fig) if kinds.simulated(fig) else {}).items():
        for algorithm in fig["algorithms"]:
            _check_curve(paper, fig, raw, algorithm, f"{where}.settings.{setting}", where)
    # figure-level keys a paper adds (e.g. a band drawn across variants)
    check_figure = getattr(experiment(paper), "check_figure", None)
    if check_figure is not None:
        check_figure(fig, where)


def _check_curve(
    paper: str,
    fig: Mapping[str, Any],
    raw: Mapping[str, Any],
    algorithm: str,
    where: str,
    figure_key: str,
) -> None:
    algo, built = curve(paper, fig, raw, algorithm, where)
    reason = algo.applies(built)
    if reason and simulate_jobs(fig) == "per_curve":
        raise ConfigError(
            f"config key '{where}': algorithm {algorithm} does not apply ({reason}); "
            f"{figure_key} has simulate_jobs: per_curve, which runs every curve: remove the "
            "algorithm, or set simulate_jobs: per_figure (the default) or simulate_jobs: "
            "per_setting, which skip a curve that does not apply"
        )
    if reason:
        return  # not run, so what it would need of the setting does not matter
    problem = algo.precondition(built)
    if problem:
        raise ConfigError(
            f"config key '{where}': {problem} (algorithm {algorithm} of {figure_key})"
        )


SIMULATION_KEYS = ("replications", "checkpoints", "algorithms")
"""What a simulated figure must set, and a figure drawn from the configuration alone must not."""
SHARDING_KEYS = ("simulate_jobs", "shard_size")


def _check_horizons(fig: Mapping[str, Any], where: str) -> None:
    """A setting's own horizon is at most its figure's (the largest T the figure shows), and the
    figure asks for no more checkpoints than its shortest setting has rounds (they would be
    dropped without a word)."""
    all_settings = settings(fig)
    for name, raw in all_settings.items():
        if raw.get("horizon", fig["horizon"]) > fig["horizon"]:
            raise ConfigError(
                f"config key '{where}.settings.{listed_setting(fig, name)}.horizon': "
                f"{raw['horizon']} is above the figure's horizon {fig['horizon']} "
                f"({where}.horizon, the largest T the figure shows); raise that or lower this"
            )
    shortest = min(all_settings, key=lambda name: horizon(fig, all_settings[name]))
    rounds = horizon(fig, all_settings[shortest])
    if fig["checkpoints"] > rounds:
        raise ConfigError(
            f"config key '{where}.checkpoints': {fig['checkpoints']} checkpoints, but setting "
            f"{shortest} runs {rounds} rounds; allowed: 1 to {rounds}"
        )


def _check_resources(
    config: Mapping[str, Any], paper: str, fig: Mapping[str, Any], where: str
) -> None:
    """What the figure's runs would cost, from the resource model (``resources.py``), before any
    job runs: a simulation job holds one realisation of T rounds and K arms, which must fit this
    machine's memory; the figure's simulations (replications x the horizons of its curves x K)
    must take at most ``resources.MAX_FIGURE_CPU_HOURS`` and ``resources.MAX_JOBS`` jobs; and
    the jobs that read its tables hold every recorded value, which must fit the memory too."""
    available = rs.physical_memory_mb()
    all_settings = settings(fig)
    sizes = {
        name: (horizon(fig, raw), arms(paper, fig, raw, f"{where}.settings.{name}"))
        for name, raw in all_settings.items()
    }
    for name, (rounds, k) in sizes.items():
        request = rs.simulation(paper, rounds, 1, arms=k)
        if request.mem_mb > available:
            # the horizon alone, or the arms of this setting
            alone = rs.simulation(paper, rounds, 1).mem_mb > available
            key = f"{where}.horizon" if alone else f"{where}.settings.{name}"
            raise ConfigError(
                f"config key '{key}': "
                f"T = {rounds} rounds of K = {k} arms (setting {name}) need about "
                f"{request.mem_mb:,} MB per simulation job, more than this machine's "
                f"{available:,} MB (src/delayed_bandits/resources.py); use a smaller horizon "
                "or fewer arms"
            )
    replications = int(fig["replications"])
    hours = rs.cpu_hours(paper, replications, list(sizes.values()) * len(fig["algorithms"]))
    if hours > rs.MAX_FIGURE_CPU_HOURS:
        raise ConfigError(
            f"config key '{where}.replications': {replications:,} replications of "
            f"{len(all_settings)} settings x {len(fig['algorithms'])} algorithms would take "
            f"about {hours:,.0f} CPU hours at the paper's measured rate, more than the cap of "
            f"{rs.MAX_FIGURE_CPU_HOURS:,} (resources.MAX_FIGURE_CPU_HOURS); use fewer "
            "replications, settings or rounds"
        )
    groups = {"per_figure": 1, "per_setting": len(all_settings)}.get(
        simulate_jobs(fig), len(all_settings) * len(fig["algorithms"])
    )
    n_jobs = groups * len(shards(replications, shard_size(config, paper, fig)))
    if n_jobs > rs.MAX_JOBS:
        raise ConfigError(
            f"config key '{where}.replications': {replications:,} replications make {n_jobs:,} "
            f"simulation jobs, more than the cap of {rs.MAX_JOBS:,} (resources.MAX_JOBS); use "
            "fewer replications or a larger shard_size (or auto)"
        )
    reading = rs.analysis(recorded_values(fig))
    if reading.mem_mb > available:
        raise ConfigError(
            f"config key '{where}.replications': {recorded_values(fig):,} recorded values "
            f"(replications x curves x checkpoints) need about {reading.mem_mb:,} MB in the jobs "
            f"that read them, more than this machine's {available:,} MB "
            "(src/delayed_bandits/resources.py); use fewer replications or checkpoints"
        )


def arms(paper: str, fig: Mapping[str, Any], raw: Mapping[str, Any], where: str) -> int:
    """K of a setting, as its built setting says (``Setting.n_arms``; 1 for a plug-in's setting
    that does not say), for the resource model."""
    _, built = curve(paper, fig, raw, fig["algorithms"][0], where)
    return int(getattr(built, "n_arms", 1))


def _check_simulation_keys(fig: Mapping[str, Any], where: str) -> None:
    kind = kinds.of(fig)
    if kinds.simulated(fig):
        missing = [key for key in SIMULATION_KEYS if key not in fig]
        if missing:
            raise ConfigError(
                f"config key '{where}.{missing[0]}': required (a figure of kind "
                f"{kind} is simulated)"
            )
        return
    present = [key for key in SIMULATION_KEYS + SHARDING_KEYS if key in fig]
    if present:
        raise ConfigError(
            f"config key '{where}.{present[0]}': a figure of kind {kind} is drawn "
            f"from the configuration alone and runs no simulation; remove "
            f"{', '.join(present)}"
        )


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config file {str(path)!r} is not UTF-8 text (byte {exc.start}: "
            f"{exc.object[exc.start : exc.start + 1]!r}); save it as UTF-8"
        ) from None
    try:
        config = read_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {exc}") from exc
    if not isinstance(config, dict):
        raise ConfigError(f"config file {str(path)!r} must hold a mapping")
    return config


def merge(base: Mapping[str, Any], overlay: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``overlay`` on top: mappings are merged key by key, anything else (numbers,
    strings, lists) is replaced. A tagged mapping (one with a ``kind``, e.g. a delay law) whose
    overlay names another kind is replaced whole: the old kind's parameters (a geometric law's
    ``mean``) mean nothing to the new one (a Pareto law takes ``alpha``)."""
    out = dict(base)
    for key, value in overlay.items():
        old = out.get(key)
        if (
            isinstance(value, Mapping)
            and isinstance(old, Mapping)
            and value.get("kind", old.get("kind")) == old.get("kind")
        ):
            out[key] = merge(old, value)
        else:
            out[key] = value
    return out


def merged(
    paths: str | Path | Sequence[str | Path], overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The config of YAML files, each an overlay of those before it (``config/smoke.yaml`` on
    ``config/config.yaml``), with ``overrides`` (Snakemake's ``--config KEY=VALUE``) on top;
    not validated (``load`` validates). Its scale is ``variation_scale``'s."""
    files = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not files:
        raise ConfigError("no config file given")
    base = _read(Path(files[0]))
    overlays = [_read(Path(path)) for path in files[1:]] + [dict(overrides or {})]
    config = base
    for overlay in overlays:
        config = merge(config, overlay)
    return variation_scale(base, config, any("scale" in overlay for overlay in overlays))


RUN_KEYS = ("scale", "shard_size", "simulation_time_limit")
"""Top-level keys that say how a run is carried out, not what it computes."""
FIGURE_RUN_KEYS = ("shard_size", "simulate_jobs")
"""A figure's keys of the same kind: its numbers do not depend on them."""
VARIATION = "variation-"


def variation_scale(base: Mapping[str, Any], config: dict[str, Any], named: bool) -> dict[str, Any]:
    """``config`` (``base``, the first config file, with overlays), its scale derived from its
    content when the overlays change what it computes but name no scale: so that a variation of
    the paper scale (``base``: config/config.yaml) never writes over its outputs. The derived
    scale is ``variation-<first 8 hex digits of the sha256 of what the config computes>``: the
    same overlay finds its outputs again, another writes apart."""
    if named or config.get("scale", "paper") != "paper":
        return config
    computed = _computed(config)
    if computed == _computed(base):
        return config
    return {**config, "scale": VARIATION + config_hash(computed)[:8]}


def _computed(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a config computes: the config without ``RUN_KEYS`` and each figure's
    ``FIGURE_RUN_KEYS``."""
    out = {key: value for key, value in config.items() if key not in RUN_KEYS}
    papers = out.get("papers")
    if isinstance(papers, Mapping):
        out["papers"] = {
            paper: {
                name: {k: v for k, v in fig.items() if k not in FIGURE_RUN_KEYS}
                if isinstance(fig, Mapping)
                else fig
                for name, fig in figures.items()
            }
            if isinstance(figures, Mapping)
            else figures
            for paper, figures in papers.items()
        }
    return out


def canonical_json(value: Any) -> bytes:
    """UTF-8 JSON with sorted keys and no spaces: equal configs give equal bytes, whatever the
    YAML's key order, comments or anchors."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def config_hash(config: Any) -> str:
    """sha256 (hex) of the canonical JSON of a config, or of any part of it."""
    return hashlib.sha256(canonical_json(config)).hexdigest()


def load(
    paths: str | Path | Sequence[str | Path],
    paper: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    figure: str | None = None,
) -> dict[str, Any]:
    """``merged(paths, overrides)``, validated: the settings of ``paper`` only, or of its
    ``figure`` only, when given."""
    config = merged(paths, overrides)
    validate(config, paper, figure)
    return config


def figure(config: Mapping[str, Any], paper: str, fig: str) -> Mapping[str, Any]:
    """The experiment of one figure; the error lists the figures the config has."""
    papers = config["papers"]
    if paper not in papers:
        raise ConfigError(f"paper {paper!r} is not in the config; it has {', '.join(papers)}")
    if fig not in papers[paper]:
        raise ConfigError(
            f"figure {fig!r} is not in papers.{paper}; it has {', '.join(papers[paper])}"
        )
    return papers[paper][fig]


def shard_size(config: Mapping[str, Any], paper: str, fig: Mapping[str, Any]) -> int:
    """Replications per job: the figure's own ``shard_size`` or the global one; ``auto`` asks the
    resource model (``resources.auto_shard_size``) for the fewest jobs of bounded length."""
    size = fig.get("shard_size", config["shard_size"])
    if size == "auto":
        return rs.auto_shard_size(paper, job_steps(fig), int(fig["replications"]))
    return int(size)


JOB_KINDS = ("per_figure", "per_setting", "per_curve")


def simulate_jobs(fig: Mapping[str, Any]) -> str:
    """What one simulation job of the figure runs (one of ``JOB_KINDS``): ``per_figure`` (every
    curve of the figure, the default: the fewest jobs), ``per_setting`` (every algorithm on one
    setting) or ``per_curve`` (one algorithm on one setting)."""
    return str(fig.get("simulate_jobs", JOB_KINDS[0]))


def job_steps(fig: Mapping[str, Any]) -> int:
    """Agent-steps of one replication in the figure's largest simulation job: the horizons of the
    curves it may run (every algorithm counts, whether or not it applies)."""
    horizons = [horizon(fig, s) for s in settings(fig).values()]
    kind, algorithms = simulate_jobs(fig), len(fig["algorithms"])
    if kind == "per_curve":
        return max(horizons)
    if kind == "per_setting":
        return max(horizons) * algorithms
    return sum(horizons) * algorithms


def curve(
    paper: str, fig: Mapping[str, Any], setting_cfg: Mapping[str, Any], algorithm: str, where: str
) -> tuple[Algorithm, Any]:
    """The registry entry and the built setting (the plug-in's ``Setting``) of one curve;
    ``where`` is the config key that a bad setting's error names."""
    registry_id, merged = resolve(fig, setting_cfg, algorithm)
    return get(paper, registry_id), experiment(paper).Setting.from_config(merged, where)


def recorded_values(fig: Mapping[str, Any]) -> int:
    """How many regret values a simulated figure records (every run of every curve at every
    checkpoint, counting every (setting, algorithm) pair, so an upper bound): what a job reading
    all its shards holds (``resources.analysis``); 0 for a figure drawn from the config alone."""
    if not kinds.simulated(fig):
        return 0
    n_curves = len(settings(fig)) * len(fig["algorithms"])
    return int(fig["replications"]) * n_curves * int(fig["checkpoints"])


def curves(paper: str, figure: str, fig: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(setting, algorithm) of every curve of the figure that has results, settings first. In a
    ``per_curve`` figure that is every pair (``validate`` refuses an algorithm that does not
    apply, so nothing is built here); otherwise, the pairs whose algorithm applies to the setting
    (``Algorithm.applies``)."""
    all_settings = settings(fig)
    pairs = [(s, a) for s in all_settings for a in fig["algorithms"]]
    if simulate_jobs(fig) == "per_curve":
        return pairs
    kept = []
    for s, a in pairs:
        algo, built = curve(paper, fig, all_settings[s], a, f"papers.{paper}.{figure}.settings.{s}")
        if not algo.applies(built):
            kept.append((s, a))
    return kept


def resolve(
    fig: Mapping[str, Any], setting_cfg: Mapping[str, Any], algorithm: str
) -> tuple[str, dict[str, Any]]:
    """(registry id, setting config) of a curve. A figure's ``variants`` name parameterisations of
    a registry algorithm ({algorithm, label, ...}); their other keys override the setting's."""
    variant = fig.get("variants", {}).get(algorithm)
    if variant is None:
        return algorithm, dict(setting_cfg)
    params = {k: v for k, v in variant.items() if k not in ("algorithm", "label")}
    return variant["algorithm"], {**setting_cfg, **params}


def shards(replications: int, shard_size: int) -> list[tuple[int, int]]:
    """Replication ranges (first, last), both inclusive, of at most ``shard_size`` runs."""
    return [(a, min(a + shard_size, replications) - 1) for a in range(0, replications, shard_size)]


def settings(fig: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The figure's settings by id. A ``sweep`` ({key, values}) repeats every listed setting once
    per value, with ``key`` set to it, under the id ``<setting>-<index>``. A ``grid`` (a list of
    {key, values, names}: a list, so that a smoke config's grid replaces the full one rather than
    being merged into it) repeats it once per combination of values, under
    ``<setting>-<name>-<name>...``."""
    sweep, grid = fig.get("sweep"), fig.get("grid")
    if sweep:
        return {
            f"{name}-{i:02d}": {**cfg, sweep["key"]: value}
            for name, cfg in fig["settings"].items()
            for i, value in enumerate(sweep["values"])
        }
    if grid:
        axes = [list(zip(axis["names"], axis["values"])) for axis in grid]
        expanded = {
            "-".join([name, *(part for part, _ in combo)]): {
                **cfg,
                **{
                    key: value
                    for axis, (_, value) in zip(grid, combo)
                    for key, value in _axis_values(axis, value).items()
                },
            }
            for name, cfg in fig["settings"].items()
            for combo in itertools.product(*axes)
        }
    else:
        expanded = {name: dict(cfg) for name, cfg in fig["settings"].items()}
    only = fig.get("only")
    if not only:
        return expanded
    return {
        sid: cfg
        for sid, cfg in expanded.items()
        if sid in only or listed_setting(fig, sid) in only or _grid_names(fig, sid) & set(only)
    }


def _axis_values(axis: Mapping[str, Any], value: Any) -> dict[str, Any]:
    """The setting keys one grid value sets: ``{key: value}``, or, for an axis whose ``key`` is a
    list (values that move together, e.g. a base rate and its gaps), one entry per key."""
    keys = axis["key"]
    return dict(zip(keys, value)) if isinstance(keys, list) else {keys: value}


def _grid_names(fig: Mapping[str, Any], setting: str) -> set[str]:
    """The names of the grid values a grid setting id carries (none without a grid)."""
    return set(setting.split("-")[-len(fig["grid"]) :]) if fig.get("grid") else set()


def _check_grid(paper: str, fig: Mapping[str, Any], where: str) -> None:
    """A grid axis has one name per value, distinct names, and, when its key is a list, one
    entry per key in every value (zip would otherwise drop the extra values silently); each value
    is what the paper's schema allows for the setting key it sets (the grid's own schema says
    only "a number": ``n_arms: 2.5`` would otherwise run as 2)."""
    for i, axis in enumerate(fig.get("grid") or ()):
        here = f"{where}.grid.{i}"
        if len(axis["names"]) != len(axis["values"]) or len(set(axis["names"])) < len(
            axis["names"]
        ):
            raise ConfigError(
                f"{here}.names: need one distinct name per value ({len(axis['values'])} values), "
                f"got {axis['names']}"
            )
        keys = axis["key"]
        arity = len(keys) if isinstance(keys, list) else 0
        for value in axis["values"]:
            if (len(value) if isinstance(value, list) else 0) != arity:
                raise ConfigError(
                    f"{here}.values: {value!r} does not match key {keys!r}; allowed: "
                    + (f"a list of {arity} numbers" if arity else "a number")
                )
        for j, value in enumerate(axis["values"]):
            for key, item in _axis_values(axis, value).items():
                setting_key = (
                    f"{SCHEMA_ID}{paper}.schema.yaml#/properties/settings/additionalProperties"
                    f"/properties/{key}"
                )
                error = jsonschema.exceptions.best_match(
                    _validator((paper,), {"$ref": setting_key}).iter_errors(item)
                )
                if error is not None:
                    raise ConfigError(
                        f"config key '{here}.values.{j}': {error.message} (the value of the "
                        f"setting key {key}, papers.{paper}.<figure>.settings.<setting>.{key})"
                    )


def check_only(fig: Mapping[str, Any], where: str) -> None:
    """``only`` (an overlay's subset of a figure's settings): each entry names a setting id, a
    listed setting or a grid value's name, and together they leave at least one setting."""
    only = fig.get("only")
    if not only:
        return
    all_settings = settings({**fig, "only": None})
    known = set(all_settings) | {listed_setting(fig, s) for s in all_settings}
    known |= {name for s in all_settings for name in _grid_names(fig, s)}
    unknown = [entry for entry in only if entry not in known]
    if unknown:
        raise ConfigError(
            f"{where}.only: no setting of the figure is named {', '.join(map(repr, unknown))}; "
            f"allowed: a setting id, a listed setting ({', '.join(fig['settings'])}) or a grid "
            f"value's name ({', '.join(sorted(known - set(all_settings) - set(fig['settings'])))})"
        )


def listed_setting(fig: Mapping[str, Any], setting: str) -> str:
    """The id of the listed setting that a sweep or grid setting repeats (``setting`` itself when
    the figure has neither)."""
    if fig.get("sweep"):
        return setting.rsplit("-", 1)[0]
    if fig.get("grid"):
        return setting.rsplit("-", len(fig["grid"]))[0]
    return setting


def seed_name(fig: Mapping[str, Any], setting: str) -> str:
    """The setting id the environment's seed uses. A sweep of an algorithm's parameter
    (``sweep.environment: false``) keeps the listed setting's id, so every value of the sweep faces
    the same draws (paired comparison along the sweep); ``shared_draws`` gives every setting the
    first listed setting's id (common random numbers across settings)."""
    if fig.get("shared_draws", False):
        return next(iter(fig["settings"]))
    sweep = fig.get("sweep")
    if sweep and not sweep.get("environment", True):
        return listed_setting(fig, setting)
    return setting


def replication_seeds(
    config: Mapping[str, Any], paper: str, figure: str, setting: str, replication: int
) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(environment, policy) seed sequences of a replication of one of the figure's settings:
    ``seeds.replication_seeds`` under the setting's ``seed_name``. The simulation and the replay
    of a run both draw from these."""
    fig = config["papers"][paper][figure]
    return seeds.replication_seeds(
        config["seed"], paper, figure, seed_name(fig, setting), replication
    )


def check_curves(
    paper: str, figure: str, fig: Mapping[str, Any], given: Sequence[str], names: Sequence[str]
) -> None:
    """The ``--setting`` values (``given``) and ``--algorithm`` values (``names``) of a command:
    each one of the figure's, none twice; the error names the bad one and the allowed."""
    for what, values, allowed, key in (
        ("--setting", given, settings(fig), "settings"),
        ("--algorithm", names, fig["algorithms"], "algorithms"),
    ):
        for name in values:
            if name not in allowed:
                raise ConfigError(
                    f"{what} {name!r} is not one of {', '.join(allowed)} "
                    f"(papers.{paper}.{figure}.{key})"
                )
        twice = sorted({name for name in values if list(values).count(name) > 1})
        if twice:
            raise ConfigError(f"{what} {', '.join(twice)} given more than once")


def horizon(fig: Mapping[str, Any], setting_cfg: Mapping[str, Any]) -> int:
    """T of a setting: its own ``horizon`` if it has one, else the figure's."""
    return int(setting_cfg.get("horizon", fig["horizon"]))


def label(paper: str, fig: Mapping[str, Any], algorithm: str) -> str:
    """The name a curve carries on figures: its variant's label, else the paper's name for it."""
    variant = fig.get("variants", {}).get(algorithm)
    if variant is not None:
        return str(variant.get("label", algorithm))
    return get(paper, algorithm).label
