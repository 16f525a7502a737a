"""What software made a result: the package's own sources, hashed, and the versions of what it runs
on. The workflow gives the sources' hash to every job as a parameter, so that a change to the
package reruns the jobs it could change (``docs/auditing.md``, "When results are redone"); the
provenance records carry both (``provenance.shard_metadata``, ``provenance.build``).

A second hash covers only the modules that simulate (``SIMULATION``), so that a check of a rerun
(``delayed-bandits quote --run``) can say whether two runs' simulation code differs when their
package as a whole does: an edit of a claim, a plot or the docs' digest changes the first hash
and not the second."""

from __future__ import annotations

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
    # the shared model: delays, the environment's draws, the seeds, the shard loop
    "delays.py",
    "environment.py",
    "seeds.py",
    "simulate.py",
    # the algorithms: the registry, the indices and queues the kernels share, the references
    "algorithms.py",
    "indices.py",
    "queues.py",
    "references.py",
    # each paper's experiment, policies and kernels, and what its experiment draws on; the
    # arena's too, a package above the papers (papers.BUILT_IN)
    "papers/*/experiment.py",
    "papers/*/policies.py",
    "papers/*/kernels.py",
    "arena/experiment.py",
    "arena/policies.py",
    "arena/kernels.py",
    "arena/entrants.py",
    "arena/problem.py",
    "papers/thune2019/bounds.py",
    "papers/vernade2017/lower_bounds.py",
    "papers/vernade2020/criteo.py",
)
"""The modules that make a run's numbers, as patterns of paths relative to the package (``*``
one folder): what ``simulation_sha256`` hashes. The config that drives them is hashed apart, in
every summary's provenance; claims, tables, plots and the commands are left out."""


def source_files(package: Path = PACKAGE_DIR) -> list[Path]:
    """The package's source files, in a fixed order (compiled caches left out)."""
    return sorted(
        path
        for path in package.rglob("*")
        if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file()
    )


def simulation_files(package: Path = PACKAGE_DIR) -> list[Path]:
    """The source files that ``SIMULATION`` names, in a fixed order."""

    def named(relative: PurePosixPath) -> bool:
        # match() compares from the right: "delays.py" alone would also name papers/x/delays.py
        return any(
            len(relative.parts) == len(PurePosixPath(p).parts) and relative.match(p)
            for p in SIMULATION
        )

    return [
        path for path in source_files(package) if named(PurePosixPath(path.relative_to(package)))
    ]


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
