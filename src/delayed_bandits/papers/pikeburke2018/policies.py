"""Pike-Burke, Agrawal, Szepesvári, Grünewälder (ICML 2018): readable references of ODAAF and
QPM-D, for auditing; runs use ``delayed_bandits.papers.pikeburke2018.kernels``.

Feedback (Section 2): the reward of the play at round l arrives at the end of round l + tau and is
added to the aggregate X_t of that round; ODAAF sees only X_t (anonymous), QPM-D sees (arm, reward)
pairs. Rewards due after T are never seen; the pseudo-regret counts every play.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np
from numba.extending import register_jitable

from delayed_bandits.references import first_argmax

VARIANTS = ("odaaf", "odaaf-b", "odaaf-v")


@dataclass(frozen=True)
class PhaseConstants:
    """Constants of n_m (eqs. 2, 6, 7). The paper defers their exact values to appendices we do
    not have; the defaults are a public reimplementation's closed forms (docs/decisions.md):
    n_m = (sqrt(a L) + sqrt(a L + b Delta_m L + delay term))^2 / Delta_m^2, L = log(T Delta_m^2),
    with delay term ``odaaf`` * Delta_m m E[tau] (eq. 2), ``bounded`` * Delta_m E[tau] (eq. 6) or
    ``variance`` * Delta_m (E[tau] + ``variance_weight`` V(tau)) (eq. 7).

    Eq. (7)'s pair is calibrated instead to Section 5's "ODAAF-V had only just eliminated the
    suboptimal arm at time T" under exponential delays (docs/decisions.md); the
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


def run_qpmd(
    mu: np.ndarray, uniforms: np.ndarray, delays: np.ndarray, coefficient: float = 2.0
) -> np.ndarray:
    """QPM-D (Joulani et al. 2013) with UCB1 (Auer et al. 2002) as base. Arrivals join their arm's
    FIFO queue (usable from the round after they arrive). Before each real play, while the base's
    recommended arm has a queued reward, the base consumes it and is asked again; the first
    recommended arm with an empty queue is played. The base's bonus is
    sqrt(coefficient log n / N), n the base's own clock: 2 is UCB1's."""
    horizon, n_arms = uniforms.shape
    queues: list[deque[float]] = [deque() for _ in range(n_arms)]
    due: dict[int, list[tuple[int, float]]] = {}
    counts, sums = [0] * n_arms, [0.0] * n_arms

    def recommend() -> int:
        for j in range(n_arms):
            if counts[j] == 0:
                return j
        n = sum(counts)
        return first_argmax(
            [
                sums[j] / counts[j] + math.sqrt(coefficient * math.log(n) / counts[j])
                for j in range(n_arms)
            ]
        )

    actions = []
    for t in range(1, horizon + 1):
        for arm, reward in due.pop(t, []):
            queues[arm].append(reward)
        while True:
            arm = recommend()
            if not queues[arm]:
                break
            counts[arm] += 1
            sums[arm] += queues[arm].popleft()
        actions.append(arm)
        reward = 1.0 if uniforms[t - 1, arm] < mu[arm] else 0.0
        d = int(delays[t - 1, arm])
        if t + d + 1 <= horizon:
            due.setdefault(t + d + 1, []).append((arm, reward))
    return np.array(actions, dtype=np.int64)
