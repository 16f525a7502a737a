"""``delayed-bandits verify``: check every result file of a run against its recorded checksum, and
the run against what its config makes, e.g. after a run was archived and restored
(docs/auditing.md).

What is recorded when a file is written: every shard and event table carries the sha256 of its
content (``outputs.write_parquet``), every CSV table the sha256 of its bytes in its record beside
it (``tables.write_table``). What ``--record`` adds, when a run is archived: ``checksums.sha256``
at the top of the run, the sha256 of every file under its results/, figures/ and reports/ (the
format of ``sha256sum``, so ``sha256sum -c checksums.sha256`` checks it too). What the run should
hold is what its config makes (``layout.expected``): the config given, else the one its summaries'
provenance records. A file under the run must be a regular file: a link (even to a good copy) or a
device is named, not followed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from delayed_bandits import config as cfg
from delayed_bandits import layout
from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import atomic_path, read_parquet
from delayed_bandits.tables import TABLE_SHA256, sidecar_path

MANIFEST = "checksums.sha256"
TOPS = ("results", "figures", "reports")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _entries(run: Path) -> list[Path]:
    """Everything under the run's results/, figures/ and reports/ but directories, sorted: regular
    files, and whatever else is there (links, devices, sockets), which ``check`` refuses."""
    return sorted(
        p for top in TOPS for p in (run / top).rglob("*") if p.is_symlink() or not p.is_dir()
    )


def run_files(run: Path) -> list[Path]:
    """Every regular file under the run's results/, figures/ and reports/, sorted (a run at the
    paper scale is the repository's top, at another scale ``<scale>/``); links are left out."""
    return [p for p in _entries(run) if p.is_file() and not p.is_symlink()]


def record(run: Path) -> int:
    """Write ``checksums.sha256`` of the run; the number of files it lists."""
    manifest = run / MANIFEST
    if manifest.is_symlink() or (manifest.exists() and not manifest.is_file()):
        raise ConfigError(f"{manifest}: not a regular file; remove it, then record again")
    files = run_files(run)
    with atomic_path(run / MANIFEST) as tmp:
        tmp.write_text("".join(f"{_sha256(p)}  {p.relative_to(run).as_posix()}\n" for p in files))
    return len(files)


def _listed(run: Path) -> tuple[dict[str, str], list[str]]:
    """The files ``checksums.sha256`` lists with their sha256, and its lines that are refused: not
    ``<sha256>  <path>``, or a path that is absolute or leaves the run (``..``)."""
    manifest = run / MANIFEST
    if manifest.is_symlink() or not manifest.is_file():
        return {}, [f"{MANIFEST}: not a regular file; refused (remove it, or record it again)"]
    try:
        text = manifest.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, [f"{MANIFEST}: not UTF-8 text ({exc}); refused"]
    listed: dict[str, str] = {}
    refused = []
    for number, line in enumerate(text.splitlines(), 1):
        digest, _, name = line.partition("  ")
        parts = PurePosixPath(name).parts
        if len(digest) != 64 or not name:
            refused.append(f"{MANIFEST} line {number}: not '<sha256>  <path>'; refused")
        elif PurePosixPath(name).is_absolute() or ".." in parts or "\\" in name:
            refused.append(
                f"{MANIFEST} line {number}: {name!r} is absolute or leaves the run; refused"
            )
        else:
            listed[name] = digest
    return listed, refused


def _manifest(run: Path) -> tuple[int, list[str]]:
    """Files listed in the run's ``checksums.sha256``, and what does not match it: a file
    changed, missing, or not listed, and lines that are refused."""
    listed, problems = _listed(run)
    for name, digest in listed.items():
        path = run / name
        if path.is_symlink() or not path.is_file():
            problems.append(f"{name}: missing, or not a regular file ({MANIFEST} lists it)")
        elif _sha256(path) != digest:
            problems.append(f"{name}: its sha256 is not the one {MANIFEST} records")
    found = {p.relative_to(run).as_posix() for p in run_files(run)}
    problems += [f"{name}: not listed in {MANIFEST}" for name in sorted(found - set(listed))]
    return len(listed), problems


def _table(path: Path, run: Path) -> str | None:
    """What is wrong with a CSV table, against its record (``tables.write_table``), or None."""
    sidecar = sidecar_path(path)
    try:
        recorded = json.loads(sidecar.read_bytes())[TABLE_SHA256]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{sidecar.relative_to(run)}: no {TABLE_SHA256} to check against ({exc!r})"
    if _sha256(path) != recorded:
        return f"{path.relative_to(run)}: its sha256 is not the one {sidecar.name} records"
    return None


# What a summary's provenance records of the whole run's config; the rest (the figure's own hash)
# differs from figure to figure of one run.
_RUN_CONFIG = ("paths", "file_sha256", "overrides", "sha256")


def run_config(run: Path) -> tuple[dict[str, Any], Path]:
    """The config a run was made with, as its summaries' provenance records it (the config files,
    relative to the folder the workflow ran in, and the overrides), and that folder: the run
    itself at the paper scale, the folder above ``<scale>/`` at another. ``ConfigError`` when no
    record names one, the records disagree, or the files are gone."""
    made = {
        json.dumps(
            {k: json.loads(p.read_bytes()).get("config", {}).get(k) for k in _RUN_CONFIG},
            sort_keys=True,
        )
        for p in sorted((run / "results").rglob("summary.provenance.json"))
        if p.is_file() and not p.is_symlink()
    }
    if len(made) != 1:
        raise ConfigError(
            f"{run}: {'no' if not made else 'more than one'} config recorded by its summaries' "
            "provenance; give the run's --config"
        )
    recorded = json.loads(made.pop())
    for workdir in (run, run.parent):
        files = [workdir / p for p in recorded.get("paths", [])]
        if files and all(f.is_file() for f in files):
            config = cfg.load(files, overrides=recorded.get("overrides"))
            return config, run if cfg.output_prefix(config) == "" else run.parent
    raise ConfigError(
        f"{run}: the config files its provenance records ({', '.join(recorded.get('paths', []))}) "
        "are not found beside it; give the run's --config"
    )


def missing(run: Path, config: Mapping[str, Any], workdir: Path) -> list[str]:
    """What the config's whole run makes (``layout.expected``) that ``run`` lacks, one line each;
    a run of another scale than the config's is one line."""
    where = workdir / cfg.output_prefix(config)
    if where.resolve() != run.resolve():
        return [f"{run}: the config writes its run to {where}, not here ({config.get('scale')})"]
    expected = layout.expected(config, layout.notebooks(workdir))
    return [
        f"{name}: missing (the run's config makes it)"
        for name in expected
        if not (run / name).is_file() or (run / name).is_symlink()
    ]


def check(
    run: Path, config: Mapping[str, Any] | None = None, workdir: Path | None = None
) -> tuple[list[str], list[str]]:
    """What was checked (one line per kind of record) and every problem found (one line per
    file, naming it and what does not match). ``config``: the run's, made in ``workdir`` (default:
    the folder above the run, or the run itself at the paper scale); without it, the config its
    provenance records (``run_config``)."""
    problems = [
        f"{p.relative_to(run)}: {'a symbolic link' if p.is_symlink() else 'not a regular file'}; "
        "refused (a result is the file a job wrote)"
        for p in _entries(run)
        if p.is_symlink() or not p.is_file()
    ]
    files = run_files(run)
    tables = [p for p in files if p.suffix == ".parquet"]
    for path in tables:
        try:
            read_parquet(path)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            problems.append(f"{path.relative_to(run)}: {type(exc).__name__}: {exc}")
    csvs = [
        p
        for p in files
        if (p.suffix == ".csv" or p.name == "claims.json") and run / "results" in p.parents
    ]
    problems += [found for found in (_table(p, run) for p in csvs) if found]
    checked = [
        f"{len(tables)} parquet tables against the checksum of their content",
        f"{len(csvs)} CSV tables and claims files against their records",
    ]
    try:
        if config is None:
            config, workdir = run_config(run)
        elif workdir is None:
            workdir = run if cfg.output_prefix(config) == "" else run.parent
        lacking = missing(run, config, workdir)
        checked.append(f"the files its config (scale {config.get('scale', 'paper')}) makes")
        problems += lacking
    except ConfigError as exc:
        problems.append(f"cannot check that the run is complete: {exc}")
    if (run / MANIFEST).exists() or (run / MANIFEST).is_symlink():
        listed, found = _manifest(run)
        checked.append(f"{listed} files against {MANIFEST}")
        problems += found
    else:
        checked.append(f"no {MANIFEST} (`delayed-bandits verify --record` writes one)")
    return checked, problems
