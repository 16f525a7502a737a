"""Speed of every kernel against its plain-Python reference, on the same realisations."""

from __future__ import annotations

import time

from delayed_bandits import algorithms, environment, seeds
from delayed_bandits import papers as registry


def _steps_per_second(runner, st, envs, cp, horizon: int) -> float:
    start = time.perf_counter()
    for r, env in enumerate(envs):
        runner(st, env, cp, r)
    elapsed = time.perf_counter() - start
    return len(envs) * horizon / elapsed


def run(
    horizon: int, kernel_reps: int, reference_reps: int, papers: tuple[str, ...] | None = None
) -> list[dict[str, float | str]]:
    """agent-steps per second (replications x rounds / s) of each kernel and reference, on each
    paper's ``BENCH`` setting and its named ``BENCH_READINGS`` (settings that take a different
    path through the kernels); the horizon is a flag because some references are O(T^2). Every
    registered paper unless ``papers`` names some."""
    cp = environment.checkpoint_grid(horizon, 10)
    rows = []
    for paper in papers or registry.ids():
        plugin = algorithms.experiment(paper)
        for reading, st in {"": plugin.BENCH, **getattr(plugin, "BENCH_READINGS", {})}.items():
            envs = [
                plugin.draw_environment(
                    seeds.replication_seeds(0, paper, "bench", "bench", r)[0], horizon, st
                )
                for r in range(kernel_reps)
            ]
            for algo in plugin.ALGORITHMS:
                algo.kernel(st, envs[0], cp, 0)  # compile or load numba's cache outside the timing
                kernel = _steps_per_second(algo.kernel, st, envs, cp, horizon)
                reference = _steps_per_second(
                    algo.reference, st, envs[:reference_reps], cp, horizon
                )
                name = f"{algo.id} ({reading})" if reading else algo.id
                rows.append(
                    {
                        "paper": paper,
                        "algorithm": name,
                        "kernel": kernel,
                        "reference": reference,
                        "speedup": kernel / reference,
                    }
                )
    return rows
