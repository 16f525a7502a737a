"""The base learners' indices on a Bernoulli mean, shared by every policy that crosses a way of
handling delays with a base learner (the arena's baselines, QPM-D's bases): plain Python in the
references, compiled into the kernels (``register_jitable``), the same arithmetic in both. Thompson
sampling's argmax (``thompson_arm``) is compiled into every kernel that samples a Beta posterior.

The bases are named ``INDICES`` and coded ``INDEX_CODES`` in the kernels: UCB with the Hoeffding
bonus (Auer, Cesa-Bianchi & Fischer 2002), Bernoulli KL-UCB (Garivier & Cappé 2011), and
Thompson sampling with a Beta(1, 1) prior (Chapelle & Li 2011).
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import register_jitable

INDICES = ("ucb", "klucb", "ts")
UCB, KLUCB, TS = 0, 1, 2
INDEX_CODES = {"ucb": UCB, "klucb": KLUCB, "ts": TS}
"""The codes of ``INDICES`` in the kernels."""
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


@register_jitable  # compiled into each kernel that samples, like the indices above
def thompson_arm(
    successes: np.ndarray, trials: np.ndarray, rng: np.random.Generator, clip: bool = False
) -> int:
    """Thompson sampling for the Bernoulli bandit (Chapelle & Li 2011, Algorithm 2) with a
    Beta(1, 1) prior: theta_k ~ Beta(1 + S_k, 1 + N_k - S_k) from ``rng`` for k = 0..K-1 in
    order, one draw each, and the first arm of the largest draw.

    ``clip`` takes 1 + max(N_k - S_k, 0) as the second parameter instead, for an N_k that weighs
    pulls by the delay CDF and may fall below S_k (Vernade et al. 2017's N~_k). Each form is
    the expression its reference writes, so that the draws match to the last bit."""
    arm = 0
    best = -math.inf
    for k in range(len(successes)):
        if clip:
            b = 1.0 + max(trials[k] - successes[k], 0.0)
        else:
            b = 1.0 + trials[k] - successes[k]
        sample = rng.beta(1.0 + successes[k], b)
        if sample > best:
            best = sample
            arm = k
    return arm
