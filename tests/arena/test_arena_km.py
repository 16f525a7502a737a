"""Bootstrap Thompson sampling on a Kaplan-Meier EM fit (``ts-km``, Gigli and Stella 2024 in a
finite-armed form, docs/decisions/arena.md#km-bootstrap): the kernel takes the reference's
actions over horizons long enough for a hundred fits and more; the weighted Kaplan-Meier law is the
one computed by hand; the fit recovers the rate within m and the law within m that it models;
the bootstrap's draws have the resample's mean and variance; and it runs only under censoring."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import full_setting
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena.observe import conversions
from delayed_bandits.arena.policies import KaplanMeierBootstrap
from delayed_bandits.references import run
from kernel_check import same_run

TS_KM = next(e for e in arena.BUILT_IN if e.id == "ts-km")


@pytest.mark.parametrize(
    "name",
    [
        "geometric100_censored-K10-small",
        "packet_loss75_censored-K2-low_large",  # every delay seen is 0
        "pareto03_censored-K2-low_small",  # heavy tail, few conversions
        "criteo_censored-K10-large",
        "uniform_censored-K2-large",
    ],
)
def test_kernel_takes_the_reference_actions_over_a_hundred_fits_and_more(name: str) -> None:
    st, horizon = full_setting(name), 1500  # 119 fits (REFIT_SHARE)
    for replication, seed in [(0, 0), (0, 1), (1, 2)]:
        draw = arena.draw_environment(np.random.SeedSequence(replication), horizon, st)
        same_run(TS_KM, st, draw, np.array([horizon // 2, horizon]), seed)


def test_it_runs_only_under_censoring() -> None:
    assert TS_KM.applies(full_setting("geometric100_censored-K10-small")) == ""
    reason = TS_KM.applies(full_setting("geometric100-K10-small"))
    assert "uncensored" in reason and "O(t)" in reason


def _policy(window: int, history: list[tuple[int, int, int | None]], t: int):
    """A policy at round t after the pulls (round, arm, delay or None) of ``history``."""
    policy = KaplanMeierBootstrap(2, window, np.random.default_rng(0))
    for s, arm, delay in history:
        policy.played(s, arm)
    for s, arm, delay in history:
        if delay is not None and s + delay + 1 <= t:
            policy.observe(s, arm, delay)
    policy._settle(t)
    return policy


def test_the_unweighted_law_is_kaplan_meiers() -> None:
    """m = 3, round 6: conversions of delays 0 (round 1), 1 (round 2) and 0 (round 4); pulls in
    flight made at rounds 3 and 5 (e = 3 and 1), known 0s none (round 1 <= t - m - 1 = 2 has
    converted, round 2 too). At risk at d = 0: the 3 conversions and the 2 pulls in flight
    (e > 0): h(0) = 2/5. At d = 1: the delay-1 conversion and the pull with e = 3: h(1) = 1/2.
    At d = 2: the pull with e = 3 alone, no death: h(2) = 0. So S(1) = 3/5, S(2) = S(3) =
    3/10."""
    history = [(1, 0, 0), (2, 1, 1), (3, 0, None), (4, 1, 0), (5, 0, None)]
    policy = _policy(3, history, 6)
    policy._step(6, False)
    assert policy.survival == pytest.approx([1.0, 3 / 5, 3 / 10, 3 / 10])
    # the E-step's weights under theta_0 = 1/3 (S_0 / N_0): S(3) and S(1)
    policy.theta = [1 / 3, 1.0]
    w3 = (1 / 3) * 0.3 / (1 - 1 / 3 + (1 / 3) * 0.3)
    assert policy._weight(0, 3) == pytest.approx(w3)
    policy._step(6, True)
    w1 = (1 / 3) * 0.6 / (1 - 1 / 3 + (1 / 3) * 0.6)
    assert policy.theta[0] == pytest.approx((1 + w3 + w1) / 3)
    assert policy.theta[1] == 1.0  # both of arm 1's pulls converted


def test_a_pull_settled_at_m_is_a_known_zero() -> None:
    """m = 2: a pull made at round 1 and not converted by round 4 (1 <= 4 - m - 1) counts as
    a known 0 and is no longer in flight (no weight, not at risk). The pull in flight (round 3,
    arm 1, whose rate is 0) weighs 0, so the one delay seen, 0, has hazard 1."""
    policy = _policy(2, [(1, 0, None), (2, 0, 0), (3, 1, None)], 4)
    assert policy.old == [1, 0] and policy.settled == 1
    policy._fit(4)
    assert policy.theta[0] == pytest.approx(1 / 2)
    assert policy.survival == [1.0, 0.0, 0.0]  # the one delay seen is 0


@pytest.mark.parametrize("seed", range(3))
def test_the_fit_recovers_the_rate_and_the_law_within_m(seed: int) -> None:
    """Geometric delays of mean 100 censored at m = 200, K = 2, T = 8000: the arm played most
    is the best, and its rate within m is mu tau_m within 5 binomial standard errors of its N
    pulls; S(50) = P(D >= 50 | D <= m) within 5 standard errors of the binomial proportion of
    the S conversions seen."""
    name = "geometric100_censored-K2-large"
    st, horizon = full_setting(name), 8000
    draw = arena.draw_environment(np.random.SeedSequence(seed), horizon, st)
    seen = conversions(draw.setting, draw.realisation)
    policy = KaplanMeierBootstrap(2, st.window, np.random.default_rng(seed))
    played = run(policy, draw.setting.mu, seen.uniforms, seen.delays, None)
    best = int(np.bincount(played, minlength=2).argmax())
    assert best == draw.setting.best
    tau = float(st.pooled.cdf(st.window))
    rate, n = draw.setting.mu[best] * tau, policy.pulls[best]
    assert abs(policy.theta[best] - rate) < 5 * math.sqrt(rate * (1 - rate) / n)
    tail = (float(st.pooled.cdf(st.window)) - float(st.pooled.cdf(49))) / tau
    total = sum(policy.successes)
    assert abs(policy.survival[50] - tail) < 5 * math.sqrt(tail * (1 - tail) / total)


def test_the_bootstrap_draws_have_the_resamples_mean_and_variance() -> None:
    """Arm 0 with N = 30 pulls: 6 conversions, 14 known 0s and 10 in flight, each weighing
    1/2 under the fit, and the pseudo-pull, a fair coin: theta* is the mean weight of a
    resample of the 31. Over 20000 draws its mean is within 5 standard errors of
    (6 + 5 + 1/2) / 31, and its variance within 5 % (5 standard errors of a sample variance)
    of the resample's, E[Var(w) / 31] over the coin plus the coin's own, Var(w) the variance
    of the 31 weights."""
    policy = KaplanMeierBootstrap(2, 200, np.random.default_rng(11))
    policy.pulls, policy.successes, policy.old = [30, 0], [6, 0], [14, 0]
    policy.theta = [0.5, 0.0]
    draws = np.array([policy._resampled(0, [0.5] * 10) for _ in range(20000)])
    data = [1.0] * 6 + [0.0] * 14 + [0.5] * 10
    mean = (sum(data) + 0.5) / 31
    within = np.mean([np.var(data + [coin]) / 31 for coin in (0.0, 1.0)])
    variance = within + (1 / 31) ** 2 / 4
    assert abs(draws.mean() - mean) < 5 * math.sqrt(variance / draws.size)
    assert draws.var() == pytest.approx(variance, rel=0.05)


def test_an_arm_never_converted_is_still_explored() -> None:
    """The pseudo-pull is resampled with the data: an arm with 20 pulls, none converted, all
    known 0s, draws theta* = (copies of a successful coin) / 21, so P(theta* >= 2/21) = P(coin)
    P(Binomial(21, 1/21) >= 2) = 0.131; over 20000 draws within 5 standard errors."""
    policy = KaplanMeierBootstrap(2, 200, np.random.default_rng(3))
    policy.pulls, policy.old = [20, 0], [20, 0]
    draws = np.array([policy._resampled(0, []) for _ in range(20000)])
    p0, p1 = (20 / 21) ** 21, 21 * (1 / 21) * (20 / 21) ** 20
    expected = 0.5 * (1 - p0 - p1)
    assert abs((draws >= 2 / 21 - 1e-12).mean() - expected) < 5 * math.sqrt(
        expected * (1 - expected) / draws.size
    )
