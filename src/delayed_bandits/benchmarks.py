"""Snakemake's benchmark of every job of a run (``benchmarks/``, mirroring ``results/``), read
once for the two digests that state what a run cost: the arena's (``arena.digest``) and the speed
digest (``speed``). Each job's last benchmark line is its latest run: ``s`` its wall time,
``cpu_s`` its CPU time and ``peak_mb`` its peak memory (0 where Snakemake could not measure it);
its ``stage`` is the benchmark's name without its replication range (``rep0-9`` is a simulation
shard, ``contest10-79`` the arena's contest, ``summary`` a summary).

The CPU time is the job's own count, from the last line of its log (``logs/`` mirrors
``benchmarks/``: ``done in 12.80 s wall, 12.60 s CPU, ...``, ``cli._done``). Snakemake's
``cpu_time`` is a sample: it reads the process every 0.5 s for the first 15 s, then every 30 s,
so it misses what a job spends after its last sample, up to 30 s of a long shard. It is used
only for a job whose log has no such line."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from delayed_bandits.errors import ConfigError

DIRECTORY = "benchmarks"  # under the run's directory
LOGS = "logs"  # the jobs' logs, at the same paths
_RANGE = re.compile(r"\d+-\d+$")  # a shard's replication range, the end of its benchmark's name
_DONE = re.compile(r"done in [\d.]+ s wall, ([\d.]+) s CPU, ")


def logged_cpu_s(log: Path) -> float | None:
    """The CPU time a job's log ends with, or None where it has no such line (no log, or a job
    that failed or is not a ``delayed-bandits`` command)."""
    if not log.is_file():
        return None
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    match = _DONE.match(lines[-1]) if lines else None
    return float(match.group(1)) if match else None


def read(run: Path, under: str = "", made_by: str = "`make figures`") -> pd.DataFrame:
    """One row per benchmark file under ``run``/benchmarks/``under``, in path order: ``job`` its
    path below benchmarks/ (``arena/regret/rep0-0.tsv``), ``stage``, ``s``, ``cpu_s`` and
    ``peak_mb``. ConfigError where there is none, naming ``made_by``, what makes them."""
    root = run / DIRECTORY
    rows = []
    for path in sorted((root / under).rglob("*.tsv")):
        bench = pd.read_csv(path, sep="\t")
        logged = logged_cpu_s((run / LOGS / path.relative_to(root)).with_suffix(".log"))
        rows.append(
            {
                "job": path.relative_to(root).as_posix(),
                "stage": _RANGE.sub("", path.stem) or path.stem,
                "s": float(bench.s.iloc[-1]),
                "cpu_s": float(bench.cpu_time.iloc[-1]) if logged is None else logged,
                "peak_mb": float(pd.to_numeric(bench.max_rss, errors="coerce").fillna(0).iloc[-1]),
            }
        )
    if not rows:
        raise ConfigError(
            f"--run: {run} has no {(Path(DIRECTORY) / under).as_posix()}/ (run {made_by} there "
            "first)"
        )
    return pd.DataFrame(rows)
