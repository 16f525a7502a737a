"""Snakemake's benchmark of every job of a run (``benchmarks/``, mirroring ``results/``), read
once for the two digests that state what a run cost: the arena's (``arena.digest``) and the speed
digest (``speed``). Each job's last benchmark line is its latest run: ``s`` its wall time,
``cpu_s`` its CPU time (Snakemake's ``cpu_time``, which misses the job's first half second) and
``peak_mb`` its peak memory (0 where Snakemake could not measure it)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

DIRECTORY = "benchmarks"  # under the run's directory


def read(run: Path, under: str = "") -> pd.DataFrame:
    """One row per benchmark file under ``run``/benchmarks/``under``, in path order: ``job`` its
    path below benchmarks/ (``arena/regret/rep0-0.tsv``), ``s``, ``cpu_s`` and ``peak_mb``; no
    rows where there is no benchmark."""
    root = run / DIRECTORY
    rows = []
    for path in sorted((root / under).rglob("*.tsv")):
        bench = pd.read_csv(path, sep="\t")
        rows.append(
            {
                "job": path.relative_to(root).as_posix(),
                "s": float(bench.s.iloc[-1]),
                "cpu_s": float(bench.cpu_time.iloc[-1]),
                "peak_mb": float(pd.to_numeric(bench.max_rss, errors="coerce").fillna(0).iloc[-1]),
            }
        )
    return pd.DataFrame(rows, columns=["job", "s", "cpu_s", "peak_mb"])
