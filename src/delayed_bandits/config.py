"""Loading experiment configs (YAML files, each an overlay of those before it) and checking them
against ``data/schemas/config.schema.yaml``, which refers to one schema per paper
(``papers/<paper>/schema.yaml``), and against what a schema cannot say. What a figure's config
describes is read elsewhere: its settings in ``grid``, its curves in ``curves``, its shards in
``layout``, its seeds in ``seeds``.

The workflow (``workflow/rules/common.smk``) and the CLI call the same ``validate``, so a bad
config fails before any job runs, with a message naming the key and what is allowed."""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping, Sequence

import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from delayed_bandits import algorithms, captions, delays, grid, kinds, layout, papers
from delayed_bandits import curves as cv
from delayed_bandits import resources as rs
from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import atomic_path
from delayed_bandits.tables import config_hash
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
        if "variants" in props:  # ids of variants are allowed too, and checked by ``curves.curve``
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
    if error.validator == "maxLength":  # a name that becomes a path component: not all of it
        message = (
            f"{str(error.instance)[:40]!r}... has {len(error.instance)} characters; allowed: at "
            f"most {error.validator_value} (config.MAX_NAME: it names a file or folder)"
        )
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


MAX_NAME = 100
"""The most characters of a config value that becomes a path component (``scale``, a setting
id, a grid value's name, an algorithm id): file systems allow 255 bytes a component, and a
300-character ``scale`` passed validation, then failed in Snakemake with "file name too long".
The schemas say it (``maxLength``) of each name; a setting id a grid joins from several names is
checked here."""

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


IGNORED = "*\n"
"""The ``.gitignore`` of a scale's output folder (``ignore_outputs``): everything in it."""


def ignore_outputs(config: Mapping[str, Any], root: Path = Path(".")) -> Path | None:
    """Make git ignore the outputs of a scale other than paper, whatever its name: the folder
    ``<scale>/`` under ``root`` (``output_prefix``) gets a ``.gitignore`` of ``IGNORED``, as a
    virtual environment ignores itself, so no list of the scales' names is kept in the
    repository's ``.gitignore``. Returns the file, or None at the paper scale, whose outputs
    (results/, figures/...) the repository's own ``.gitignore`` names."""
    prefix = output_prefix(config)
    if not prefix:
        return None
    path = root / prefix / ".gitignore"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            tmp.write_text(IGNORED, encoding="utf-8")
    return path


def _check_figure(
    config: Mapping[str, Any], paper: str, figure: str, fig: Mapping[str, Any]
) -> None:
    """What the schema cannot check of one figure: the keys its kind needs, its grid's values as
    the setting keys they set, every curve's setting as its algorithm sees it, what its runs would
    cost (``_check_resources``), and the paper's own figure-level checks."""
    where = f"papers.{paper}.{figure}"
    _check_simulation_keys(fig, where)
    _check_grid(paper, fig, where)
    grid.check_only(fig, where)
    for setting in grid.settings(fig):  # a grid's ids join its values' names
        if len(setting) > MAX_NAME:
            raise ConfigError(
                f"config key '{where}.settings': setting id {setting[:40]}... has {len(setting)} "
                f"characters; allowed: at most {MAX_NAME} (config.MAX_NAME), as it names a "
                "folder of the run; shorten its names"
            )
    if kinds.simulated(fig):
        _check_horizons(fig, where)
        _check_resources(config, paper, fig, where)
    for setting, raw in (grid.settings(fig) if kinds.simulated(fig) else {}).items():
        for algorithm in fig["algorithms"]:
            _check_curve(paper, fig, raw, algorithm, f"{where}.settings.{setting}", where)
    # figure-level keys a paper adds (e.g. a band drawn across variants)
    check_figure = getattr(algorithms.experiment(paper), "check_figure", None)
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
    algo, built = cv.curve(paper, fig, raw, algorithm, where)
    reason = algo.applies(built)
    if reason and cv.simulate_jobs(fig) == "per_curve":
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
    selected = grid.selected(fig)
    for point, raw in selected.items():
        if raw.get("horizon", fig["horizon"]) > fig["horizon"]:
            raise ConfigError(
                f"config key '{where}.settings.{point.listed}.horizon': "
                f"{raw['horizon']} is above the figure's horizon {fig['horizon']} "
                f"({where}.horizon, the largest T the figure shows); raise that or lower this"
            )
    shortest = min(selected, key=lambda point: grid.horizon(fig, selected[point]))
    rounds = grid.horizon(fig, selected[shortest])
    if fig["checkpoints"] > rounds:
        raise ConfigError(
            f"config key '{where}.checkpoints': {fig['checkpoints']} checkpoints, but setting "
            f"{shortest.id} runs {rounds} rounds; allowed: 1 to {rounds}"
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
    all_settings = grid.settings(fig)
    sizes = {}
    for name, raw in all_settings.items():
        built = _built(paper, fig, raw, f"{where}.settings.{name}")
        sizes[name] = (grid.horizon(fig, raw), int(getattr(built, "n_arms", 1)))
        rounds, k = sizes[name]
        window = int(getattr(built, "window", 0) or 0)
        request = rs.simulation(paper, rounds, 1, arms=k, window=window)
        if request.mem_mb > available:
            # the horizon alone, the window, or the arms of this setting
            alone = rs.simulation(paper, rounds, 1).mem_mb > available
            windowed = rs.simulation(paper, 1, 1, arms=k, window=window).mem_mb > available
            key = (
                f"{where}.horizon"
                if alone
                else f"{where}.settings.{name}" + (".window" if windowed else "")
            )
            raise ConfigError(
                f"config key '{key}': "
                f"T = {rounds} rounds of K = {k} arms (setting {name})"
                + (f" with a window m = {window}" if window else "")
                + f" need about {request.mem_mb:,} MB per simulation job, more than this "
                f"machine's {available:,} MB (src/delayed_bandits/resources.py); use a smaller "
                + ("window" if windowed else "horizon or fewer arms")
            )
    replications = int(fig["replications"])
    slow = sum(cv.interpreted(paper, fig, name) for name in fig["algorithms"])
    curves = list(sizes.values())
    hours = rs.cpu_hours(
        paper, replications, curves * (len(fig["algorithms"]) - slow), curves * slow
    )
    if hours > rs.MAX_FIGURE_CPU_HOURS:
        raise ConfigError(
            f"config key '{where}.replications': {replications:,} replications of "
            f"{len(all_settings)} settings x {len(fig['algorithms'])} algorithms would take "
            f"about {hours:,.0f} CPU hours at the paper's measured rate, more than the cap of "
            f"{rs.MAX_FIGURE_CPU_HOURS:,} (resources.MAX_FIGURE_CPU_HOURS); use fewer "
            "replications, settings or rounds"
        )
    groups = {"per_figure": 1, "per_setting": len(all_settings)}.get(
        cv.simulate_jobs(fig), len(all_settings) * len(fig["algorithms"])
    )
    n_jobs = groups * len(layout.shards(replications, layout.shard_size(config, paper, fig)))
    if n_jobs > rs.MAX_JOBS:
        raise ConfigError(
            f"config key '{where}.replications': {replications:,} replications make {n_jobs:,} "
            f"simulation jobs, more than the cap of {rs.MAX_JOBS:,} (resources.MAX_JOBS); use "
            "fewer replications or a larger shard_size (or auto)"
        )
    reading = rs.analysis(layout.recorded_values(fig))
    if reading.mem_mb > available:
        raise ConfigError(
            f"config key '{where}.replications': {layout.recorded_values(fig):,} recorded values "
            f"(replications x curves x checkpoints) need about {reading.mem_mb:,} MB in the jobs "
            f"that read them, more than this machine's {available:,} MB "
            "(src/delayed_bandits/resources.py); use fewer replications or checkpoints"
        )


def _built(paper: str, fig: Mapping[str, Any], raw: Mapping[str, Any], where: str) -> Any:
    """A setting as its first curve builds it, whose K (``Setting.n_arms``; 1 for a plug-in's
    setting that does not say) and window m (``Setting.window``; none where it has none) the
    resource model counts."""
    return cv.curve(paper, fig, raw, fig["algorithms"][0], where)[1]


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


def _check_grid(paper: str, fig: Mapping[str, Any], where: str) -> None:
    """A grid axis has one name per value, distinct names, ``only_with`` entries that name its
    values and listed settings, and, when its key is a list, one entry per key in every value (zip would otherwise drop the extra values silently); each value
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
        others = [n for a in fig["grid"] if a is not axis for n in a["names"]]
        for name, entries in (axis.get("only_with") or {}).items():
            unknown = sorted(set(entries) - set(fig["settings"]) - set(others))
            if name not in axis["names"] or unknown:
                raise ConfigError(
                    f"{here}.only_with.{name}: "
                    + (
                        f"{name!r} is not one of the axis' names; allowed: "
                        f"{', '.join(axis['names'])}"
                        if name not in axis["names"]
                        else f"{', '.join(unknown)} name no listed setting and no other axis' "
                        f"value; allowed: {', '.join([*fig['settings'], *others])}"
                    )
                )
        for j, value in enumerate(axis["values"]):
            for key, item in grid.axis_values(axis, value).items():
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
    config = variation_scale(base, config, any("scale" in overlay for overlay in overlays))
    return _worded(config)


def _worded(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with each figure's ``title`` and ``caption`` filled for this run
    (``captions.filled``: ``{scale}`` and the figure's values from the config itself)."""
    name, papers_ = config.get("scale", "paper"), config.get("papers")
    if not isinstance(name, str) or not isinstance(papers_, Mapping):
        return config  # validation names what is wrong
    worded: dict[str, Any] = {}
    for paper, figures in papers_.items():
        if not isinstance(figures, Mapping):
            worded[paper] = figures
            continue
        worded[paper] = {
            figure: {
                **fig,
                **{
                    key: captions.filled(fig, fig[key], f"{paper}.{figure}.{key}", name)
                    for key in ("title", "caption")
                    if isinstance(fig.get(key), str)
                },
            }
            if isinstance(fig, Mapping)
            else fig
            for figure, fig in figures.items()
        }
    return {**config, "papers": worded}


RUN_KEYS = ("scale", "shard_size", "simulation_time_limit")
"""Top-level keys that say how a run is carried out, not what it computes."""
FIGURE_RUN_KEYS = ("shard_size", "simulate_jobs")
"""A figure's keys of the same kind: its numbers do not depend on them."""
WORDING = ("title", "caption")
"""A figure's keys that word its numbers: filled from the config once its scale is named
(``_worded``), so a variation's name, which names that scale, does not hash them."""
VARIATION = "variation-"


VARIATION_HEX = 16
"""Hex digits of a variation's name: 64 bits, so that names collide with probability about
n^2 / 2^65 among n variations (8 digits collided in one of 94,302 tries)."""
VARIATION_RECORD = "variation.json"


def variation_scale(base: Mapping[str, Any], config: dict[str, Any], named: bool) -> dict[str, Any]:
    """``config`` (``base``, the first config file, with overlays), its scale derived from its
    content when the overlays change what it computes but name no scale: so that a variation of
    the paper scale (``base``: config/config.yaml) never writes over its outputs. The derived
    scale is ``variation-<first VARIATION_HEX hex digits of the sha256 of what the config
    computes>``: the same overlay finds its outputs again, another writes apart, and
    ``claim_variation`` refuses a folder that another variation holds."""
    if named or config.get("scale", "paper") != "paper":
        return config
    computed = _computed(config)
    if computed == _computed(base):
        return config
    return {**config, "scale": VARIATION + config_hash(computed)[:VARIATION_HEX]}


def claim_variation(config: Mapping[str, Any], root: Path = Path(".")) -> None:
    """For a config whose scale is a variation's name: record in its folder (``VARIATION_RECORD``,
    written once) the full sha256 of what it computes, and ``ConfigError`` when the folder
    records another (a name shared by two variations, or a folder edited by hand), before any of
    its outputs is written over. Nothing for a named scale: its folder is the user's choice."""
    scale = str(config.get("scale", "paper"))
    if not scale.startswith(VARIATION):
        return
    digest = config_hash(_computed(config))
    record = root / scale / VARIATION_RECORD
    text = json.dumps({"computed_sha256": digest}) + "\n"
    found = write_once(record, text)
    if found != text:
        raise ConfigError(
            f"scale {scale}: its folder records another config ({record}: {found.strip()!r}, "
            f"this config computes sha256 {digest}); two variations share the name, or the "
            "record was edited: name a scale (scale: in an overlay) or move the folder away"
        )


def _computed(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a config computes: the config without ``RUN_KEYS`` and each figure's
    ``FIGURE_RUN_KEYS`` and ``WORDING``."""
    out = {key: value for key, value in config.items() if key not in RUN_KEYS}
    papers = out.get("papers")
    if isinstance(papers, Mapping):
        out["papers"] = {
            paper: {
                name: {k: v for k, v in fig.items() if k not in FIGURE_RUN_KEYS + WORDING}
                if isinstance(fig, Mapping)
                else fig
                for name, fig in figures.items()
            }
            if isinstance(figures, Mapping)
            else figures
            for paper, figures in papers.items()
        }
    return out


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


def sources(
    paths: str | Path | Sequence[str | Path], overrides: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What ``merged(paths, overrides)`` is made from, as a summary's provenance records it: the
    config files in order (``paths``), the sha256 of each file's bytes (``file_sha256``: an overlay
    outside git is recorded by its content) and the overrides."""
    files = [str(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
    return {
        "paths": files,
        "file_sha256": [hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in files],
        "overrides": dict(overrides or {}),
    }


MERGED_DIR = Path(".snakemake/delayed-bandits")
"""Where the workflow writes its merged configs (``write_merged``)."""


def write_merged(
    config: Mapping[str, Any], made_from: Mapping[str, Any], where: Path = MERGED_DIR
) -> Path:
    """Write a merged, validated ``config`` and what it was made from (``sources``) to
    ``where/config-<first 16 hex digits of the sha256 of the file's text>.json``, for the
    workflow's jobs to read (``read_merged``) instead of merging the files again, and return that
    path. JSON in the config's own key order: the order of the listed settings is that of the
    curves, and the first one seeds every setting of a figure with ``shared_draws``. Named by
    its content and written once (``write_once``): no invocation, a preview with an edited
    overlay included, can change a file that a running workflow's jobs read; a file of that name
    that holds something else is a ``ConfigError``."""
    text = json.dumps({"sources": made_from, "config": config}, indent=1, ensure_ascii=False) + "\n"
    path = where / f"config-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    if write_once(path, text) != text:
        raise ConfigError(
            f"merged config {str(path)!r} does not hold what its name (the sha256 of its text) "
            "says: it was edited; remove it and run again"
        )
    return path


def write_once(path: Path, text: str) -> str:
    """Create ``path`` holding ``text``, atomically and only if it does not exist (a hard link of
    a complete temporary file, which fails on an existing name where a rename would replace it),
    and return what ``path`` holds: ``text``, unless another file was there first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        try:
            tmp.write_text(text, encoding="utf-8")
            os.link(tmp, path)
        except FileExistsError:
            pass  # another invocation made it first: what it holds is checked below
        finally:
            tmp.unlink(missing_ok=True)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def read_merged(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The config ``write_merged`` wrote to ``path``, and what it was made from (``sources``);
    ``ConfigError`` naming the file when it is missing or not what ``write_merged`` writes."""
    if not path.is_file():
        raise ConfigError(
            f"merged config {str(path)!r} does not exist; the workflow writes it when it builds "
            "its jobs (workflow/rules/common.smk): run snakemake again, or give the config files "
            "with --config"
        )
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"merged config {str(path)!r} is not JSON: {exc}") from None
    if not (isinstance(doc, dict) and isinstance(doc.get("config"), dict) and "sources" in doc):
        raise ConfigError(
            f"merged config {str(path)!r} must hold a mapping with the keys sources and config "
            "(config.write_merged)"
        )
    return doc["config"], doc["sources"]
