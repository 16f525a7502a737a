"""Do two workflow runs hold the same results? Used by the resume test and the SLURM smoke test.

Summaries, ratio tables, claims and figures must be byte-identical. A shard's parquet metadata
records its wall time and git state, so shards are compared by their columns and values; the
provenance sidecars record times and hosts, so they are not compared at all. A rendered notebook
(reports/) is compared byte for byte but for what docs/auditing.md says varies between runs
(``REPORT_VARIES``): the checkout's own directory, the temporary folder arena-your-algorithm
writes its package to, and the wall time a notebook prints.

Usage: python tests/compare_runs.py RUN_A RUN_B [PREFIX ...]   (exit code 1 on any difference;
PREFIX: only paths starting with it, e.g. results/vernade2017 or reports; default: results,
figures and reports)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pyarrow.parquet as pq

VOLATILE = (".provenance.json", ".provenance.html")
DEFAULT = ("results", "figures", "reports")
# What a rendered notebook may print differently from run to run, each as a pattern and what it
# reads as in the comparison (the checkout's directory is replaced first, by ``report_text``).
REPORT_VARIES = (
    (re.compile(rb"my-arena-[A-Za-z0-9_]+"), b"my-arena-<temporary>"),
    (re.compile(rb"\bin \d+(?:\.\d+)? s\b"), b"in <wall time> s"),
)


# Where a run's notebooks say they read their settings: the checkout the run was made in.
MADE_IN = re.compile(rb"Settings from (/[^\s<\"']*?)/config/")


def made_in(run: Path) -> bytes | None:
    """The checkout the run was made in, as its rendered notebooks record it ("Settings from
    <checkout>/config/config.yaml"), or None when no page says: a run copied or moved elsewhere
    keeps the folder it was made in."""
    for page in sorted((run / "reports").glob("*.html")):
        found = MADE_IN.search(page.read_bytes())
        if found:
            return found[1]
    return None


def report_text(path: Path, run: Path) -> bytes:
    """A rendered notebook with what varies between runs masked (``REPORT_VARIES``), and the
    checkout the run was made in (the notebooks print where they read the results and the config)
    read as ``<checkout>``: as the run's pages record it (``made_in``), else the run itself at
    the paper scale, the folder above ``<scale>/`` at another."""
    checkout = made_in(run)
    if checkout is None:
        folder = run.resolve()
        if not (folder / "Snakefile").exists() and (folder.parent / "Snakefile").exists():
            folder = folder.parent
        checkout = str(folder).encode()
    text = path.read_bytes().replace(checkout, b"<checkout>")
    for pattern, masked in REPORT_VARIES:
        text = pattern.sub(masked, text)
    return text


def result_files(run: Path, prefixes: tuple[str, ...] = DEFAULT) -> list[str]:
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


def same_file(a: Path, b: Path, run_a: Path | None = None, run_b: Path | None = None) -> bool:
    """Whether two runs' copies of a file hold the same result; ``run_a`` and ``run_b``, the
    runs' directories, for a rendered notebook (``report_text``)."""
    if a.suffix == ".html" and run_a is not None and run_b is not None and "reports" in a.parts:
        return report_text(a, run_a) == report_text(b, run_b)
    if a.suffix == ".parquet":
        return (
            pq.read_table(a)
            .replace_schema_metadata()
            .equals(pq.read_table(b).replace_schema_metadata())
        )
    return a.read_bytes() == b.read_bytes()


def differences(a: Path, b: Path, prefixes: tuple[str, ...] = DEFAULT) -> list[str]:
    """What differs between the two runs' results, one line per file (empty when none)."""
    files_a, files_b = result_files(a, prefixes), result_files(b, prefixes)
    out = [f"only in {a}: {p}" for p in sorted(set(files_a) - set(files_b))]
    out += [f"only in {b}: {p}" for p in sorted(set(files_b) - set(files_a))]
    out += [f"differs: {p}" for p in files_a if p in files_b and not same_file(a / p, b / p, a, b)]
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = Path(argv[0]), Path(argv[1])
    prefixes = tuple(argv[2:]) or DEFAULT
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
