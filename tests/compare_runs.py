"""Do two workflow runs hold the same results? Used by the resume test and the SLURM smoke test.

Summaries, ratio tables, claims and figures must be byte-identical. A shard's parquet metadata
records its wall time and git state, so shards are compared by their columns and values; the
provenance sidecars record times and hosts, so they are not compared at all.

Usage: python tests/compare_runs.py RUN_A RUN_B [PREFIX ...]   (exit code 1 on any difference;
PREFIX: only paths starting with it, e.g. results/vernade2017)
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow.parquet as pq

VOLATILE = (".provenance.json", ".provenance.html")


def result_files(run: Path, prefixes: tuple[str, ...] = ("results", "figures")) -> list[str]:
    """Paths, relative to ``run``, of the results and figures that start with one of
    ``prefixes`` (e.g. ``results/vernade2017``, ``figures/vernade2017-``, or the smoke scale's
    ``smoke/results``), sorted."""
    tops = {prefix.split("/")[0] for prefix in prefixes}
    found = (
        str(p.relative_to(run))
        for top in sorted(tops)
        for p in (run / top).rglob("*")
        if p.is_file() and not p.name.endswith(VOLATILE)
    )
    return sorted(p for p in found if p.startswith(prefixes))


def same_file(a: Path, b: Path) -> bool:
    if a.suffix == ".parquet":
        return (
            pq.read_table(a)
            .replace_schema_metadata()
            .equals(pq.read_table(b).replace_schema_metadata())
        )
    return a.read_bytes() == b.read_bytes()


def differences(a: Path, b: Path, prefixes: tuple[str, ...] = ("results", "figures")) -> list[str]:
    """What differs between the two runs' results, one line per file (empty when none)."""
    files_a, files_b = result_files(a, prefixes), result_files(b, prefixes)
    out = [f"only in {a}: {p}" for p in sorted(set(files_a) - set(files_b))]
    out += [f"only in {b}: {p}" for p in sorted(set(files_b) - set(files_a))]
    out += [f"differs: {p}" for p in files_a if p in files_b and not same_file(a / p, b / p)]
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = Path(argv[0]), Path(argv[1])
    prefixes = tuple(argv[2:]) or ("results", "figures")
    if not result_files(a, prefixes):
        print(f"no results under {a} to compare", file=sys.stderr)
        return 1
    found = differences(a, b, prefixes)
    for line in found:
        print(line, file=sys.stderr)
    print(f"{len(result_files(a, prefixes))} files compared, {len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
