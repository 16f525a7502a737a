"""How a result was made: each shard carries it in its parquet metadata, each summary in a JSON
sidecar, ``summary.provenance.json``, beside it (``tables.write_table``, which adds the
summary's sha256 and the ``binding`` of its numbers: what every reader checks).

The sidecar holds everything that may change from run to run (times, host, git state), so that
``summary.csv`` itself stays bit-identical. It records: the package version and git state, the
config files (each an overlay of those before it) with the sha256 of each file's content, and
overrides, and the sha256 of the config they make, as canonical JSON (``canonical_json``), the seeds from which
any replication's streams can be re-derived (``seeds.setting_entropy``), the replications found
per (setting, algorithm), the wall time of the shards plus that of the aggregation, and the software
(``software.environment``: Python, numpy, numba, snakemake..., the lock's and the sources' sha256)
that made the shards and the summary."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd
import pyarrow.parquet as pq

from delayed_bandits import __version__, grid, kinds, seeds, software
from delayed_bandits import curves as cv
from delayed_bandits.config import FIGURE_RUN_KEYS
from delayed_bandits.outputs import html_page, write_parquet
from delayed_bandits.tables import BINDING_KEY, Binding, canonical_json, config_hash, curve_key

UNKNOWN = "unknown"
# The key of a shard's parquet key-value metadata that holds its provenance (JSON).
SHARD_KEY = b"delayed_bandits"
DERIVATION = (
    "replication r of a setting: numpy.random.SeedSequence(entropy + [r]).spawn(2) "
    "gives the (environment, policy) seed sequences (delayed_bandits.seeds)"
)


def git_state(path: Path) -> dict[str, Any]:
    """``git_commit`` (40-hex sha, or "unknown" outside a git checkout or without git) and
    ``git_dirty`` (tracked files modified; None when unknown) of the tree holding ``path``."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=path, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "--verify", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no") != ""
    except (OSError, subprocess.CalledProcessError):
        return {"git_commit": UNKNOWN, "git_dirty": None}
    return {"git_commit": commit, "git_dirty": dirty}


def curve_specs(
    config: Mapping[str, Any], paper: str, figure: str, curves: Sequence[tuple[str, str]]
) -> dict[str, dict[str, Any]]:
    """Everything the numbers of each curve (setting, algorithm) depend on, by ``curve_key``:
    the seeds' ids (root seed, paper, figure, the setting's ``seed_name``), the setting's horizon,
    the figure's checkpoints, and the algorithm's registry id with the setting config it runs on
    (``curves.resolve``). Not what only splits or places the work (``replications``,
    ``shard_size``, ``simulate_jobs``, ``scale``), nor what is drawn from the numbers afterwards
    (captions, claims' thresholds). The workflow reruns a shard when its curves' specs change
    (the rules' ``spec``), and ``binding`` hashes them."""
    fig = cv.figure(config, paper, figure)
    all_settings = grid.settings(fig)
    specs = {}
    for setting, algorithm in curves:
        registry_id, resolved = cv.resolve(fig, all_settings[setting], algorithm)
        specs[curve_key(setting, algorithm)] = {
            "paper": paper,
            "figure": figure,
            "seed": config["seed"],
            "seed_setting": seeds.seed_name(fig, setting),
            "horizon": grid.horizon(fig, all_settings[setting]),
            "checkpoints": fig["checkpoints"],
            "algorithm": registry_id,
            "setting": resolved,
        }
    return specs


READ_ONLY_BY = {
    "title": "plot",
    "caption": "plot",
    "roughly_band": "claims",
    "slightly_worse": "claims",
}
"""The keys of a figure that one stage alone reads: a plot's words (``grid.title``), and the
claims' thresholds (Vernade et al. 2020's ``roughly_band``, Manegueu et al.'s
``slightly_worse``). Every other key of a figure counts as read by every stage that reads the
figure (tests/test_stage_values.py holds the stages' modules to it)."""
STAGES = ("summary", "table", "claims", "plot")
"""What reads a figure's config: its summary (``aggregate``), its other tables (``ratios``, the
arena's leaderboard), its claims and its plots."""


def stage_values(config: Mapping[str, Any], paper: str, figure: str, stage: str) -> str:
    """The resolved values of ``config`` that decide what ``stage`` (of ``STAGES``) makes of a
    figure, as canonical JSON, for the workflow to rerun a job when they change and only then
    (its rules' ``values``; docs/decisions/engineering.md#rerun-values). A summary depends on the
    numbers of the figure's curves alone (``curve_specs``; its record's config hashes say which
    invocation made it); the other stages on the root seed (their bootstraps' seeds) and the
    figure's keys, without those that only split the work (``config.FIGURE_RUN_KEYS``) or that
    another stage alone reads (``READ_ONLY_BY``)."""
    if stage not in STAGES:
        raise ValueError(f"stage {stage!r}: allowed {', '.join(STAGES)}")
    fig = cv.figure(config, paper, figure)
    if stage == "summary":
        curves = cv.curves(paper, figure, fig) if kinds.simulated(fig) else []
        return canonical_json(curve_specs(config, paper, figure, curves)).decode()
    read = {
        key: value
        for key, value in fig.items()
        if key not in FIGURE_RUN_KEYS and READ_ONLY_BY.get(key, stage) == stage
    }
    return canonical_json({"seed": config["seed"], "figure": read}).decode()


def binding(
    config: Mapping[str, Any],
    paper: str,
    figure: str,
    curves: Sequence[tuple[str, str]] | None = None,
) -> Binding:
    """What the tables of a figure made from ``config`` by this simulation code record, and what
    their readers expect: of ``curves``, or every curve of the figure (``curves.curves``). The
    code is the simulating modules' (``software.simulation_sha256``), not the whole package's: a
    run's numbers depend on nothing else, so an edit of a claim or a plot leaves the runs valid;
    the tables made from them are redone by the workflow, whose rules take the whole package's
    hash (docs/auditing.md, "When results are redone")."""
    if curves is None:
        curves = cv.curves(paper, figure, cv.figure(config, paper, figure))
    specs = curve_specs(config, paper, figure, curves)
    return Binding(
        int(config["seed"]),
        software.environment()["simulation_sha256"],
        {key: config_hash(spec) for key, spec in specs.items()},
    )


def claims_binding(config: Mapping[str, Any], paper: str, figure: str) -> Binding:
    """The binding a figure's claims record (``claims.json``'s record, which ``quote`` checks):
    of every curve of a simulated figure, of none of one drawn from the configuration alone."""
    fig = cv.figure(config, paper, figure)
    return binding(config, paper, figure, None if kinds.simulated(fig) else [])


def binding_metadata(made_by: Binding) -> dict[bytes, bytes]:
    """The parquet metadata that records a shard's or an event table's binding."""
    return {BINDING_KEY: json.dumps(made_by.as_dict()).encode()}


def shard_metadata(
    replications: int, agent_steps: int, wall_time_s: float, git: Mapping[str, Any]
) -> dict[str, Any]:
    """What a shard's parquet metadata records of its run; ``git`` is a ``git_state``."""
    return {
        "version": __version__,
        **git,
        "replications": replications,
        "agent_steps": agent_steps,
        "wall_time_s": wall_time_s,
        "steps_per_s": agent_steps / wall_time_s,
        "environment": software.environment(),
    }


def write_shard(
    frame: pd.DataFrame, path: Path, metadata: Mapping[str, Any], made_by: Binding
) -> None:
    """Write ``frame`` as ``DataFrame.to_parquet(path, index=False)`` would, with ``metadata``
    added to the schema's key-value metadata under ``SHARD_KEY``, its binding
    (``binding_metadata``) and the checksum of its content (``outputs.write_parquet``), which
    every reader verifies."""
    write_parquet(
        frame, path, {SHARD_KEY: json.dumps(metadata).encode(), **binding_metadata(made_by)}
    )


def read_shard_metadata(path: Path) -> dict[str, Any] | None:
    """A shard's provenance, or None for a shard written before shards carried it."""
    raw = (pq.read_schema(path).metadata or {}).get(SHARD_KEY)
    return None if raw is None else json.loads(raw)


def replication_counts(raw: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Distinct replications per setting and algorithm in the concatenated shards."""
    counts = raw.groupby(["setting", "algorithm"], sort=True)["replication"].nunique()
    out: dict[str, dict[str, int]] = {}
    for (setting, algorithm), n in counts.items():
        out.setdefault(str(setting), {})[str(algorithm)] = int(n)
    return out


def seed_record(
    config: Mapping[str, Any], paper: str, figure: str, settings: Sequence[str]
) -> dict[str, Any]:
    """The root seed and, per setting, the entropy its replications' seeds extend."""
    fig = cv.figure(config, paper, figure)
    root = int(config["seed"])

    def entry(setting: str) -> dict[str, Any]:
        seed_setting = seeds.seed_name(fig, setting)
        return {
            "seed_setting": seed_setting,
            "entropy": seeds.setting_entropy(root, paper, figure, seed_setting),
        }

    return {
        "root": root,
        "derivation": DERIVATION,
        "settings": {setting: entry(setting) for setting in sorted(settings)},
    }


def _shard_record(metadata: Sequence[Mapping[str, Any] | None]) -> dict[str, Any]:
    timed = [m for m in metadata if m is not None]
    return {
        "count": len(metadata),
        # Shards written before shards carried provenance: their time is missing from the sums.
        "without_metadata": len(metadata) - len(timed),
        "agent_steps": sum(m["agent_steps"] for m in timed),
        "wall_time_s": sum(m["wall_time_s"] for m in timed),
        "versions": sorted({m["version"] for m in timed}),
        "git_commits": sorted({m["git_commit"] for m in timed}),
        "git_dirty": sorted({m["git_dirty"] for m in timed}, key=str),
    }


def shard_environments(metadata: Sequence[Mapping[str, Any] | None]) -> list[dict[str, Any]]:
    """The distinct software environments the shards were made in (one, in a clean run); shards
    written before shards recorded it count for none."""
    found = {
        canonical_json(m["environment"]): m["environment"]
        for m in metadata
        if m and "environment" in m
    }
    return [found[key] for key in sorted(found)]


def build(
    *,
    paper: str,
    figure: str,
    config: Mapping[str, Any],
    made_from: Mapping[str, Any],
    git: Mapping[str, Any],
    replications: Mapping[str, Mapping[str, int]],
    shards: Sequence[Mapping[str, Any] | None],
    aggregation_s: float,
    created: datetime,
    hostname: str,
) -> dict[str, Any]:
    """The sidecar of a figure's summary (``tables.write_table`` adds the summary's sha256 and
    binding): ``made_from`` the config's files and overrides (``config.sources``),
    ``replications`` from ``replication_counts``, ``shards`` the shards'
    ``read_shard_metadata``, ``created`` an aware UTC time."""
    shard = _shard_record(shards)
    return {
        "paper": paper,
        "figure": figure,
        "created_utc": created.isoformat(timespec="seconds"),
        "hostname": hostname,
        "version": __version__,
        **git,
        "environment": software.environment(),
        "shard_environments": shard_environments(shards),
        "config": {
            "paths": list(made_from["paths"]),
            # the files' own content, in the same order: an overlay outside git (or edited since
            # the commit) is recorded, which git_commit and git_dirty cannot say
            "file_sha256": list(made_from["file_sha256"]),
            "overrides": dict(made_from["overrides"]),
            "sha256": config_hash(config),
            "figure_sha256": config_hash(cv.figure(config, paper, figure)),
        },
        "seeds": seed_record(config, paper, figure, list(replications)),
        "replications": {s: dict(by_algorithm) for s, by_algorithm in replications.items()},
        "shards": shard,
        "wall_time_s": {
            "simulation": shard["wall_time_s"],
            "aggregation": aggregation_s,
            "total": shard["wall_time_s"] + aggregation_s,
        },
    }


def digested(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a digest of the docs (``quoted``) records of a summary's provenance ``record``: the
    commits of its shards, and the hashes of the package's sources and of its simulating modules
    alone (``software.simulation_files``; none for shards made before it was recorded)."""
    environments = record["shard_environments"]
    return {
        "git_commits": record["shards"]["git_commits"],
        "source_sha256": sorted({e["source_sha256"] for e in environments}),
        "simulation_sha256": sorted(
            {e["simulation_sha256"] for e in environments if "simulation_sha256" in e}
        ),
    }


def to_json(record: Mapping[str, Any]) -> str:
    """The sidecar's text: indented, in ``build``'s order, non-ASCII kept."""
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def to_html(record: Mapping[str, Any], title: str) -> str:
    """The sidecar as an HTML page, for the report to show inline."""
    return html_page(title, f"<pre>{escape(to_json(record))}</pre>")
