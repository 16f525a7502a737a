"""Every registered algorithm, of every registered paper (a new one included, with no test of its
own), takes its reference's actions, step for step, on its paper's ``BENCH`` setting and each of
its ``BENCH_READINGS`` (the settings that take other paths through the kernels), with the same
regret bit for bit (``kernel_check.same_run``). The papers' own test files add the settings
their kernels need beyond these."""

from __future__ import annotations

import pytest

from delayed_bandits import algorithms, environment, papers, seeds
from kernel_check import same_run

HORIZON = 400  # some references are O(T^2)
REPLICATIONS = 2
CHECKPOINTS = environment.checkpoint_grid(HORIZON, 10)


def _cases():
    for paper in papers.ids():
        plugin = algorithms.experiment(paper)
        readings = {"bench": plugin.BENCH, **getattr(plugin, "BENCH_READINGS", {})}
        for reading in readings:
            for alg in plugin.ALGORITHMS:
                yield pytest.param(paper, reading, alg.id, id=f"{paper}-{reading}-{alg.id}")


@pytest.mark.parametrize("paper, reading, algorithm", list(_cases()))
def test_kernel_takes_its_reference_actions(paper: str, reading: str, algorithm: str) -> None:
    plugin = algorithms.experiment(paper)
    setting = {"bench": plugin.BENCH, **getattr(plugin, "BENCH_READINGS", {})}[reading]
    alg = algorithms.get(paper, algorithm)
    if alg.precondition(setting) or alg.applies(setting):
        pytest.skip(f"{algorithm} does not run on {paper}'s {reading} setting")
    for r in range(REPLICATIONS):
        env_seed, policy_seed = seeds.replication_seeds(0, paper, "kernel-check", reading, r)
        env = plugin.draw_environment(env_seed, HORIZON, setting)
        same_run(alg, setting, env, CHECKPOINTS, seeds.as_int(policy_seed))
