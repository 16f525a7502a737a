"""Speed of every kernel against its plain-Python reference, on the same realisations."""

from __future__ import annotations

import time

import numpy as np

from delayed_bandits import algorithms, environment, seeds
from delayed_bandits.delays import Geometric

# Vernade et al. 2017, Figure 2's problem; the horizon is a flag because the references are
# O(T * m) per run.
BENCH_SETTINGS = {
    "vernade2017": algorithms.Vernade2017Setting(np.array([0.1, 0.05, 0.03]), Geometric(500.0),
                                                 1000, 0.0, 1.0),
}


def _steps_per_second(runner, st, envs, cp) -> float:
    start = time.perf_counter()
    for env in envs:
        runner(st, env, cp)
    elapsed = time.perf_counter() - start
    return len(envs) * envs[0].uniforms.shape[0] / elapsed


def run(horizon: int, kernel_reps: int, reference_reps: int) -> list[dict[str, float | str]]:
    """agent-steps per second (replications x rounds / s) of each kernel and reference."""
    cp = environment.checkpoint_grid(horizon, 10)
    rows = []
    for paper, algos in algorithms.REGISTRY.items():
        st = BENCH_SETTINGS[paper]
        envs = [environment.draw(seeds.replication_seeds(0, paper, "bench", "bench", r)[0],
                                 horizon, st.n_arms, st.delay) for r in range(kernel_reps)]
        for algo in algos.values():
            algo.kernel(st, envs[0], cp)  # compile or load numba's cache outside the timing
            kernel = _steps_per_second(algo.kernel, st, envs, cp)
            reference = _steps_per_second(algo.reference, st, envs[:reference_reps], cp)
            rows.append({"paper": paper, "algorithm": algo.id, "kernel": kernel,
                         "reference": reference, "speedup": kernel / reference})
    return rows
