"""Regret bounds of Thune, Cesa-Bianchi, Seldin (NeurIPS 2019), evaluated exactly on a delay
sequence d_1..d_T, and the delays of its Example 8.

Notation (Sections 3.2 and 4): S_beta = {t : d_t >= beta} are the rounds Skipper skips,
D = sum_t d_t the total delay and D_beta = sum_{t not in S_beta} d_t the delay DEW experiences.
Every bound uses the learning rate eta = 1 / (4 e beta) of Corollary 4 and Section 4, so a
threshold beta costs

    f_c(beta) = |S_beta| + 4 e beta ln K + (c + D_beta) / (4 e beta)

with c = e K T / 2 in Theorem 3 and eq. (4), and c = K T as printed in Theorem 6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

E = math.e


@dataclass(frozen=True)
class SkipStats:
    """|S_beta|, D and D_beta of a delay sequence at threshold beta."""

    skipped: int
    total_delay: float
    experienced_delay: float


@dataclass(frozen=True)
class Minimum:
    """The threshold minimising f_c over beta > 0, the minimum, and the sets at that beta."""

    beta: float
    value: float
    skipped: int
    experienced_delay: float


def skip_stats(delays: np.ndarray, beta: float) -> SkipStats:
    """|S_beta| = #{t : d_t >= beta}, D = sum_t d_t, D_beta = sum_{d_t < beta} d_t."""
    d = np.asarray(delays, dtype=np.float64)
    kept = d < beta
    return SkipStats(int(np.count_nonzero(~kept)), float(d.sum()), float(d[kept].sum()))


def skipper_objective(delays: np.ndarray, n_arms: int, beta: float, c: float) -> float:
    """f_c(beta) = |S_beta| + 4 e beta ln K + (c + D_beta) / (4 e beta)."""
    st = skip_stats(delays, beta)
    return (
        st.skipped + 4 * E * beta * math.log(n_arms) + (c + st.experienced_delay) / (4 * E * beta)
    )


def minimise(delays: np.ndarray, n_arms: int, c: float) -> Minimum:
    """Exact minimum of f_c over beta > 0.

    With u_1 < ... < u_n the distinct positive delays (u_0 = 0, u_{n+1} = inf), S_beta and D_beta
    are constant for beta in (u_j, u_{j+1}], where f_c = S_j + A beta + B_j / beta with
    A = 4 e ln K and B_j = (c + D_j) / (4 e), minimised at sqrt(B_j / A) clipped to the interval.
    When the clip hits the open left end u_j, the infimum is approached from above; we take the
    next float above u_j, which attains it to rounding. The first interval wins ties."""
    beta, value, skipped, kept = _scan(
        np.sort(np.asarray(delays, dtype=np.float64)), 4 * E * math.log(n_arms), c
    )
    return Minimum(beta, value, skipped, kept)


@njit(cache=True)
def _scan(d: np.ndarray, a: float, c: float) -> tuple[float, float, int, float]:
    """``minimise`` over the sorted delays ``d``, one interval (u_j, u_{j+1}] at a time."""
    horizon = d.shape[0]
    i = 0
    while i < horizon and d[i] <= 0.0:  # zero delays are never skipped (beta > 0)
        i += 1
    lo, kept = 0.0, 0.0  # u_j and D_j
    best = (math.inf, math.inf, 0, 0.0)
    while True:
        hi = d[i] if i < horizon else math.inf
        b = (c + kept) / (4 * E)
        beta = min(max(math.sqrt(b / a), lo), hi)
        if beta <= lo:
            beta = np.nextafter(lo, math.inf)
        value = (horizon - i) + a * beta + b / beta
        if value < best[1]:
            best = (beta, value, horizon - i, kept)
        if i == horizon:
            return best
        lo = d[i]
        while i < horizon and d[i] == lo:
            kept += lo
            i += 1


def oracle_beta(delays: np.ndarray, n_arms: int) -> Minimum:
    """The beta* minimising Theorem 3's bound (3) with eta = 1 / (4 e beta) on the realised delays:
    |S_beta| + 4 e beta ln K + (K T e / 2 + D_beta) / (4 e beta)."""
    return minimise(delays, n_arms, E * n_arms * len(delays) / 2)


def additive_term(n_arms: int) -> float:
    """10 e^2 K ln K + 5, the additive term of Theorem 6 and Corollary 7."""
    return 10 * E**2 * n_arms * math.log(n_arms) + 5


def theorem6_bound(delays: np.ndarray, n_arms: int) -> float:
    """Theorem 6 (Doubling's oracle bound):
    15 min_beta {|S_beta| + 4 e beta ln K + (K T + D_beta) / (4 e beta)} + 10 e^2 K ln K + 5."""
    return 15 * minimise(delays, n_arms, n_arms * len(delays)).value + additive_term(n_arms)


def corollary7_bound(delays: np.ndarray, n_arms: int) -> float:
    """Corollary 7 (Doubling's explicit bound), eq. (9):
    30 sqrt((K T e / 2 + (1 + 4e) D) ln K) + 10 e^2 K ln K + 5."""
    # 30 sqrt(...) is 15 times Corollary 4's 2 sqrt(...): the proof applies Corollary 4 to Theorem 6
    return 15 * corollary4_bound(n_arms, len(delays), float(np.sum(delays))) + additive_term(n_arms)


def corollary4_bound(n_arms: int, horizon: int, total_delay: float) -> float:
    """Corollary 4 (Skipper with known T and D): 2 sqrt((K T e / 2 + (1 + 4e) D) ln K)."""
    return 2 * math.sqrt((n_arms * horizon * E / 2 + (1 + 4 * E) * total_delay) * math.log(n_arms))


def theorem1_bound(
    n_arms: int, horizon: int, total_delay: float, d_max: float, eta: float
) -> float:
    """Theorem 1 (DEW with learning rate eta and delay bound d_max):
    max{ln K / eta, 4 e d_max ln K} + eta (K T e / 2 + D)."""
    log_k = math.log(n_arms)
    return max(log_k / eta, 4 * E * d_max * log_k) + eta * (n_arms * horizon * E / 2 + total_delay)


def theorem3_bound(delays: np.ndarray, n_arms: int, beta: float, eta: float) -> float:
    """Theorem 3 (Skipper(beta, DEW(eta, beta))):
    |S_beta| + max{ln K / eta, 4 e beta ln K} + eta (K T e / 2 + D_beta)."""
    st = skip_stats(delays, beta)
    log_k = math.log(n_arms)
    return (
        st.skipped
        + max(log_k / eta, 4 * E * beta * log_k)
        + eta * (n_arms * len(delays) * E / 2 + st.experienced_delay)
    )


def example8_threshold(horizon: int, n_arms: int) -> float:
    """sqrt(K T / ln K): Example 8 delays the rounds before it, and takes it as beta."""
    return math.sqrt(n_arms * horizon / math.log(n_arms))


def example8_delays(horizon: int, n_arms: int) -> np.ndarray:
    """Example 8: d_t = T - t for t < sqrt(K T / ln K), d_t = 0 afterwards (t = 1..T)."""
    t = np.arange(1, horizon + 1)
    return np.where(t < example8_threshold(horizon, n_arms), horizon - t, 0).astype(np.int64)
