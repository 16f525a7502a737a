"""What software made a result: the package's own sources, hashed, and the versions of what it runs
on. The workflow gives a hash of the sources to every job as a parameter, so that a change to the
package reruns the jobs it could change (``docs/auditing.md``, "When results are redone"); the
provenance records carry both (``provenance.shard_metadata``, ``provenance.build``).

Two hashes: the whole package's (``source_sha256``), which the rules that make tables and
figures take, and the simulating modules' alone (``simulation_sha256``: ``SIMULATION``'s roots
and every package module they import), which the rules that simulate take and every shard and
table is bound to (``provenance.binding``). An edit of a claim, a plot or the docs' digest
changes the first and not the second, and leaves the runs valid; a check of a rerun
(``delayed-bandits quote --run``) says from the second whether two runs' simulation code
differs."""

from __future__ import annotations

import ast
import functools
import hashlib
import platform
import sys
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parent
# What the package is made of: its modules and the schemas and paper registrations it reads.
SOURCE_SUFFIXES = (".py", ".yaml")
# What `make setup` writes into the environment: the sha256 of the lock it installed.
LOCK_MARKER = "lock.sha256"
# The distributions whose versions can change a number or a figure, and the workflow's engine.
VERSIONED = ("numpy", "numba", "llvmlite", "scipy", "pandas", "pyarrow", "matplotlib", "snakemake")
UNKNOWN = "unknown"
SIMULATION = (
    # the shard loop, which runs every paper's experiment
    "simulate.py",
    # each paper's experiment, policies and kernels, and the arena's (papers.BUILT_IN): the
    # experiments are found by name at run time, so no import leads to them
    "papers/*/experiment.py",
    "papers/*/policies.py",
    "papers/*/kernels.py",
    "arena/experiment.py",
    "arena/policies.py",
    "arena/kernels.py",
)
"""The roots of the modules that make a run's numbers, as patterns of paths relative to the
package (``*`` one folder): what ``simulation_sha256`` hashes is these and every package module
they import, directly or not (``simulation_files``), so that a module a simulation comes to use
cannot be left out. The config that drives them is hashed apart, in every summary's provenance;
claims, tables of results, plots and the commands are left out where no simulating module
imports them."""


def source_files(package: Path = PACKAGE_DIR) -> list[Path]:
    """The package's source files, in a fixed order (compiled caches left out)."""
    return sorted(
        path
        for path in package.rglob("*")
        if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file()
    )


def imported(path: Path, package: Path = PACKAGE_DIR) -> set[Path]:
    """The package's modules (and the ``__init__`` of each package on the way) that the module at
    ``path`` imports, read from its source: absolute ``delayed_bandits`` imports and relative
    ones, including a name imported from a package that is itself a module."""
    own = [package.name, *path.relative_to(package).with_suffix("").parts]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = own[: -node.level] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{a.name}" for a in node.names)
    out = set()
    for name in names:
        parts = name.split(".")
        if parts[0] != package.name:
            continue
        for depth in range(1, len(parts) + 1):  # importing a.b.c runs a/__init__, a/b/__init__
            stem = package.joinpath(*parts[1:depth])
            for candidate in (stem / "__init__.py", stem.with_suffix(".py")):
                if candidate.is_file():
                    out.add(candidate)
    return out


def simulation_files(package: Path = PACKAGE_DIR) -> list[Path]:
    """The source files that ``SIMULATION`` names and every package module they import, in a
    fixed order."""

    def named(relative: PurePosixPath) -> bool:
        # match() compares from the right: "delays.py" alone would also name papers/x/delays.py
        return any(
            len(relative.parts) == len(PurePosixPath(p).parts) and relative.match(p)
            for p in SIMULATION
        )

    roots = [p for p in source_files(package) if named(PurePosixPath(p.relative_to(package)))]
    found, todo = set(roots), list(roots)
    while todo:
        for module in imported(todo.pop(), package) - found:
            found.add(module)
            todo.append(module)
    return sorted(found)


def source_sha256(package: Path = PACKAGE_DIR, files: list[Path] | None = None) -> str:
    """sha256 of the package's sources (``files``, all of them by default): each file's path
    (relative to the package) and bytes, so that an edit, a new module or a renamed one changes
    it, and a touch without an edit does not."""
    digest = hashlib.sha256()
    for path in source_files(package) if files is None else files:
        data = path.read_bytes()
        digest.update(f"{path.relative_to(package).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def simulation_sha256(package: Path = PACKAGE_DIR) -> str:
    """sha256 of the simulating modules alone (``SIMULATION``), as ``source_sha256`` hashes."""
    return source_sha256(package, simulation_files(package))


def lock_sha256(prefix: Path | None = None) -> str:
    """The sha256 of the lock file (envs/requirements.lock) that `make setup` installed into the
    environment at ``prefix`` (this interpreter's), or "unknown" for an environment made otherwise."""
    marker = Path(sys.prefix if prefix is None else prefix) / LOCK_MARKER
    try:
        return marker.read_text(encoding="utf-8").strip() or UNKNOWN
    except OSError:
        return UNKNOWN


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return UNKNOWN


@functools.cache
def environment() -> dict[str, Any]:
    """Python's version, those of ``VERSIONED``, the lock's hash, the sources' hash and that of
    the simulating modules alone."""
    return {
        "python": platform.python_version(),
        **{name: _version(name) for name in VERSIONED},
        "lock_sha256": lock_sha256(),
        "source_sha256": source_sha256(),
        "simulation_sha256": simulation_sha256(),
    }
