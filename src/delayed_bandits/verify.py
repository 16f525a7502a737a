"""``delayed-bandits verify``: check every result file of a run against its recorded checksum, e.g.
after a run was archived and restored (docs/auditing.md).

What is recorded when a file is written: every shard and event table carries the sha256 of its
content (``outputs.write_parquet``), every summary's sha256 is in its provenance sidecar. What
``--record`` adds, when a run is archived: ``checksums.sha256`` at the top of the run, the sha256
of every file under its results/, figures/ and reports/ (the format of ``sha256sum``, so
``sha256sum -c checksums.sha256`` checks it too)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from delayed_bandits.outputs import atomic_path, read_parquet

MANIFEST = "checksums.sha256"
TOPS = ("results", "figures", "reports")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_files(run: Path) -> list[Path]:
    """Every file under the run's results/, figures/ and reports/, sorted (a run at the paper
    scale is the repository's top, at another scale ``<scale>/``)."""
    return sorted(p for top in TOPS for p in (run / top).rglob("*") if p.is_file())


def record(run: Path) -> int:
    """Write ``checksums.sha256`` of the run; the number of files it lists."""
    files = run_files(run)
    with atomic_path(run / MANIFEST) as tmp:
        tmp.write_text("".join(f"{_sha256(p)}  {p.relative_to(run).as_posix()}\n" for p in files))
    return len(files)


def _manifest(run: Path) -> tuple[int, list[str]]:
    """Files listed in the run's ``checksums.sha256``, and what does not match it: a file
    changed, missing, or not listed."""
    listed: dict[str, str] = {}
    for line in (run / MANIFEST).read_text().splitlines():
        digest, _, name = line.partition("  ")
        listed[name] = digest
    problems = []
    for name, digest in listed.items():
        path = run / name
        if not path.is_file():
            problems.append(f"{name}: missing ({MANIFEST} lists it)")
        elif _sha256(path) != digest:
            problems.append(f"{name}: its sha256 is not the one {MANIFEST} records")
    found = {p.relative_to(run).as_posix() for p in run_files(run)}
    problems += [f"{name}: not listed in {MANIFEST}" for name in sorted(found - set(listed))]
    return len(listed), problems


def check(run: Path) -> tuple[list[str], list[str]]:
    """What was checked (one line per kind of record) and every problem found (one line per
    file, naming it and what does not match)."""
    files = run_files(run)
    problems: list[str] = []
    tables = [p for p in files if p.suffix == ".parquet"]
    for path in tables:
        try:
            read_parquet(path)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            problems.append(f"{path.relative_to(run)}: {type(exc).__name__}: {exc}")
    summaries = [p for p in files if p.name == "summary.csv"]
    for path in summaries:
        sidecar = path.with_name("summary.provenance.json")
        try:
            recorded = json.loads(sidecar.read_text())["summary_sha256"]
        except (OSError, ValueError, KeyError) as exc:
            problems.append(
                f"{sidecar.relative_to(run)}: no summary_sha256 to check against ({exc})"
            )
            continue
        if _sha256(path) != recorded:
            problems.append(
                f"{path.relative_to(run)}: its sha256 is not the one {sidecar.name} records"
            )
    checked = [
        f"{len(tables)} parquet tables against the checksum of their content",
        f"{len(summaries)} summaries against their provenance sidecar",
    ]
    if (run / MANIFEST).is_file():
        listed, found = _manifest(run)
        checked.append(f"{listed} files against {MANIFEST}")
        problems += found
    else:
        checked.append(f"no {MANIFEST} (`delayed-bandits verify --record` writes one)")
    return checked, problems
