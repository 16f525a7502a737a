"""Shared test helpers, and the smoke run of the whole workflow that several test files read."""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "config" / "config.yaml"
SMOKE = ROOT / "config" / "smoke.yaml"
SMOKE_FILES = (CONFIG, SMOKE)
"""The smoke scale: config/smoke.yaml is an overlay of config/config.yaml."""
FULL_FILES = (CONFIG, ROOT / "config" / "arena-full.yaml")
"""The arena's citable scale: its whole grid at T = 100,000 (the standard scale has part of it)."""


@functools.cache
def _full_figure(figure: str) -> dict:
    from delayed_bandits import config as cfg

    return cfg.load(FULL_FILES, "arena")["papers"]["arena"][figure]


def full_setting(name: str, figure: str = "regret"):
    """The arena setting ``name`` of ``figure`` at the citable scale (``FULL_FILES``)."""
    from delayed_bandits import grid
    from delayed_bandits.arena.experiment import Setting

    return Setting.from_config(grid.settings(_full_figure(figure))[name], name)


def config_files(config: Path | None = None) -> list[str]:
    """A command's --config files: ``config`` alone (a whole config), else the smoke layers."""
    return [str(config)] if config is not None else [str(p) for p in SMOKE_FILES]


def smoke_config() -> dict:
    """The smoke-scale config, merged and validated: a fresh copy tests may change."""
    from delayed_bandits import config as cfg

    return cfg.load(SMOKE_FILES)


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


def plugin(folder: Path, files: dict[str, str]) -> dict[str, str]:
    """A package outside this one (``folder``, its name the package's, holding ``files``: name ->
    text, dedented), and the environment that names it in ``$DELAYED_BANDITS_PAPERS``."""
    import textwrap

    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip())
    return dict(
        os.environ,
        # before any path the tests run with (a checkout's src/ over an installed package)
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(folder.parent), os.environ.get("PYTHONPATH")])
        ),
        DELAYED_BANDITS_PAPERS=folder.name,
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
    )


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``args`` run in ``cwd`` (with the environment's commands on PATH), its output captured."""
    return subprocess.run(
        args, cwd=cwd, env=env or SNAKEMAKE_ENV, capture_output=True, text=True, timeout=600
    )


def snakemake(work: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    """``snakemake ARGS --configfile config/smoke.yaml`` in ``work`` (targets go in ARGS)."""
    return subprocess.run(
        [f"{BIN}/snakemake", *args, "--configfile", "config/smoke.yaml"],
        cwd=work,
        env=SNAKEMAKE_ENV,
        capture_output=True,
        text=True,
        **kwargs,
    )


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory) -> Path:
    """The smoke config through the whole workflow, uninterrupted, on two cores: once per test
    session, shared by the workers of ``pytest -n N`` (``make test``): the first worker to need it
    runs it while the others wait on a lock."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the session's directory, above each worker's own
    work = shared / "smoke-workflow"
    done, failed = work.with_suffix(".done"), work.with_suffix(".failed")
    with open(work.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():  # another worker's attempt: the same run would fail the same way
            pytest.fail(f"the smoke run failed:\n{failed.read_text()}")
        if not done.exists():
            work.mkdir()
            run = snakemake(copy_workflow(work), "--cores", "2")
            if run.returncode != 0:
                failed.write_text(run.stderr[-3000:])
                pytest.fail(f"the smoke run failed:\n{run.stderr[-3000:]}")
            done.touch()
    return work


class FirstArm:
    """The simplest arena policy of the conversions model (``entrants.Policy``): the first arm,
    always. The tests' plug-in entrants start from it."""

    def __init__(self, problem, rng):
        pass

    def choose(self, t):
        return 0

    def played(self, t, arm):
        pass

    def observe(self, s, arm, delay):
        pass


def arena_draw(seed: int, horizon: int, n_arms: int = 4, window: int = 20, censored: bool = False):
    """One arena setting (gap 0.2 above 0.4, geometric delays of mean 5) and a replication's draw
    of it, for tests that play a policy on the arena's problem: (setting, draw)."""
    import numpy as np

    from delayed_bandits.arena import experiment as arena

    raw = {
        "n_arms": n_arms,
        "gap": 0.2,
        "base_mean": 0.4,
        "window": window,
        "censored": censored,
        "alpha_tilde": 0.5,
        "delay": {"kind": "geometric", "mean": 5},
    }
    st = arena.Setting.from_config(raw, "x")
    return st, arena.draw_environment(np.random.SeedSequence(seed), horizon, st)


# The probes' tally (tests/tally.py): a probe is marked @pytest.mark.probe("group"); its cases'
# outcomes travel in each report's user_properties, and the process that reports (pytest-xdist's
# controller, or the only one) holds docs/auditing.md's block to them when every probe ran.
_TALLY: list = []  # this process's tally.Tally, made when pytest starts


def pytest_configure(config: pytest.Config) -> None:
    import tally

    config.addinivalue_line(
        "markers",
        "probe(group): a reliability probe; its cases' outcomes make docs/auditing.md's tally",
    )
    _TALLY[:] = [tally.Tally()]
    xml = config.getoption("xmlpath", None)
    if xml and not hasattr(config, "workerinput"):  # the commit the timed tests run at
        from delayed_bandits import speed

        speed.write_commit(Path(xml), Path(__file__).parent)


@pytest.fixture
def probe(request: pytest.FixtureRequest):
    """What a probe test records of its cases (``tally.Probe``); the test must be marked probe."""
    import tally

    if request.node.get_closest_marker("probe") is None:
        raise pytest.UsageError(f"{request.node.nodeid}: the probe fixture needs a probe mark")
    return tally.Probe(request.node)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that reads the smoke run belongs to the end-to-end tier (marked slow): in the
    other, ``make test``, it would start the whole workflow for one test. A probe does not: the
    tally is checked by the session that runs every probe, ``make test``.

    The files run longest first, by their times in the committed speed digest (a file it does
    not know first of all): the Makefile's workers take whole files in this order
    (``--no-loadscope-reorder``), so a long file never starts last while the other worker idles."""
    items[:] = _longest_first(items)
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    unmarked = [
        item.nodeid
        for item in items
        if "smoke_run" in getattr(item, "fixturenames", ()) and item not in slow
    ]
    if unmarked:
        raise pytest.UsageError(f"these read the smoke run, so mark them slow: {unmarked}")
    probes = [item.nodeid for item in slow if item.get_closest_marker("probe") is not None]
    if probes:
        raise pytest.UsageError(
            f"probes in the end-to-end tier leave the tally unchecked: {probes}"
        )


def _longest_first(items: list[pytest.Item]) -> list[pytest.Item]:
    import json

    from delayed_bandits import quoting, speed

    digest = ROOT / quoting.QUOTED["speed"][0]
    times = speed.test_seconds(json.loads(digest.read_text())) if digest.is_file() else {}

    def seconds(item: pytest.Item) -> float:
        path = item.path.resolve()
        name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else None
        return times.get(name, float("inf"))  # a file the digest does not know goes first

    return sorted(items, key=lambda item: -seconds(item))  # stable: a file's tests keep their order


def pytest_deselected(items: list[pytest.Item]) -> None:
    _TALLY[0].deselected |= {i.nodeid for i in items if i.get_closest_marker("probe")}


def pytest_collection_finish(session: pytest.Session) -> None:
    _TALLY[0].collected |= {i.nodeid for i in session.items if i.get_closest_marker("probe")}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A probe's report carries its group and, when the test recorded no outcome, the one its
    result gives (passed: refused with a named error; failed: ``tally.from_failure``)."""
    import tally

    report = (yield).get_result()
    marker = item.get_closest_marker("probe")
    if marker is None or report.when != "call":
        return
    recorded = [value for key, value in item.user_properties if key == tally.PROPERTY]
    if not recorded:
        outcome = tally.REFUSED if call.excinfo is None else tally.from_failure(call.excinfo)
        recorded = [(outcome, 1)]
    report.user_properties = [
        (key, value) for key, value in report.user_properties if key != tally.PROPERTY
    ] + [(tally.PROPERTY, (marker.args[0], outcome, cases)) for outcome, cases in recorded]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    import tally

    for key, value in report.user_properties if report.when == "call" else ():
        if key == tally.PROPERTY:
            _TALLY[0].reported.add(report.nodeid)
            _TALLY[0].add(*value)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist: what a worker collected joins the controller's tally."""
    output = getattr(node, "workeroutput", {}).get("probes")
    if output is not None:
        _TALLY[0].merge(output)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    import tally

    found = _TALLY[0]
    if hasattr(session.config, "workerinput"):  # a worker: the controller reports
        session.config.workeroutput["probes"] = found.to_worker_output()
        return
    if found.complete():
        found.problem = tally.check(found, os.environ.get(tally.WRITE) == "1")
        if found.problem:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _TALLY and _TALLY[0].problem:
        terminalreporter.section("probe tally")
        terminalreporter.write_line(_TALLY[0].problem)
