"""One realisation of a stochastic delayed Bernoulli bandit (Vernade et al. 2017, Section 2.1).

Everything the environment draws for a replication is fixed before any algorithm runs:
``uniforms[t, k]`` decides the conversion C of a pull of arm k at round t + 1
(C = 1 iff uniforms < theta_k) and ``delays[t, k]`` its delay. Every algorithm of a figure sees the
same table, so comparisons are paired (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from delayed_bandits.delays import DelayDistribution, PerArm, sample_table


@dataclass(frozen=True)
class Realisation:
    """The environment's draws for one replication; rows are rounds 1..T."""

    uniforms: np.ndarray  # float64, (T, K)
    delays: np.ndarray  # int64, (T, K)


def draw(
    seed: np.random.SeedSequence | np.random.Generator,
    horizon: int,
    n_arms: int,
    delay: DelayDistribution | PerArm,
) -> Realisation:
    """Draw the reward uniforms, then the delays, from one generator seeded by ``seed`` (or from
    ``seed`` itself when it is a generator already, which goes on from where it is)."""
    rng = np.random.default_rng(seed)
    uniforms = rng.random((horizon, n_arms))
    delays = sample_table(delay, rng, horizon, n_arms)
    return Realisation(np.ascontiguousarray(uniforms), np.ascontiguousarray(delays))


def checkpoint_grid(horizon: int, n_points: int) -> np.ndarray:
    """Rounds at which regret is recorded: ``n_points`` evenly spaced rounds ending at T."""
    n = min(n_points, horizon)
    return np.unique(np.round(np.linspace(horizon / n, horizon, n)).astype(np.int64))
