"""Vernade, Cappé, Perchet (UAI 2017): readable references of the delayed-conversion policies.

Written straight from the paper, for auditing; runs use the compiled kernels of
``delayed_bandits.papers.vernade2017.kernels`` and the tests hold both to the same actions.

Timing convention (``docs/decisions/vernade2017.md#arrival``): Section 2 has the conversion of
the pull at round s observed "at time s + D", without saying whether before or after A_{s+D} is
chosen. ``ARRIVALS`` names both readings by their lag L: the conversion is usable from round
s + max(D + L, 1) (``usable``); L = 1 ("next-round", the default) or L = 0 ("same-round"; a D = 0
conversion still waits for the next round). With censoring window m it is seen only if D <= m. So,
when choosing at round t, the pull at round s < t has been seen with probability
tau(min(t - L - s, m)), and the delay-corrected count of Section 5.1 is

    N~_k(t) = sum_{s <= t-L-m} 1{A_s = k} tau_m + sum_{s = t-L-m+1}^{t-1} 1{A_s = k} tau_{t-L-s}

(L = 0 is Section 5.1's formula as printed; L = 1 shifts its arguments by the round).

For a geometric law, tau(d) = 1 - q^(d+1) (Section 7), the sum is carried from round to round by
the recursion (6) of Section 5.1 instead of added up: the window's part is
n_k - q^(1-L) O_k(t), n_k the pulls of the last m rounds and O_k(t) = sum of q^(t-s) over them,
and O_k moves by ``geometric_step`` each round and by ``leave_window`` when a pull turns old
(docs/decisions/vernade2017.md#recursion; without a window, Remark 5, no pull ever leaves).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba.extending import register_jitable

from delayed_bandits.references import first_argmax

KLUCB_TOLERANCE = 1e-6

NEXT_ROUND, SAME_ROUND = "next-round", "same-round"
ARRIVALS = {NEXT_ROUND: 1, SAME_ROUND: 0}
"""The arrival conventions (config key ``arrival``) and their lag L (module docstring)."""


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def usable(s: int, delay: int, lag: int) -> int:
    """The round from which the conversion of the pull at round s, delayed by ``delay``, is
    usable under the arrival convention of lag ``lag`` (``ARRIVALS``): s + max(D + L, 1)."""
    return s + max(delay + lag, 1)


def beta(t: int, epsilon: float) -> float:
    """Exploration function beta_eps(t) = (1 + eps) log t (Section 6)."""
    return (1.0 + epsilon) * math.log(t)


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def ucb_index(theta_hat: float, n: float, n_tilde: float, b: float) -> float:
    """U^UCB_k(t) = theta_hat + sqrt(N / N~) sqrt(beta / (2 N~)) (Section 5.2)."""
    if n_tilde <= 0.0:
        return math.inf
    return theta_hat + math.sqrt(n / n_tilde) * math.sqrt(b / (2.0 * n_tilde))


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def poisson_kl(p: float, q: float) -> float:
    """d_Pois(p, q) = p log(p / q) + q - p (Lemma 7), with 0 log 0 = 0."""
    return (p * math.log(p / q) if p > 0.0 else 0.0) + q - p


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def klucb_index(theta_hat: float, n_tilde: float, b: float) -> float:
    """U^KL_k(t) = max{q in [theta_hat, 1] : N~ d_Pois(theta_hat, q) <= beta} (Section 5.3).

    f(q) = N~ d_Pois(theta_hat, q) - beta is convex and increasing on [theta_hat, 1], so Newton's
    method started at q = 1 decreases monotonically to the root; it stops when a step is below
    ``KLUCB_TOLERANCE``. An estimate already >= 1 is its own index."""
    if n_tilde <= 0.0:
        return math.inf
    if theta_hat >= 1.0:
        return theta_hat
    if n_tilde * poisson_kl(theta_hat, 1.0) <= b:
        return 1.0
    q = 1.0
    while True:
        step = klucb_step(theta_hat, n_tilde, b, q)
        q -= step
        if step < KLUCB_TOLERANCE:
            return q


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def klucb_step(theta_hat: float, n_tilde: float, b: float, q: float) -> float:
    """``klucb_index``'s Newton step at q: f(q) / f'(q), f(q) = N~ d_Pois(theta_hat, q) - beta."""
    return (n_tilde * poisson_kl(theta_hat, q) - b) / (n_tilde * (1.0 - theta_hat / q))


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def geometric_step(o: float, pulled: bool, q: float) -> float:
    """Eq. (6)'s update after round t: O_k(t + 1) = q (O_k(t) + 1{A_t = k})."""
    return q * (o + (1.0 if pulled else 0.0))


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def leave_window(o: float, leaving: float, young: float) -> float:
    """O_k once a pull of arm k turns old (its age reaches m): less that pull's term,
    ``leaving`` = q^(m + L). With no pull of k left in the window (``young`` = 0) O_k is 0 in
    arithmetic, and is set so, rather than left with the rounding of its subtractions."""
    return o - leaving if young > 0.0 else 0.0


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def young_weight(young: float, o: float, carry: float) -> float:
    """The pulls of the window weighed by tau(age) = 1 - q^(age + 1): ``young`` of them, less
    q^(1-L) O_k(t) (``carry`` = 1 next-round, q same-round), eq. (6)'s N~_k = N_k - O_k."""
    return young - o * carry


@dataclass
class DelayedIndexPolicy:
    """DelayedUCB / DelayedKLUCB (Algorithm 1), censored or not, with a known or estimated CDF.

    ``tau(d)`` is the delay CDF. With ``estimate_cdf`` the CDF is learnt from arriving delays as in
    Appendix D: censored, the biased empirical CDF of observed delays (an estimate of
    tau_d / tau_m); uncensored, a geometric law whose mean is tracked by stochastic approximation
    with step n^-gamma, n the number of observed delays, plugged into the recursion (6).

    The first K + ``wait`` rounds cycle through the arms: ``wait`` = 0 is Algorithm 1's
    initialisation (each arm once); ``wait`` = m is the D-UCB of Manegueu et al. 2020, which
    "has to wait until m + K time steps before it starts exploiting" (their Section 8.2).

    With ``rng`` (not in the paper: the arena's Thompson sampling on N~,
    ``docs/decisions/arena.md#ts-on-n-tilde``) the index is a posterior draw instead,
    theta_k ~ Beta(1 + S_k, 1 + max(N~_k - S_k, 0)), for k = 0..K-1 in order: N~ stands for the
    number of pulls whose outcome is known, S of which converted, so the posterior mean is near
    S / N~, the estimate the indices use.

    ``lag`` is the arrival convention's (``ARRIVALS``): N~ weighs the pull at s by
    tau(min(t - lag - s, m)), the probability that its conversion has been seen by round t.

    ``q``: the law is geometric, tau(d) = 1 - q^(d+1), and N~ is carried by the recursion (6)
    (module docstring), censored or not; without it, N~ is the sum of the weights. The estimated
    uncensored CDF always takes the recursion, with q = mu_hat / (mu_hat + 1)."""

    n_arms: int
    tau: Callable[[int], float]
    window: int | None  # None: uncensored
    kl: bool
    epsilon: float
    estimate_cdf: bool = False
    gamma: float = 1.0
    wait: int = 0
    rng: np.random.Generator | None = None
    lag: int = ARRIVALS[NEXT_ROUND]
    q: float | None = None
    actions: list[int] = field(default_factory=list)
    successes: list[int] = field(init=False)
    observed_delays: list[int] = field(default_factory=list)
    mu_hat: float = 0.0
    o: list[float] = field(init=False)  # O_k(t) of eq. (6), where ``recursive``

    def __post_init__(self) -> None:
        self.successes = [0] * self.n_arms
        self.o = [0.0] * self.n_arms

    def current_tau(self) -> Callable[[int], float]:
        """The CDF the index uses now: the known tau, or Appendix D's censored estimate."""
        if not self.estimate_cdf:
            return self.tau
        n_obs = len(self.observed_delays)
        if n_obs == 0:
            return lambda d: 1.0  # nothing observed yet: no delay correction
        counts = np.bincount(self.observed_delays, minlength=(self.window or 0) + 1)
        cumulative = np.cumsum(counts)
        return lambda d: float(cumulative[min(d, len(cumulative) - 1)]) / n_obs

    @property
    def recursive(self) -> bool:
        """Whether N~ is carried by the recursion (6): a geometric law, known (``q``) or, without
        a window, estimated (Appendix D); not the estimated censored CDF, which is no geometric."""
        if self.estimate_cdf:
            return self.window is None
        return self.q is not None

    def current_q(self) -> float:
        """The geometric law's q the recursion uses now: the known one, or Appendix D's plug-in
        mu_hat / (mu_hat + 1)."""
        if self.estimate_cdf:
            return self.mu_hat / (self.mu_hat + 1.0)
        assert self.q is not None
        return self.q

    def n_tilde(self, k: int, t: int, tau: Callable[[int], float]) -> float:
        if self.recursive:
            # O_k sums q^(t-s), the weight 1 - tau(t-1-s) of the next-round convention; the
            # same-round one's 1 - tau(t-s) is q^(t-s+1), O_k times the current q
            carry = 1.0 if self.lag else self.current_q()
            n = self.actions.count(k)
            if self.window is None:
                return young_weight(n, self.o[k], carry)
            # Section 7's N_k(t - m) tau_m, then the window's pulls by the recursion
            old = self.actions[: max(t - self.lag - self.window, 0)].count(k)  # age >= m
            return old * tau(self.window) + young_weight(n - old, self.o[k], carry)
        if self.window is None:  # uncensored: every pull weighs tau(its age)
            total = 0.0
            for s, a in enumerate(self.actions, start=1):
                if a == k:
                    total += tau(t - self.lag - s)
            return total
        # censored, as Section 7 writes it: N_k(t - m) tau_m, the pulls of age >= m counted
        # once, plus each pull of the last m rounds at its own age's weight, oldest first
        ages = [t - self.lag - s for s, a in enumerate(self.actions, start=1) if a == k]
        total = sum(1 for age in ages if age >= self.window) * tau(self.window)
        for age in ages:
            if age < self.window:
                total += tau(age)
        return total

    def choose(self, t: int) -> int:
        if t <= self.n_arms + self.wait:
            return (t - 1) % self.n_arms
        b = beta(t, self.epsilon)
        tau = self.current_tau()
        indices = []
        for k in range(self.n_arms):
            n, n_tilde = self.actions.count(k), self.n_tilde(k, t, tau)
            theta_hat = self.successes[k] / n_tilde if n_tilde > 0 else 0.0
            if self.rng is not None:
                failures = max(n_tilde - self.successes[k], 0.0)
                indices.append(self.rng.beta(1.0 + self.successes[k], 1.0 + failures))
            elif self.kl:
                indices.append(klucb_index(theta_hat, n_tilde, b))
            else:
                indices.append(ucb_index(theta_hat, n, n_tilde, b))
        return first_argmax(indices)

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)
        if not self.recursive:
            return
        q = self.current_q()
        self.o = [geometric_step(o, k == arm, q) for k, o in enumerate(self.o)]
        aged = t + 1 - self.lag - (self.window or 0)  # the pull that weighs tau_m from t + 1
        if self.window is not None and aged >= 1:
            a = self.actions[aged - 1]
            young = self.actions[aged:].count(a)  # its pulls at s > aged
            leaving = math.pow(q, float(self.window + self.lag))  # its term q^(m + L)
            self.o[a] = leave_window(self.o[a], leaving, young)

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.successes[arm] += 1
        self.observed_delays.append(delay)
        n = len(self.observed_delays)
        step = n**-self.gamma
        self.mu_hat = (1.0 - step) * self.mu_hat + step * delay


@dataclass
class DiscardingPolicy:
    """DiscardingUCB / DiscardingKLUCB (Section 6): UCB or KL-UCB on pulls older than the window
    only, theta^m = S_k(t-m) / (tau_m N_k(t-m)). While some arm has no such pull, the indices are
    undefined and the least-pulled arm is played (round robin), the linear phase of Figure 2.

    With ``rng`` (not in the paper: the arena's Thompson sampling on the settled pulls,
    ``docs/decisions/arena.md#discarding-klucb-ts``) the index is a draw from
    Beta(1 + S_k(t-m), 1 + N_k(t-m) - S_k(t-m)), the posterior of the settled outcomes' rate
    theta tau_m, for k = 0..K-1 in order: tau_m is common to the arms, so it does not change which
    is largest in expectation.

    ``lag`` is the arrival convention's (``ARRIVALS``): the pull at s is complete (any conversion
    with D <= m has arrived) from round s + m + lag on."""

    n_arms: int
    tau_m: float
    window: int
    kl: bool
    epsilon: float
    rng: np.random.Generator | None = None
    lag: int = ARRIVALS[NEXT_ROUND]
    actions: list[int] = field(default_factory=list)
    arrivals: list[tuple[int, int]] = field(default_factory=list)  # (round pulled, arm)

    def choose(self, t: int) -> int:
        horizon_old = t - self.lag - self.window  # pulls at s <= t-L-m are fully observed
        n_old = [
            sum(1 for s, a in enumerate(self.actions, 1) if a == k and s <= horizon_old)
            for k in range(self.n_arms)
        ]
        if min(n_old) == 0:
            counts = [self.actions.count(k) for k in range(self.n_arms)]
            return first_argmax([-c for c in counts])
        s_old = [
            sum(1 for s, a in self.arrivals if a == k and s <= horizon_old)
            for k in range(self.n_arms)
        ]
        if self.rng is not None:
            return first_argmax(
                [
                    self.rng.beta(1.0 + s_old[k], 1.0 + n_old[k] - s_old[k])
                    for k in range(self.n_arms)
                ]
            )
        b = beta(t, self.epsilon)
        indices = []
        for k in range(self.n_arms):
            n_eff = self.tau_m * n_old[k]
            theta_hat = s_old[k] / n_eff
            indices.append(
                klucb_index(theta_hat, n_eff, b)
                if self.kl
                else theta_hat + math.sqrt(b / (2.0 * n_eff))
            )
        return first_argmax(indices)

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.arrivals.append((s, arm))
