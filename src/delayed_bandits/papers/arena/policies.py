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

Timing convention (``docs/decisions.md``): a pull of arm k at round s converts iff
uniforms[s-1, k] < mu[k], and its conversion is usable from the start of round s + D + 1,
D = delays[s-1, k], if that round is <= T. Censoring, when a setting has it, is applied to the
realisation before these policies see it, so they take no window.

Runs use the compiled kernel of ``delayed_bandits.papers.arena.kernels``; the tests hold it to the
actions of these references, step for step. The index functions below are shared: plain Python
here, compiled into the kernel (``register_jitable``), the same arithmetic in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba.extending import register_jitable

from delayed_bandits.references import first_argmax, run

INDICES = ("ucb", "klucb", "ts")
KLUCB_TOLERANCE = 1e-6
"""KL-UCB's Newton iteration stops after a step smaller than this."""


@register_jitable  # plain Python here; compiled into the kernel, same arithmetic
def exploration(t: int, coefficient: float, loglog: float) -> float:
    """f(t) = coefficient * log t + loglog * max(log log t, 0); log log t > 0 iff log t > 1."""
    log_t = math.log(t)
    return coefficient * log_t + loglog * (math.log(log_t) if log_t > 1.0 else 0.0)


@register_jitable  # plain Python here; compiled into the kernel, same arithmetic
def ucb_index(p: float, n: float, f: float) -> float:
    """p + sqrt(f / (2 N)): with f = 4 log t, UCB1's p + sqrt(2 log t / N) (Auer et al. 2002)."""
    return p + math.sqrt(f / (2.0 * n))


@register_jitable  # plain Python here; compiled into the kernel, same arithmetic
def bernoulli_kl(p: float, q: float) -> float:
    """kl(p, q) = p log(p / q) + (1 - p) log((1 - p) / (1 - q)), with 0 log 0 = 0."""
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@register_jitable  # plain Python here; compiled into the kernel, same arithmetic
def klucb_start(p: float, n: float, f: float) -> tuple[float, bool]:
    """Where ``klucb_index``'s Newton search starts: (q, True) when the index is already known to
    be q (p = 1, f <= 0, a bracket narrower than the tolerance), else (q, False), q the start.

    For p <= q, kl(p, q) = int_p^q (x - p) / (x (1 - x)) dx is at least 2 (q - p)^2 (Pinsker:
    x (1 - x) <= 1/4) and at least (q - p)^2 / (2 q) (x <= q), so with a = f / N the root is at
    most p + sqrt(a / 2) and at most p + a + sqrt(a^2 + 2 a p). When both are >= 1 (few pulls),
    bisection on [p, 1] first halves the bracket until its upper end is below 1."""
    if p >= 1.0:
        return 1.0, True
    if f <= 0.0:
        return p, True
    a = f / n
    lo = p
    hi = min(1.0, p + math.sqrt(0.5 * a), p + a + math.sqrt(a * a + 2.0 * a * p))
    while hi >= 1.0:  # bisection until the bracket's upper end is below 1
        if hi - lo <= KLUCB_TOLERANCE:
            return lo, True
        mid = 0.5 * (lo + hi)
        if n * bernoulli_kl(p, mid) > f:
            hi = mid
        else:
            lo = mid
    return hi, hi - p <= KLUCB_TOLERANCE


@register_jitable  # plain Python here; compiled into the kernel, same arithmetic
def klucb_step(p: float, n: float, f: float, q: float) -> float:
    """Newton's step g(q) / g'(q) for g(q) = N kl(p, q) - f, g'(q) = N (q - p) / (q (1 - q))."""
    return (n * bernoulli_kl(p, q) - f) * q * (1.0 - q) / (n * (q - p))


@register_jitable  # plain Python here; compiled into the kernel, same arithmetic
def klucb_index(p: float, n: float, f: float, bar: float = -math.inf) -> float:
    """U = max{q in [p, 1] : N kl(p, q) <= f} (Garivier & Cappé 2011), by Newton's method.

    g(q) = N kl(p, q) - f is convex and increasing on [p, 1), negative at p (f > 0) and infinite
    at 1 (p < 1), so it has one root, and Newton's method started above it (``klucb_start``)
    decreases monotonically to it. It stops after a step below ``KLUCB_TOLERANCE`` (the error
    left is then of order the square of that step) and returns from above: N kl(p, U) >= f up
    to rounding. p = 1 gives 1; p = 0 needs no special case (kl(0, q) = -log(1 - q)); f <= 0
    gives p.

    ``bar`` is for the kernel's pruning: the iterates only decrease and the result is at most the
    current one, so the search may stop as soon as it is below ``bar`` and return it (< bar): an
    arm whose index is below another arm's cannot be played, so the actions do not change. The
    reference never passes it."""
    q, done = klucb_start(p, n, f)
    if done:
        return q
    while True:
        if q < bar:
            return q
        step = klucb_step(p, n, f, q)
        if step <= 0.0:  # at the root, up to rounding
            return q
        if step < KLUCB_TOLERANCE:
            return q - step
        q -= step


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
