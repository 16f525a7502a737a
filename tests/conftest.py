"""Shared test helpers, and the smoke run of the whole workflow that several test files read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = str(Path(sys.executable).parent)
SNAKEMAKE_ENV = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


def copy_workflow(work: Path) -> Path:
    """What a run needs, copied into ``work``: runs in tests never touch the checkout's results."""
    for item in ("Snakefile", "workflow", "config", "envs", "notebooks"):
        src = ROOT / item
        if src.is_dir():
            shutil.copytree(src, work / item, symlinks=False)
        else:
            shutil.copy(src, work / item)
    return work


def snakemake(work: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    """``snakemake ARGS --configfile config/smoke.yaml`` in ``work`` (targets go in ARGS)."""
    return subprocess.run([f"{BIN}/snakemake", *args, "--configfile", "config/smoke.yaml"],
                          cwd=work, env=SNAKEMAKE_ENV, capture_output=True, text=True, **kwargs)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``pytest -n N --dist loadgroup`` (``make test``), the tests that read the smoke run
    go to one worker, so that it runs once; the other workers take the rest."""
    for item in items:
        if "smoke_run" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("smoke_run"))


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """The smoke config through the whole workflow, uninterrupted, on two cores."""
    work = copy_workflow(tmp_path_factory.mktemp("workflow"))
    run = snakemake(work, "--cores", "2")
    assert run.returncode == 0, run.stderr[-3000:]
    return work
