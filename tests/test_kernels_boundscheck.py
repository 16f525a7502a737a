"""Every kernel played once with numba's bounds checks on, freshly compiled (not numba's cache):
an index past an array's end is then an ``IndexError`` instead of silent corruption (``make
bench``'s crash). The kernels compile in one process, at a tiny horizon, since compiling
them dominates; in the end-to-end tier (marked slow), so that ``make test`` keeps its budget."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

HORIZON = 60

PLAY = f"""
import numpy as np
from numba.core import config
from delayed_bandits import algorithms, environment, seeds
from delayed_bandits import papers as registry
from delayed_bandits.arena import kernels

assert config.BOUNDSCHECK, "numba's bounds checks are off"
cp = environment.checkpoint_grid({HORIZON}, 4)
played = set()
for paper in registry.ids():
    plugin = algorithms.experiment(paper)
    for reading, st in {{"": plugin.BENCH, **getattr(plugin, "BENCH_READINGS", {{}})}}.items():
        env = plugin.draw_environment(
            seeds.replication_seeds(0, paper, "bench", "bench", 0)[0], {HORIZON}, st
        )
        for algo in plugin.ALGORITHMS:
            if algo.applies(st) or algo.precondition(st):
                continue
            for seed in (0, 1):
                algo.kernel(st, env, cp, seed)
            played.add((paper, algo.id))
missing = [
    (p, a.id) for p in registry.ids() for a in algorithms.experiment(p).ALGORITHMS
    if (p, a.id) not in played
]
assert not missing, f"never played: {{missing}}"
# the guard's reason: the compiled body, called past its own checks, now fails loudly
rng = np.random.default_rng(0)
try:
    kernels.km_bootstrap(
        np.full(3, 0.9), rng.random((40, 3)), np.full((40, 3), 5, dtype=np.int64), 2,
        kernels.REFIT_SHARE, kernels.KM_EM_STEPS, kernels.KM_EM_TOLERANCE,
        np.random.default_rng(0), np.zeros(40, dtype=np.int64),
    )
except IndexError:
    print("bounds checked", len(played))
"""


@pytest.mark.slow
def test_every_kernel_runs_within_its_arrays_with_bounds_checks_on(tmp_path) -> None:
    start = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-c", PLAY],
        env={**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("bounds checked"), run.stdout + run.stderr[-2000:]
    print(f"{run.stdout.strip()} kernels in {time.monotonic() - start:.0f} s")
