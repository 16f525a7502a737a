"""Pike-Burke, Agrawal, Szepesvári, Grünewälder (ICML 2018): readable references of ODAAF and
QPM-D, for auditing; runs use ``delayed_bandits.papers.pikeburke2018.kernels``.

Feedback (Section 2): the reward of the play at round l arrives at the end of round l + tau and is
added to the aggregate X_t of that round; ODAAF sees only X_t (anonymous), QPM-D sees (arm, reward)
pairs. Rewards due after T are never seen; the pseudo-regret counts every play.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from numba.extending import register_jitable

from delayed_bandits.indices import klucb_index
from delayed_bandits.references import first_argmax, run_outcomes

VARIANTS = ("odaaf", "odaaf-b", "odaaf-v")


@dataclass(frozen=True)
class PhaseConstants:
    """Constants of n_m (eqs. 2, 6, 7). The paper defers their exact values to appendices we do
    not have; the defaults are a public reimplementation's closed forms
    (docs/decisions/pikeburke2018.md#phase-constants):
    n_m = (sqrt(a L) + sqrt(a L + b Delta_m L + delay term))^2 / Delta_m^2, L = log(T Delta_m^2),
    with delay term ``odaaf`` * Delta_m m E[tau] (eq. 2), ``bounded`` * Delta_m E[tau] (eq. 6) or
    ``variance`` * Delta_m (E[tau] + ``variance_weight`` V(tau)) (eq. 7).

    Eq. (7)'s pair is calibrated instead to Section 5's "ODAAF-V had only just eliminated the
    suboptimal arm at time T" under exponential delays
    (docs/decisions/pikeburke2018.md#eq7-calibration); the
    reimplementation's pair (4, 2) stays reachable as the config variant ``odaaf-v-reimpl``."""

    a: float = 2.0
    b: float = 8.0 / 3.0
    odaaf: float = 6.0
    bounded: float = 4.0
    variance: float = 1.5
    variance_weight: float = 1.0


@register_jitable
def _n_of(a: float, b: float, delta: float, log_term: float, delay_term: float) -> float:
    root = math.sqrt(a * log_term) + math.sqrt(a * log_term + b * delta * log_term + delay_term)
    return root * root / (delta * delta)


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def samples_required(
    m: int,
    horizon: int,
    variant: int,
    mean: float,
    var: float,
    bound: float,
    a: float,
    b: float,
    c_odaaf: float,
    c_bounded: float,
    c_variance: float,
    variance_weight: float,
) -> int:
    """N_m = ceil(n_m), the number of samples of each active arm by the end of phase m.

    ``variant``: 0 ODAAF (eq. 2), 1 ODAAF-B (eq. 6, then max(., m min(d, n_m^ODAAF / m))),
    2 ODAAF-V (eq. 7). L = log(T Delta_m^2) is floored at 0: late phases, where T Delta_m^2 < 1,
    never finish within T anyway. At least one sample per phase (n_m = 0 when L = 0 and
    E[tau] = 0); the 1e-9 keeps float error from rounding a whole n_m up."""
    delta = 0.5**m
    log_term = max(math.log(horizon * delta * delta), 0.0)
    n_odaaf = _n_of(a, b, delta, log_term, c_odaaf * delta * m * mean)
    if variant == 0:
        n = n_odaaf
    elif variant == 1:
        n = max(_n_of(a, b, delta, log_term, c_bounded * delta * mean), m * min(bound, n_odaaf / m))
    else:
        n = _n_of(a, b, delta, log_term, c_variance * delta * (mean + variance_weight * var))
    return max(1, int(math.ceil(n - 1e-9)))


def run_odaaf(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    required,
    bridge: bool,
    bridge_leader: bool,
) -> tuple[np.ndarray, list[tuple[int, int, int, int, int]]]:
    """Algorithm 1 (ODAAF). ``required(m)`` is N_m. Returns the arms played and, per completed
    phase, (m, round ending Step 1, round ending the bridge or -1, active arms after Step 2,
    bitmask of the arms eliminated in Step 2).

    Step 4's bridge arm: the empirical leader of A_{m+1} (``bridge_leader``) or the first active
    arm in the fixed order."""
    horizon, n_arms = uniforms.shape
    aggregate = [0.0] * (horizon + 1)  # X_t: rewards arriving at the end of round t
    actions: list[int] = []
    events = []

    def play(arm: int) -> None:
        t = len(actions) + 1
        actions.append(arm)
        d = int(delays[t - 1, arm])
        if uniforms[t - 1, arm] < mu[arm] and t + d <= horizon:
            aggregate[t + d] += 1.0

    active = list(range(n_arms))
    rounds: dict[int, list[int]] = {j: [] for j in active}  # T_j(m)
    tolerance, previous, m = 0.5, 0, 1
    while len(actions) < horizon:
        needed = max(required(m), previous + 1)  # every phase adds a sample, so time advances
        for j in active:  # Step 1, in the fixed order of arm indices
            while len(rounds[j]) < needed and len(actions) < horizon:
                play(j)
                rounds[j].append(len(actions))
        if len(actions) >= horizon and any(len(rounds[j]) < needed for j in active):
            break  # the phase did not finish within T
        step1_end = len(actions)
        means = {j: sum(aggregate[t] for t in rounds[j]) / len(rounds[j]) for j in active}
        best = max(means.values())
        survivors = [j for j in active if means[j] + tolerance >= best]  # Step 2
        eliminated = sum(1 << j for j in active if j not in survivors)
        active = survivors
        tolerance /= 2  # Step 3
        bridge_end = -1
        if bridge:  # Step 4: observations of these rounds are never used
            arm = first_argmax([means[j] for j in active]) if bridge_leader else 0
            arm = active[arm]
            for _ in range(needed - previous):
                if len(actions) >= horizon:
                    break
                play(arm)
            bridge_end = len(actions)
        events.append((m, step1_end, bridge_end, len(active), eliminated))
        previous, m = needed, m + 1
    return np.array(actions, dtype=np.int64), events


@dataclass
class UCBBase:
    """UCB on the base's own clock n (the rewards it has consumed): each arm once, lowest index
    first, then the argmax of S_j / N_j + sqrt(coefficient log n / N_j); coefficient 2 is UCB1's
    (Auer et al. 2002), 1/2 the Hoeffding bonus at f(n) = log n."""

    n_arms: int
    coefficient: float = 2.0

    def __post_init__(self) -> None:
        self.counts, self.sums = [0] * self.n_arms, [0.0] * self.n_arms

    def choose(self) -> int:
        for j in range(self.n_arms):
            if self.counts[j] == 0:
                return j
        n = sum(self.counts)
        return first_argmax(
            [
                self.sums[j] / self.counts[j]
                + math.sqrt(self.coefficient * math.log(n) / self.counts[j])
                for j in range(self.n_arms)
            ]
        )

    def update(self, arm: int, reward: float) -> None:
        self.counts[arm] += 1
        self.sums[arm] += reward


@dataclass
class KLUCBBase(UCBBase):
    """Bernoulli KL-UCB (Garivier & Cappé 2011) at f(n) = log n on the base's clock n: each arm
    once, then the argmax of max{q : N_j kl(S_j / N_j, q) <= log n}."""

    def choose(self) -> int:
        for j in range(self.n_arms):
            if self.counts[j] == 0:
                return j
        f = math.log(sum(self.counts))
        return first_argmax(
            [
                klucb_index(self.sums[j] / self.counts[j], self.counts[j], f)
                for j in range(self.n_arms)
            ]
        )


@dataclass
class TSBase(UCBBase):
    """Thompson sampling with a Beta(1, 1) prior (Chapelle & Li 2011): one posterior draw of every
    arm, k = 0..K-1 in order, per base step, Beta(1 + S_j, 1 + N_j - S_j)."""

    rng: np.random.Generator | None = None

    def choose(self) -> int:
        return first_argmax(
            [
                self.rng.beta(1.0 + self.sums[j], 1.0 + self.counts[j] - self.sums[j])
                for j in range(self.n_arms)
            ]
        )


@dataclass
class QPMD:
    """QPM-D (Joulani et al. 2013, Algorithm 1) over any base learner: ``base`` has ``choose()``
    (its next arm) and ``update(arm, reward)``, and learns as if without delays. Every outcome,
    0 or 1, joins its arm's FIFO queue when it arrives (``observe_outcome``: a policy of the
    labelled-outcome model, ``references.run_outcomes``). Before each real play, while the base's
    request has a queued reward, the base consumes it and makes its next request; the first
    request whose queue is empty is played, and stands until a reward of that arm arrives. A base
    step is one request, so a randomised base draws once per request."""

    base: UCBBase
    queues: list[deque[float]] = field(init=False)
    request: int | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.queues = [deque() for _ in range(self.base.n_arms)]

    def choose(self, t: int) -> int:
        if self.request is None:
            self.request = self.base.choose()
        while self.queues[self.request]:
            self.base.update(self.request, self.queues[self.request].popleft())
            self.request = self.base.choose()
        return self.request

    def played(self, t: int, arm: int) -> None:
        pass

    def observe_outcome(self, s: int, arm: int, reward: float, delay: int) -> None:
        self.queues[arm].append(reward)


QPMD_BASES = ("ucb", "klucb", "ts")


def qpmd_base(name: str, n_arms: int, coefficient: float, rng: np.random.Generator) -> UCBBase:
    """QPM-D's base by name (``QPMD_BASES``); ``coefficient`` is UCB's, the others take none."""
    if name == "ucb":
        return UCBBase(n_arms, coefficient)
    if name == "klucb":
        return KLUCBBase(n_arms)
    if name == "ts":
        return TSBase(n_arms, rng=rng)
    raise ValueError(f"QPM-D base {name!r} is not one of {', '.join(QPMD_BASES)}")


def run_qpmd(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    coefficient: float = 2.0,
    base: str = "ucb",
    seed: int | None = None,
) -> np.ndarray:
    """QPM-D over the base ``base`` (UCB1 by default, Auer et al. 2002): each reward, 0 or 1, is
    usable from the round after it arrives, s + D + 1. TS draws from ``default_rng(seed)``."""
    policy = QPMD(qpmd_base(base, uniforms.shape[1], coefficient, np.random.default_rng(seed)))
    return run_outcomes(policy, mu, uniforms, delays)
