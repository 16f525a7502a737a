"""Thompson sampling on Chapelle (2014)'s delayed-feedback model fitted by EM (``ts-em``,
docs/decisions/arena.md#em-thompson): the kernel takes the reference's actions over horizons long
enough for hundreds of fits, censored (the settled pulls counted, not visited) and not; and the
fit recovers the rates and the delay law it models."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import full_setting
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena.observe import conversions
from delayed_bandits.arena.policies import EMThompson
from delayed_bandits.references import run

TS_EM = next(e for e in arena.BUILT_IN if e.id == "ts-em")


@pytest.mark.parametrize(
    "name",
    [
        "geometric100-K10-small",  # uncensored: every pending pull visited at each fit
        "geometric100_censored-K10-small",  # the pulls older than m + 1 counted per arm
        "packet_loss25_censored-K10-large",  # every delay seen is 0: q reaches 1
        "pareto03-K2-low_small",  # heavy tail, few conversions
        "reward_dependent-K2-small",
    ],
)
def test_kernel_takes_the_reference_actions_over_hundreds_of_fits(name: str) -> None:
    st, horizon = full_setting(name), 4000  # fits at about 20 ln T + 20 = 186 rounds
    cp = np.array([horizon])
    for replication in range(2):
        draw = arena.draw_environment(np.random.SeedSequence(replication), horizon, st)
        for seed in range(2):
            kernel = TS_EM.kernel(st, draw, cp, seed)
            reference = TS_EM.reference(st, draw, cp, seed)
            np.testing.assert_array_equal(kernel[1], reference[1])
            assert kernel[0].tolist() == reference[0].tolist()


@pytest.mark.parametrize("censored", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_the_fit_recovers_the_best_arms_rate_and_the_delay_law(censored: bool, seed: int) -> None:
    """Geometric delays of mean 100 (q = 1/101), K = 2, means 0.4 and 0.6, T = 8000: the arm
    played most (the best) has its rate within 5 binomial standard errors of its N pulls,
    inflated by 1/τ_m under censoring (a conversion later than m is never seen: the fit
    extrapolates it); uncensored, q is within 5 standard errors of a geometric law's MLE,
    q sqrt(1 - q) / sqrt(S), from the S delays seen."""
    name = "geometric100_censored-K2-large" if censored else "geometric100-K2-large"
    st, horizon = full_setting(name), 8000
    draw = arena.draw_environment(np.random.SeedSequence(seed), horizon, st)
    seen = conversions(draw.setting, draw.realisation)
    policy = EMThompson(2, st.window if censored else None, np.random.default_rng(seed))
    played = run(policy, draw.setting.mu, seen.uniforms, seen.delays, None)
    best = int(np.bincount(played, minlength=2).argmax())
    assert best == draw.setting.best
    theta, n = draw.setting.mu[best], policy.pulls[best]
    tau = float(st.pooled.cdf(st.window)) if censored else 1.0
    assert abs(policy.theta[best] - theta) < 5 * math.sqrt(theta * (1 - theta) / n) / tau
    if not censored:
        q, conversions_seen = 1 / 101, sum(policy.successes)
        assert abs(policy.hazard - q) < 5 * q * math.sqrt(1 - q) / math.sqrt(conversions_seen)


def test_an_arm_whose_every_pull_converted_is_not_certain() -> None:
    """The MAP fit (Beta(2, 2) priors): a maximum-likelihood fit gives an arm whose every pull
    converted θ = S / N = 1, and each of its later pending pulls weight 1, which locked the
    learner onto it; under the prior θ = (S + W + 1) / (N + 2): 2/3 after one pull that
    converted, 1/2 for an arm never pulled."""
    policy = EMThompson(2, None, np.random.default_rng(0))
    policy.played(1, 0)
    policy.observe(1, 0, 0)
    policy.choose(2)  # the fit of round 2: nothing pending
    assert policy.theta == [2 / 3, 1 / 2]
    assert policy.hazard == 2 / 3  # seeded by the one delay seen, 0: (S + 1) / (S + 0 + 2)
