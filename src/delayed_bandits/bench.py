"""Speed of every kernel against its plain-Python reference, on the same realisations; and, for
the arena, each kernel's time against uniform play's and against its base learner's floor."""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np
from numba import njit

from delayed_bandits import algorithms, environment, seeds
from delayed_bandits import papers as registry
from delayed_bandits.arena import experiment as arena
from delayed_bandits.indices import klucb_index, thompson_arm

UNIFORM = "uniform"  # the arena's uniform play, the row every arena kernel is measured against
SLOWER_THAN_FLOOR = 2.0  # a kernel this many times slower than its floor is flagged


@njit(cache=True)
def _thompson_floor(n_arms: int, horizon: int, rng: np.random.Generator) -> int:
    """A round's K Beta draws (``indices.thompson_arm``) and nothing else: the floor the
    Thompson sampling kernels state (docs/speed.md, "Kernels")."""
    successes = np.zeros(n_arms)
    trials = np.zeros(n_arms)
    arm = 0
    for _ in range(horizon):
        arm = thompson_arm(successes, trials, rng)
        trials[arm] += 1.0
        successes[arm] += rng.random() < 0.4
    return arm


@njit(cache=True)
def _klucb_floor(n_arms: int, horizon: int) -> float:
    """Every arm's KL-UCB index searched in full each round (``indices.klucb_index`` at
    f = log t, each arm played 1/K of the rounds): the O(K) a round the KL-UCB kernels state as
    their floor. A kernel that prunes the searches that cannot win may run below it."""
    total = 0.0
    for t in range(1, horizon + 1):
        f = math.log(t)
        for k in range(n_arms):
            total += klucb_index(0.4 + 0.005 * k, 1.0 + t / n_arms, f)
    return total


def _floors(horizon: int, n_arms: int, reps: int) -> dict[Any, float]:
    """Agent-steps per second of each base learner's floor, on ``n_arms`` arms, ``reps`` runs
    of ``horizon``."""
    _thompson_floor(n_arms, 2, np.random.default_rng(0))  # compile or load outside the timing
    _klucb_floor(n_arms, 2)
    return {
        arena.TS: _steps_per_second(
            lambda r: _thompson_floor(n_arms, horizon, np.random.default_rng(r)), reps, horizon
        ),
        arena.KLUCB: _steps_per_second(lambda r: _klucb_floor(n_arms, horizon), reps, horizon),
    }


def _steps_per_second(run_once: Callable[[int], Any], reps: int, horizon: int) -> float:
    """Agent-steps per second of ``reps`` runs of ``horizon`` rounds, ``run_once(r)`` the r-th."""
    start = time.perf_counter()
    for r in range(reps):
        run_once(r)
    return reps * horizon / (time.perf_counter() - start)


def run(
    horizon: int, kernel_reps: int, reference_reps: int, papers: tuple[str, ...] | None = None
) -> list[dict[str, float | str]]:
    """agent-steps per second (replications x rounds / s) of each kernel and reference, on each
    paper's ``BENCH`` setting and its named ``BENCH_READINGS`` (settings that take a different
    path through the kernels), where the algorithm applies (``Algorithm.applies``); the horizon is a flag because some references are O(T^2). Every
    registered paper unless ``papers`` names some.

    Where the paper has uniform play (the arena), each row has ``vs_uniform``: how many times
    slower than uniform play its kernel is, on the same realisations. An arena entrant on a
    base learner with a floor (Thompson sampling's K Beta draws a round, KL-UCB's index
    search) has ``floor`` and ``vs_floor``, the same for that floor, measured in this run."""
    cp = environment.checkpoint_grid(horizon, 10)
    rows: list[dict[str, float | str]] = []
    for paper in papers or registry.ids():
        plugin = algorithms.experiment(paper)
        for reading, st in {"": plugin.BENCH, **getattr(plugin, "BENCH_READINGS", {})}.items():
            envs = [
                plugin.draw_environment(
                    seeds.replication_seeds(0, paper, "bench", "bench", r)[0], horizon, st
                )
                for r in range(kernel_reps)
            ]
            floored = any(
                getattr(a, "base", None) in (arena.TS, arena.KLUCB) for a in plugin.ALGORITHMS
            )
            floors = _floors(horizon, st.n_arms, kernel_reps) if floored else {}
            measured = []
            for algo in plugin.ALGORITHMS:
                if algo.applies(st) or algo.precondition(st):
                    continue  # its kernel refuses what its model does not cover (NotApplicable)
                algo.kernel(st, envs[0], cp, 0)  # compile or load numba's cache outside the timing
                kernel = _steps_per_second(
                    lambda r: algo.kernel(st, envs[r], cp, r), len(envs), horizon
                )
                reference = _steps_per_second(
                    lambda r: algo.reference(st, envs[r], cp, r),
                    min(reference_reps, len(envs)),
                    horizon,
                )
                name = f"{algo.id} ({reading})" if reading else algo.id
                row: dict[str, float | str] = {
                    "paper": paper,
                    "algorithm": name,
                    "kernel": kernel,
                    "reference": reference,
                    "speedup": kernel / reference,
                }
                base = getattr(algo, "base", None)
                if base in floors:
                    row |= {"floor": base.name, "vs_floor": floors[base] / kernel}
                measured.append((algo.id, row))
            uniform = dict(measured).get(UNIFORM)
            for _, row in measured:
                if uniform is not None:
                    row["vs_uniform"] = float(uniform["kernel"]) / float(row["kernel"])
                rows.append(row)
    return rows
