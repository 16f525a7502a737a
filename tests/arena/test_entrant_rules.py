"""A user's arena entrant is held to the rules (docs/arena.md): ending the process, drawing from a
generator other than its own, swallowing the time limit and a path-unsafe id are each refused,
with the entrant named. Probes of docs/auditing.md's tally."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numba
import numpy as np
import pytest
import yaml

from conftest import BIN, CONFIG, SMOKE, arena_draw, plugin, smoke_config
from delayed_bandits import grid
from delayed_bandits.arena.entrants import from_policy
from delayed_bandits.errors import ConfigError, TimeLimitError
from delayed_bandits.simulate import time_limit

CHECKPOINTS = np.array([50, 100])


def _policy(choose: Callable[[int], int]) -> type:
    """A policy class of the conversions model whose ``choose`` is ``choose``."""

    class Policy:
        def __init__(self, problem, rng):
            pass

        def choose(self, t: int) -> int:
            return choose(t)

        def played(self, t: int, arm: int) -> None:
            pass

        def observe(self, s: int, arm: int, delay: int) -> None:
            pass

    return Policy


def _play(entrant, runner: str = "reference") -> None:
    st, draw = arena_draw(3, 100)
    getattr(entrant, runner)(st, draw, CHECKPOINTS, 0)


def _exits(t: int) -> int:
    sys.exit(0)


@pytest.mark.probe("entrants")
def test_a_policy_that_exits_is_an_error_naming_it(probe) -> None:
    with probe.refused(ConfigError, "entrant 'quits' ended the process (SystemExit, code 0)"):
        _play(from_policy("quits", "Quits", "x", _policy(_exits)))


def _seeded(t: int) -> int:
    """A constant seed: the same arms every run, so playing twice cannot see it."""
    np.random.seed(0)
    return int(np.random.randint(4))


@pytest.mark.probe("entrants")
@pytest.mark.parametrize(
    ("draw", "generator"),
    [
        (lambda t: int(np.random.randint(4)), "numpy.random's global functions"),
        (lambda t: random.randrange(4), "the random module"),
        (_seeded, "numpy.random's global functions"),
        (lambda t: np.random.seed(0) or 0, "numpy.random's global functions"),
        (lambda t: _numba_draw(4), "numba's np.random"),
    ],
    ids=["numpy.random", "random", "seeded-constant", "seeds-only", "numba"],
)
def test_a_policy_using_a_global_generator_is_refused(probe, draw, generator) -> None:
    """Deterministically (``entrants.sentinel``), a constant seed included."""
    with probe.refused(
        ConfigError, "entrant 'global' drew from or seeded a global generator: "
    ) as caught:
        _play(from_policy("global", "Global", "x", _policy(draw)))
    assert generator in str(caught[0])


@numba.njit
def _numba_draw(n: int) -> int:
    return np.random.randint(n)


@pytest.mark.probe("entrants")
@pytest.mark.parametrize("seeded", [False, True], ids=["draws", "seeded-constant"])
def test_a_kernel_using_a_global_generator_is_refused(probe, seeded) -> None:
    def kernel(problem, mu, uniforms, delays, seed) -> np.ndarray:
        if seeded:
            np.random.seed(0)
        return np.random.randint(problem.n_arms, size=uniforms.shape[0])

    entrant = from_policy("global", "Global", "x", _policy(lambda t: 0), kernel=kernel)
    with probe.refused(ConfigError, "entrant 'global' drew from or seeded a global generator"):
        _play(entrant, "kernel")


def test_the_callers_global_generators_are_restored() -> None:
    """The sentinel is planted for the run only: the caller's streams go on where they were."""
    entrant = from_policy("seeded", "Seeded", "x", _policy(lambda t: 0))
    np.random.seed(3)
    random.seed(3)
    expected = (np.random.random(), random.random())
    np.random.seed(3)
    random.seed(3)
    _play(entrant)
    assert (np.random.random(), random.random()) == expected


def test_a_policy_of_its_own_generator_is_run_once_more_and_kept() -> None:
    calls = []

    class Seeded:
        def __init__(self, problem, rng):
            self.rng, self.k = rng, problem.n_arms
            calls.append(1)

        def choose(self, t: int) -> int:
            return int(self.rng.integers(self.k))

        def played(self, t, arm):
            pass

        def observe(self, s, arm, delay):
            pass

    entrant = from_policy("seeded", "Seeded", "x", Seeded)
    st, draw = arena_draw(3, 100)
    first = entrant.reference(st, draw, CHECKPOINTS, 0)
    again = entrant.reference(st, draw, CHECKPOINTS, 0)
    assert np.array_equal(first[1], again[1])
    assert len(calls) == 3  # the first replication twice, then once: the check's cost


def _swallows(until: float) -> Callable[[int], int]:
    """A choose that sleeps in round 1 until ``until`` seconds from now, catching every error."""
    deadline = time.monotonic() + until

    def choose(t: int) -> int:
        while t == 1 and time.monotonic() < deadline:
            try:
                time.sleep(0.01)
            except BaseException:  # noqa: BLE001 - what a careless policy does
                pass
        return 0

    return choose


@pytest.mark.probe("entrants")
def test_a_policy_catching_exception_cannot_swallow_the_time_limit(probe) -> None:
    def choose(t: int) -> int:
        while True:
            try:
                time.sleep(0.01)
            except Exception:  # noqa: BLE001 - what a careless policy does
                pass

    start = time.monotonic()
    with probe.refused(TimeLimitError, "job j ran longer than its time limit of 1 s"):
        with time_limit(1, "job j"):
            _play(from_policy("careless", "Careless", "x", _policy(choose)))
    assert time.monotonic() - start < 5


@pytest.mark.probe("entrants")
def test_a_time_limit_swallowed_by_a_bare_except_is_raised_when_the_block_ends(probe) -> None:
    start = time.monotonic()
    with probe.refused(TimeLimitError, "job j ran longer than its time limit of 1 s"):
        with time_limit(1, "job j"):
            _play(from_policy("bare", "Bare", "x", _policy(_swallows(1.5))))
    assert time.monotonic() - start < 5


@pytest.mark.probe("entrants")
@pytest.mark.parametrize("bad", ["a/b", "..", "a b", "id\n", ""])
def test_an_entrant_id_is_a_setting_ids_characters(probe, bad: str) -> None:
    with probe.refused(ConfigError, f"algorithm id {bad!r} ('Bad'): an id is letters, digits"):
        from_policy(bad, "Bad", "x", _policy(lambda t: 0))


QUITS = """
    import sys

    from delayed_bandits.arena.entrants import from_policy


    class Quits:
        def __init__(self, problem, rng):
            pass

        def choose(self, t):
            sys.exit(0)

        def played(self, t, arm):
            pass

        def observe(self, s, arm, delay):
            pass


    ENTRANTS = [from_policy("quits", "Quits", "ends the process", Quits)]
"""


@pytest.mark.probe("entrants")
def test_simulate_fails_when_a_policy_exits(tmp_path: Path, probe) -> None:
    env = plugin(tmp_path / "plugins" / "quits_entrant", {"__init__.py": QUITS})
    overlay = tmp_path / "probe.yaml"
    overlay.write_text(
        yaml.safe_dump({"papers": {"arena": {"regret": {"algorithms": ["quits", "uniform"]}}}})
    )
    setting = next(iter(grid.settings(smoke_config()["papers"]["arena"]["regret"])))
    out = tmp_path / "out" / "rep0-0.parquet"
    args = [f"{BIN}/delayed-bandits", "simulate", "--config", str(CONFIG), str(SMOKE)]
    args += [str(overlay), "--paper", "arena", "--figure", "regret", "--setting", setting]
    args += ["--algorithm", "quits", "--reps", "0-0", "--out", str(out)]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert probe.cli(run.returncode, run.stderr) == "refused with a named error", run.stderr
    assert "entrant 'quits' ended the process" in run.stderr and not out.exists()
