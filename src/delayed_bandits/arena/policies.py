"""The arena's baselines that ignore delays: readable references.

Three classic policies run as if every conversion arrived at once. Each estimates arm k by
S_k / N_k, with S_k the conversions that have arrived so far and N_k all the pulls of k, so a
conversion still in flight counts as a failure (nothing signals a non-conversion, and these
policies do not try to tell a late conversion from none). They are what a practitioner gets by
plugging the delayed stream into an off-the-shelf bandit:

- ``"ucb"``: UCB with the index S/N + sqrt(f(t) / (2 N)) (Auer, Cesa-Bianchi & Fischer 2002).
  With f(t) = 4 log t this is exactly UCB1's bonus sqrt(2 log t / N); with f(t) = log t it is the
  Hoeffding-tight bonus sqrt(log t / (2 N)).
- ``"klucb"``: Bernoulli KL-UCB (Garivier & Cappé 2011), the index
  max{q in [S/N, 1] : N kl(S/N, q) <= f(t)}.
- ``"ts"``: Thompson sampling with a Beta(1, 1) prior, the standard choice in display advertising
  (Chapelle & Li 2011): each round theta_k ~ Beta(1 + S_k, 1 + N_k - S_k), play the argmax.

The exploration function is f(t) = coefficient * log t + loglog * max(log log t, 0): the max
keeps f defined (and >= 0) for t < e, where log log t is negative or undefined. UCB and KL-UCB
first play each arm once (rounds 1..K play arm t - 1); TS has no initial round robin. Ties go to
the lowest index.

Timing convention (``docs/decisions/cross-cutting.md#arrival``): a pull of arm k at round s
converts iff uniforms[s-1, k] < mu[k], and its conversion is usable from the start of round
s + D + 1, D = delays[s-1, k], if that round is <= T. Censoring, when a setting has it, is
applied to the realisation before these policies see it, so they take no window.

Runs use the compiled kernel of ``delayed_bandits.arena.kernels``; the tests hold it to the
actions of these references, step for step. The index functions are shared
(``delayed_bandits.indices``): plain Python here, compiled into the kernels (``register_jitable``),
the same arithmetic in both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from delayed_bandits.indices import INDICES, exploration, klucb_index, ucb_index
from delayed_bandits.references import first_argmax, run


@dataclass
class IgnoresDelays:
    """UCB, KL-UCB or Thompson sampling on S_k / N_k, conversions in flight counted as failures.

    ``index`` is ``"ucb"``, ``"klucb"`` or ``"ts"``; ``coefficient`` and ``loglog`` set the
    exploration function f(t) of UCB and KL-UCB (TS ignores them); ``rng`` draws TS's samples."""

    n_arms: int
    index: str
    coefficient: float = 1.0
    loglog: float = 0.0
    rng: np.random.Generator | None = None
    actions: list[int] = field(default_factory=list)
    pulls: list[int] = field(init=False)
    successes: list[int] = field(init=False)

    def __post_init__(self) -> None:
        if self.index not in INDICES:
            raise ValueError(f"index {self.index!r} is not one of {INDICES}")
        if self.index == "ts" and self.rng is None:
            raise ValueError("Thompson sampling needs a numpy.random.Generator (rng)")
        if self.coefficient < 0.0 or self.loglog < 0.0:
            raise ValueError("the exploration coefficients must be >= 0")
        self.pulls = [0] * self.n_arms
        self.successes = [0] * self.n_arms

    def choose(self, t: int) -> int:
        if self.index == "ts":
            # Beta(1, 1) prior: posterior Beta(1 + S, 1 + N - S), arms drawn in order 0..K-1
            samples = [
                self.rng.beta(1.0 + self.successes[k], 1.0 + self.pulls[k] - self.successes[k])
                for k in range(self.n_arms)
            ]
            return first_argmax(samples)
        if t <= self.n_arms:
            return t - 1
        f = exploration(t, self.coefficient, self.loglog)
        indices = []
        for k in range(self.n_arms):
            p = self.successes[k] / self.pulls[k]
            indices.append(
                klucb_index(p, self.pulls[k], f)
                if self.index == "klucb"
                else ucb_index(p, self.pulls[k], f)
            )
        return first_argmax(indices)

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)
        self.pulls[arm] += 1

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.successes[arm] += 1


def run_ignores_delays(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    index: str,
    coefficient: float = 1.0,
    loglog: float = 0.0,
    seed: int | np.random.SeedSequence | None = None,
) -> np.ndarray:
    """Play one replication with the reference policy; returns the arms played (0-based, int64).

    TS draws from ``np.random.default_rng(seed)``, as the kernel's wrapper does."""
    policy = IgnoresDelays(
        uniforms.shape[1], index, coefficient, loglog, np.random.default_rng(seed)
    )
    return run(policy, mu, uniforms, delays, None)
