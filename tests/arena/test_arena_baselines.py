"""The arena's baselines that ignore delays (UCB, KL-UCB, Thompson sampling on S / N): the compiled
kernel takes exactly the actions of the readable reference, and the policies are what they claim."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from delayed_bandits import delays, environment
from delayed_bandits.arena.kernels import run_ignores_delays_kernel
from delayed_bandits.arena.policies import run_ignores_delays
from delayed_bandits.indices import (
    INDEX_CODES,
    KLUCB,
    KLUCB_TOLERANCE,
    TS,
    UCB,
    bernoulli_kl,
    exploration,
    klucb_index,
    ucb_index,
)

POLICIES = {  # (index, coefficient, loglog)
    "ucb-1": ("ucb", 1.0, 0.0),
    "ucb1-4": ("ucb", 4.0, 0.0),
    "klucb": ("klucb", 1.0, 0.0),
    "klucb-loglog3": ("klucb", 1.0, 3.0),
    "ts": ("ts", 0.0, 0.0),
}
# The best arm is neither first nor last, so neither tie-breaking rule nor luck can fake a match.
MEANS = {
    2: np.array([0.3, 0.45]),
    3: np.array([0.4, 0.55, 0.3]),
    10: np.array([0.05, 0.12, 0.3, 0.08, 0.25, 0.2, 0.15, 0.28, 0.1, 0.22]),
}
HORIZONS = {2: 400, 3: 800, 10: 1500}
DELAY_MEANS = (0.0, 5.0, 200.0)


def _cases():
    for name in POLICIES:
        for k in MEANS:
            for mean in DELAY_MEANS:
                yield pytest.param(name, k, mean, id=f"{name}-K{k}-delay{mean:g}")


@pytest.mark.parametrize("policy,n_arms,delay_mean", list(_cases()))
def test_kernel_takes_reference_actions(policy: str, n_arms: int, delay_mean: float) -> None:
    index, coefficient, loglog = POLICIES[policy]
    mu, horizon = MEANS[n_arms], HORIZONS[n_arms]
    seed = 1000 * n_arms + int(delay_mean)
    env = environment.draw(
        np.random.SeedSequence(seed), horizon, n_arms, delays.Geometric(delay_mean)
    )
    checkpoints = environment.checkpoint_grid(horizon, 20)
    regret, actions = run_ignores_delays_kernel(
        mu, env.uniforms, env.delays, index, coefficient, loglog, seed, checkpoints
    )
    reference = run_ignores_delays(mu, env.uniforms, env.delays, index, coefficient, loglog, seed)
    mismatch = np.flatnonzero(actions != reference)
    assert mismatch.size == 0, f"first different action at round {mismatch[:1] + 1}"
    np.testing.assert_allclose(
        regret, np.cumsum(mu.max() - mu[actions])[checkpoints - 1], rtol=0, atol=1e-9
    )
    # every arm is played, and the best the most once feedback flows: a comparison that means
    # something
    counts = np.bincount(actions, minlength=n_arms)
    assert counts.min() > 0
    if delay_mean == 0.0:
        assert counts.argmax() == mu.argmax()


# ---- the KL-UCB index ---------------------------------------------------------------------------

P_GRID = (0.0, 1e-3, 0.01, 0.1, 0.37, 0.5, 0.8, 0.999)
N_GRID = (1, 2, 5, 30, 1000, 100_000)
F_GRID = (
    exploration(2, 1.0, 0.0),
    exploration(100, 1.0, 3.0),
    exploration(10**5, 1.0, 0.0),
    exploration(10**5, 4.0, 0.0),
)


def _exact_klucb(p: float, n: float, f: float) -> float:
    """The root of N kl(p, q) = f on (p, 1), to 1e-14, by an independent root finder (1 when it
    is closer to 1 than floats resolve)."""
    top = 1.0 - 1e-15
    if n * bernoulli_kl(p, top) <= f:
        return 1.0
    return brentq(lambda q: n * bernoulli_kl(p, q) - f, p, top, xtol=1e-14, rtol=1e-15)


@pytest.mark.parametrize("p", P_GRID)
def test_klucb_index_solves_the_kl_equation(p: float) -> None:
    for n in N_GRID:
        for f in F_GRID:
            q = klucb_index(p, float(n), f)
            assert p <= q < 1.0
            assert q <= p + math.sqrt(f / (2.0 * n)) + 1e-12  # Pinsker
            # N kl(p, q) = f within the tolerance: the crossing is within 1e-6 of q ...
            exact = _exact_klucb(p, n, f)
            assert abs(q - exact) <= KLUCB_TOLERANCE, (p, n, f)
            assert n * bernoulli_kl(p, max(q - KLUCB_TOLERANCE, p)) <= f
            if exact == 1.0:  # 1 - U below 1e-15 (N = 1 and f = 46: e^-46): nothing to solve
                continue
            if q + KLUCB_TOLERANCE < 1.0:
                assert n * bernoulli_kl(p, q + KLUCB_TOLERANCE) >= f
            # ... and, away from the log singularity at 1, the constraint is tight at q itself:
            # |N kl(p, q) - f| is at most the change of N kl over 1e-6 around q
            if q < 1.0 - 1e-4:
                slope = n * (q - p) / (q * (1.0 - q)) if q > p else 0.0
                assert abs(n * bernoulli_kl(p, q) - f) <= 2 * slope * KLUCB_TOLERANCE + 1e-9


def test_klucb_index_edge_values() -> None:
    assert klucb_index(1.0, 10.0, 3.0) == 1.0
    assert klucb_index(0.3, 10.0, 0.0) == 0.3
    for n in (1.0, 7.0, 500.0):  # kl(0, q) = -log(1 - q): U = 1 - exp(-f / N)
        assert klucb_index(0.0, n, 2.5) == pytest.approx(-math.expm1(-2.5 / n), abs=1e-8)


@pytest.mark.parametrize("p", (0.0, 0.05, 0.5, 0.9))
def test_klucb_index_decreases_with_pulls(p: float) -> None:
    f = exploration(5000, 1.0, 3.0)
    values = np.array([klucb_index(p, float(n), f) for n in range(1, 3001)])
    # Newton's result is within ~1e-10 of the exact root, which decreases in N
    assert np.all(np.diff(values) <= 1e-9)
    # strictly from N to 2N, where the root is resolved (not within 1e-5 of 1: p = 0.9, N < 20)
    n = np.arange(1, 1501)
    resolved = values[n - 1] < 1.0 - 1e-5
    assert resolved.sum() > 1400
    assert np.all(values[n - 1][resolved] > values[2 * n - 1][resolved])


def test_klucb_pruning_never_hides_the_index_above_the_bar() -> None:
    """With ``bar``, the index is exact whenever it is >= bar, and below bar otherwise."""
    rng = np.random.default_rng(4)
    for _ in range(2000):
        p, n = rng.random() ** 2, float(rng.integers(1, 10_000))
        f = exploration(int(rng.integers(2, 10**6)), 1.0, float(rng.integers(0, 4)))
        exact = klucb_index(p, n, f)
        bar = exact + rng.normal(0.0, 1e-3)
        pruned = klucb_index(p, n, f, bar)
        assert pruned == exact if exact >= bar else pruned < bar


# ---- UCB ----------------------------------------------------------------------------------------


def test_ucb_coefficient_4_is_auers_ucb1() -> None:
    for t in (2, 3, 17, 1000, 10**6):
        for n in (1, 4, 333):
            for p in (0.0, 0.25, 1.0):
                expected = p + math.sqrt(2.0 * math.log(t) / n)
                assert ucb_index(p, float(n), exploration(t, 4.0, 0.0)) == pytest.approx(
                    expected, rel=1e-14
                )


def test_ucb1_run_matches_a_textbook_ucb1() -> None:
    """No delays: the kernel with coefficient 4 plays Auer et al.'s UCB1, written here directly."""
    mu, horizon = np.array([0.5, 0.6, 0.4]), 600
    env = environment.draw(np.random.SeedSequence(8), horizon, 3, delays.Geometric(0.0))
    _, actions = run_ignores_delays_kernel(mu, env.uniforms, env.delays, "ucb", 4.0, 0.0, 0)
    rewards, pulls, expected = np.zeros(3), np.zeros(3), []
    for t in range(1, horizon + 1):
        if t <= 3:
            arm = t - 1
        else:
            arm = int(np.argmax(rewards / pulls + np.sqrt(2.0 * np.log(t) / pulls)))
        expected.append(arm)
        pulls[arm] += 1
        rewards[arm] += env.uniforms[t - 1, arm] < mu[arm]
    assert actions.tolist() == expected


@pytest.mark.parametrize("index", ("ucb", "klucb"))
def test_without_conversions_the_index_policies_play_round_robin(index: str) -> None:
    mu, horizon = np.array([0.3, 0.5, 0.2]), 300
    uniforms = np.full((horizon, 3), 0.99)  # > every mean: nothing ever converts
    zero = np.zeros((horizon, 3), dtype=np.int64)
    expected = np.arange(horizon) % 3
    _, actions = run_ignores_delays_kernel(mu, uniforms, zero, index, 1.0, 0.0, 0)
    assert np.array_equal(actions, expected)
    assert np.array_equal(run_ignores_delays(mu, uniforms, zero, index, 1.0, 0.0, 0), expected)


# ---- Thompson sampling --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_ts_concentrates_on_the_best_arm(seed: int) -> None:
    """K = 2, mu = (0.2, 0.8), no delays, T = 2000. TS is asymptotically optimal (Kaufmann et al.
    2012): the worse arm gets about log T / kl(0.2, 0.8) = 7.6 / 0.83, about 9 pulls, plus a
    constant. A share of the best arm below 0.9 would mean over 200 pulls of the worse arm, some
    20 times that: it cannot happen for a correct TS, and it is what a TS that learnt nothing
    (about 1000 each) or counted rewards wrongly would do."""
    mu, horizon = np.array([0.2, 0.8]), 2000
    rng = np.random.default_rng(100 + seed)
    uniforms = rng.random((horizon, 2))
    zero = np.zeros((horizon, 2), dtype=np.int64)
    _, actions = run_ignores_delays_kernel(mu, uniforms, zero, "ts", seed=seed)
    assert np.mean(actions == 1) > 0.9


@pytest.mark.parametrize("n_arms", (2, 3))
def test_ts_counts_conversions_in_flight_as_failures(n_arms: int) -> None:
    """Delays longer than the horizon: nothing arrives, so TS samples Beta(1, 1 + N_k) whatever
    the conversions, exactly TS on all-zero rewards, however good arm 0 is.

    Balance: Beta(1, b) has P(X > x) = (1 - x)^b, so arm j beats arm i with probability
    b_i / (b_i + b_j): the less-pulled arm is favoured, an urn that self-corrects. For K = 2 the
    difference D = N_0 - N_1 has drift -D / (t + 4) and unit step, so D_T / sqrt(T) tends to a
    normal of variance 1/3: at T = 2000 its sd is about 26, and |D| <= 200 (0.1 T) is over 7 sd.
    K = 3 is no less balanced (each arm is pulled with probability decreasing in its own count)."""
    horizon, seed = 2000, 12
    mu = np.array([0.95] + [0.05] * (n_arms - 1))
    uniforms = np.random.default_rng(3).random((horizon, n_arms))
    never = np.full((horizon, n_arms), horizon, dtype=np.int64)
    _, actions = run_ignores_delays_kernel(mu, uniforms, never, "ts", seed=seed)
    # TS on all-zero rewards, written directly: the same generator, the same order of draws
    rng, pulls, expected = np.random.default_rng(seed), np.zeros(n_arms), []
    for _ in range(horizon):
        arm = int(np.argmax([rng.beta(1.0, 1.0 + pulls[k]) for k in range(n_arms)]))
        expected.append(arm)
        pulls[arm] += 1
    assert actions.tolist() == expected
    counts = np.bincount(actions, minlength=n_arms)
    assert counts.max() - counts.min() <= 0.1 * horizon
    # and the same conversions arriving at once change its play: the test can fail
    _, informed = run_ignores_delays_kernel(mu, uniforms, np.zeros_like(never), "ts", seed=seed)
    assert np.mean(informed == 0) > 0.9


def test_index_codes_and_bad_names() -> None:
    assert INDEX_CODES == {"ucb": UCB, "klucb": KLUCB, "ts": TS}
    assert len({UCB, KLUCB, TS}) == 3
    empty = np.zeros((5, 2))
    with pytest.raises(ValueError, match="index"):
        run_ignores_delays_kernel(np.array([0.1, 0.2]), empty, empty.astype(np.int64), "thompson")
    with pytest.raises(ValueError, match="index"):
        run_ignores_delays(np.array([0.1, 0.2]), empty, empty.astype(np.int64), "thompson")
