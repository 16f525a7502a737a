"""Thune, Cesa-Bianchi, Seldin (NeurIPS 2019): readable references of DEW, Skipper and Doubling.

Written straight from the paper's pseudocode, for auditing; runs use the compiled kernels of
``delayed_bandits.papers.thune2019.kernels`` and the tests hold both to the same actions.

Protocol (Section 2): at round t the learner (in the "delay at action time" setting) is told d_t,
picks A_t with probability p_t, suffers the loss l_t^{A_t}, and at the end of round t observes the
pairs (s, l_s^{A_s}) of every s <= t with s + d_s = t, in increasing order of s. Losses due after
T are never observed.

The weights follow Algorithm 1 literally, one multiplicative update per arriving loss; only the
played arm's estimate is non-zero, so an arrival moves one weight (one exp per arrival).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba.extending import register_jitable

# Rescaling of the weights against underflow (``total_weight``); powers of two keep it exact.
RESCALE_BELOW = 2.0**-512
RESCALE_BY = 2.0**512


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def truncated_rate(eta: float, d_max: float) -> float:
    """Algorithm 1's learning rate eta' = min{eta, 1 / (4 e d_max)}; no truncation if d_max = 0."""
    if d_max <= 0.0:
        return eta
    return min(eta, 1.0 / (4.0 * math.e * d_max))


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def theorem1_rate(n_arms: int, horizon: int, total_delay: float) -> float:
    """Theorem 1's tuning eta = sqrt(ln K / (K T e / 2 + D))."""
    return math.sqrt(math.log(n_arms) / (n_arms * horizon * math.e / 2.0 + total_delay))


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def corollary4_beta(n_arms: int, horizon: int, total_delay: float, skip_term: bool) -> float:
    """Corollary 4's threshold. ``skip_term``: beta = sqrt((eKT/2 + (1 + 4e) D) / ln K) / (4e),
    the minimiser of the bound in the corollary's proof (|S_beta| <= D / beta substituted in (3)),
    the only beta for which that proof gives the stated 2 sqrt((KTe/2 + (1 + 4e) D) ln K).
    Otherwise beta = sqrt((eKT/2 + D) / ln K) / (4e), the other reading of our garbled copy
    (docs/decisions/thune2019.md#corollary4-beta). The learning rate is eta = 1 / (4 e beta) in
    both."""
    weight = 1.0 + 4.0 * math.e if skip_term else 1.0
    return math.sqrt(
        (math.e * n_arms * horizon / 2.0 + weight * total_delay) / math.log(n_arms)
    ) / (4.0 * math.e)


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def doubling_beta(m: int, n_arms: int) -> float:
    """Eq. (5): beta_m = sqrt(omega_m) / (4 e ln K) with omega_m = 2^m."""
    return math.sqrt(2.0**m) / (4.0 * math.e * math.log(n_arms))


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def doubling_condition(
    skipped: float, length: float, delay_sum: float, omega: float, n_arms: int, log_k: float
) -> bool:
    """Eq. (6): stay in the epoch while max{|S^m|^2, (e K sigma(m) / 2 + D^m) ln K} <= omega_m
    (omega_m = 2^m and log_k = ln K are passed in: the kernels compute them once per epoch)."""
    return max(skipped * skipped, (math.e * n_arms * length / 2.0 + delay_sum) * log_k) <= omega


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def total_weight(w: list[float] | np.ndarray) -> float:
    """W = sum_a w^a. Weights only shrink, so before W falls below 2^-512 every weight is
    multiplied by 2^512: exact for normal floats, so p = w / W is unchanged and never underflows."""
    total = 0.0
    for a in range(len(w)):
        total += w[a]
    if total < RESCALE_BELOW:
        total = 0.0
        for a in range(len(w)):
            w[a] *= RESCALE_BY
            total += w[a]
    return total


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def draw_arm(w: list[float] | np.ndarray, total: float, u: float) -> int:
    """Inverse-CDF draw from p = w / W for a uniform u in [0, 1): the first arm a with
    u W < w^0 + ... + w^a. The partial sums never decrease, so that arm's index is the number of
    partial sums <= u W, counted without an early exit (no branch to mispredict while p is
    spread out). If rounding leaves u W above the last partial sum, the last arm with w^a > 0."""
    target = u * total
    acc = 0.0
    below = 0
    last = 0
    for a in range(len(w)):
        acc += w[a]
        if acc <= target:
            below += 1
        if w[a] > 0.0:
            last = a
    return below if below < len(w) else last


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def weight_factor(rate: float, loss: float, prob: float) -> float:
    """exp(-eta' l^hat) with the importance-weighted estimate l^hat = l_s^{A_s} / p_s^{A_s} of the
    played arm (the other arms' estimates are 0: their weights do not move)."""
    return math.exp(-rate * (loss / prob))


@dataclass
class DEW:
    """Delayed exponential weights (Algorithm 1) with learning rate ``eta`` and delay bound
    ``d_max``: p_t = w_{t-1} / W_{t-1}; each arriving loss of round s becomes the estimator
    l_s^a 1(a = A_s) / p_s^a, with the probability p_s of the round that generated it, and
    multiplies w^{A_s} by exp(-eta' l^hat) as it arrives."""

    n_arms: int
    eta: float
    d_max: float
    rate: float = field(init=False)  # eta', the truncated learning rate
    w: list[float] = field(init=False)  # the weights w^a
    played: dict[int, tuple[int, float]] = field(default_factory=dict)  # s -> (A_s, p_s^{A_s})

    def __post_init__(self) -> None:
        self.rate = truncated_rate(self.eta, self.d_max)
        self.w = [1.0] * self.n_arms

    def choose(self, t: int, u: float) -> int:
        total = total_weight(self.w)
        arm = draw_arm(self.w, total, u)
        self.played[t] = (arm, self.w[arm] / total)
        return arm

    def observe(self, s: int, loss: float) -> None:
        arm, prob = self.played.pop(s)
        self.w[arm] *= weight_factor(self.rate, loss, prob)


@dataclass
class Skipper:
    """Algorithm 2: plays the base algorithm's actions and feeds it only the feedback of rounds
    with d_s < beta (the rounds with d_s >= beta form S_beta and are skipped)."""

    beta: float
    base: DEW

    def choose(self, t: int, u: float) -> int:
        return self.base.choose(t, u)

    def observe(self, s: int, loss: float, delay: int) -> None:
        if delay < self.beta:
            self.base.observe(s, loss)


@dataclass
class Doubling:
    """Section 4.1's doubling scheme over Skipper(beta_m, DEW(1/(4e beta_m), beta_m)).

    Knowing d_t at the start of round t, it adds round t to the current epoch m (to sigma(m), and
    to |S^m| if d_t >= beta_m, else to D^m) and keeps the epoch if condition (6) still holds.
    Otherwise round t opens epoch m + 1 with a fresh DEW; if (6) fails even for round t alone,
    the epoch is left empty and the next one tried. Feedback of a round reaching the learner
    after its epoch ended is dropped: the algorithm has been restarted
    (docs/decisions/thune2019.md#doubling).
    The epochs depend on the delays and K only, not on the losses or the actions."""

    n_arms: int
    m: int = 0  # the first epoch tried; condition (6) fails for it at any K >= 2
    length: int = 0  # sigma(m)
    skipped: int = 0  # |S^m_{beta_m}|
    delay_sum: float = 0.0  # D^m_{beta_m}
    skipper: Skipper = field(init=False)
    epoch_of: dict[int, int] = field(default_factory=dict)  # round -> its epoch
    epochs: list[tuple[int, int, float]] = field(default_factory=list)  # (m, first round, beta_m)

    def __post_init__(self) -> None:
        self.skipper = self._fresh()

    def _fresh(self) -> Skipper:
        beta = doubling_beta(self.m, self.n_arms)
        return Skipper(beta, DEW(self.n_arms, 1.0 / (4.0 * math.e * beta), beta))

    def begin_round(self, t: int, delay: int) -> None:
        while True:
            beta = self.skipper.beta
            skipped = self.skipped + (1 if delay >= beta else 0)
            delay_sum = self.delay_sum + (0.0 if delay >= beta else float(delay))
            if doubling_condition(
                skipped, self.length + 1, delay_sum, 2.0**self.m, self.n_arms, math.log(self.n_arms)
            ):
                break
            self.m += 1
            self.length, self.skipped, self.delay_sum = 0, 0, 0.0
            self.skipper = self._fresh()
        if self.length == 0:
            self.epochs.append((self.m, t, self.skipper.beta))
        self.length, self.skipped, self.delay_sum = self.length + 1, skipped, delay_sum
        self.epoch_of[t] = self.m

    def choose(self, t: int, u: float) -> int:
        return self.skipper.choose(t, u)

    def observe(self, s: int, loss: float, delay: int) -> None:
        if self.epoch_of[s] == self.m:
            self.skipper.observe(s, loss, delay)


def doubling_epochs(delays: np.ndarray, n_arms: int) -> list[tuple[int, int, float]]:
    """Doubling's epochs (m, first round, beta_m) on a delay sequence: they depend on nothing
    else, so one computation serves every replication."""
    policy = Doubling(n_arms)
    for t, delay in enumerate(delays.tolist(), start=1):
        policy.begin_round(t, delay)
    return policy.epochs


def run(
    policy: DEW | Skipper | Doubling, losses: np.ndarray, delays: np.ndarray, uniforms: np.ndarray
) -> np.ndarray:
    """Play one replication of Section 2's protocol; returns the arms played (0-based).

    ``losses[t-1, a]`` is l_t^a, ``delays[t-1]`` is d_t and ``uniforms[t-1]`` the policy's uniform
    for drawing A_t. Doubling is told d_t before acting (delay at action time); DEW sees no delay
    at all and Skipper sees d_s with the feedback of round s (delay at observation time)."""
    horizon = losses.shape[0]
    arrivals: dict[int, list[int]] = {}
    actions = []
    for t in range(1, horizon + 1):
        delay = int(delays[t - 1])
        if isinstance(policy, Doubling):
            policy.begin_round(t, delay)
        arm = policy.choose(t, float(uniforms[t - 1]))
        actions.append(arm)
        arrivals.setdefault(t + delay, []).append(t)
        for s in arrivals.pop(t, []):  # end of round t: every s with s + d_s = t
            loss = float(losses[s - 1, actions[s - 1]])
            if isinstance(policy, DEW):
                policy.observe(s, loss)
            else:
                policy.observe(s, loss, int(delays[s - 1]))
    return np.array(actions, dtype=np.int64)


def regret_at(losses: np.ndarray, actions: np.ndarray, checkpoints: np.ndarray) -> np.ndarray:
    """Regret against the best fixed arm in hindsight on the realised losses (Section 2, without
    the expectation): R(t) = sum_{s <= t} l_s^{A_s} - min_a sum_{s <= t} l_s^a, at each
    checkpoint."""
    played = np.cumsum(losses[np.arange(len(actions)), actions])
    best = np.cumsum(losses, axis=0).min(axis=1)
    return (played - best)[checkpoints - 1]
