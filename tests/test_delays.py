"""Unit tests for delayed_bandits.delays.

Statistical checks use fixed seeds (``np.random.default_rng([SEED_BASE, i])``) and tolerances of
Z = 5 standard errors: binomial ones, sqrt(p (1 - p) / n), for P(D <= d), and sample-sd / sqrt(n)
for the mean. Exact (deterministic) checks use float tolerances or a proven numerical error bound.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from delayed_bandits.delays import (
    KINDS,
    MAX_DELAY,
    Empirical,
    Exponential,
    Geometric,
    HalfNormal,
    PacketLoss,
    Pareto,
    PerArm,
    Poisson,
    Uniform,
    cdf_table,
    from_spec,
    sample_table,
)
from delayed_bandits.errors import ConfigError

N = 200_000  # draws per distribution
Z = 5.0  # number of standard errors allowed
EPS = 1e-12  # slack for p in {0, 1} / zero-variance cases (float round-off only)
SEED_BASE = 20240517

# A Criteo-like quantile table: log10 of the delay in seconds, rescaled by 0.01 (delays 0..3163).
LOG_TABLE = Empirical(
    probs=(0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0),
    values=(1.0, 2.0, 2.7, 3.3, 4.0, 4.8, 5.5),
    scale=0.01,
    log10=True,
)
LIN_TABLE = Empirical(probs=(0.0, 0.5, 0.8, 1.0), values=(0.0, 10.0, 12.5, 40.0))
LIN_TABLE_SCALED = Empirical(probs=(0.0, 0.25, 1.0), values=(2.0, 30.0, 90.0), scale=0.5)
# A table with an atom (repeated value) that is *not* on an integer boundary.
LIN_TABLE_ATOM_OFFGRID = Empirical(probs=(0.0, 0.3, 0.6, 1.0), values=(0.0, 5.5, 5.5, 20.0))

CASES = {
    "uniform-0-0": Uniform(0, 0),
    "uniform-0-10": Uniform(0, 10),
    "uniform-5-25": Uniform(5, 25),
    "geometric-0.5": Geometric(0.5),
    "geometric-5": Geometric(5.0),
    "geometric-50": Geometric(50.0),
    "exponential-2.5": Exponential(2.5),
    "exponential-50": Exponential(50.0),
    "exponential-50-bound75": Exponential(50.0, 75),
    "exponential-50-bound250": Exponential(50.0, 250),
    "poisson-0.5": Poisson(0.5),
    "poisson-12": Poisson(12.0),
    "halfnormal-0.7": HalfNormal(0.7),
    "halfnormal-20": HalfNormal(20.0),
    "pareto-0.3": Pareto(0.3),
    "pareto-1.0": Pareto(1.0),
    "pareto-2.5": Pareto(2.5),
    "pareto-3.5": Pareto(3.5),
    "empirical-log10": LOG_TABLE,
    "empirical-linear": LIN_TABLE,
    "empirical-linear-scaled": LIN_TABLE_SCALED,
    "empirical-atom-offgrid": LIN_TABLE_ATOM_OFFGRID,
}
NAMES = list(CASES)
SEEDS = {name: i for i, name in enumerate(NAMES)}
PARETO = [n for n in NAMES if n.startswith("pareto")]
LIGHT = [n for n in NAMES if not n.startswith("pareto")]  # all moments finite


def rng_for(name: str, stream: int = 0) -> np.random.Generator:
    return np.random.default_rng([SEED_BASE, SEEDS[name], stream])


@functools.cache
def draws(name: str) -> np.ndarray:
    return CASES[name].sample(rng_for(name), N)


@functools.cache
def sorted_draws(name: str) -> np.ndarray:
    return np.sort(draws(name))


def freq_le(name: str, d: int) -> float:
    return np.searchsorted(sorted_draws(name), d, side="right") / N


def _g(dist: Empirical, v):
    return dist.scale * (10.0 ** np.asarray(v, float) if dist.log10 else np.asarray(v, float))


def bounded_upper(dist) -> int | None:
    """Largest possible delay for laws with bounded support, else None."""
    if isinstance(dist, Uniform):
        return dist.high
    if isinstance(dist, Exponential) and dist.bound is not None:
        return dist.bound
    if isinstance(dist, Empirical):
        return int(math.floor(float(_g(dist, dist.values[-1]))))
    return None


def quantile(dist, p: float) -> int:
    """Smallest integer d with cdf(d) >= p (0 < p <= 1), by doubling and bisection on cdf."""
    hi = 1
    while float(dist.cdf(hi)) < p:
        hi *= 2
        assert hi <= MAX_DELAY
    lo = -1  # cdf(-1) = 0 < p
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if float(dist.cdf(mid)) >= p:
            hi = mid
        else:
            lo = mid
    return hi


def light_upper(dist) -> int:
    """A d beyond which the survival function is below 1e-17 (light-tailed laws only)."""
    up = bounded_upper(dist)
    if up is not None:
        return up
    d = 16
    while 1.0 - float(dist.cdf(d)) > 1e-17:
        d *= 2
    return d


def pmf_moments(dist, upper: int) -> tuple[float, float, np.ndarray]:
    d = np.arange(upper + 1)
    pmf = np.diff(dist.cdf(np.arange(-1, upper + 1)))
    mean = float((d * pmf).sum())
    var = float(((d - mean) ** 2 * pmf).sum())
    return mean, var, pmf


# ---------------------------------------------------------------------------------------------
# 1. Empirical frequencies against cdf
# ---------------------------------------------------------------------------------------------


def check_points(dist) -> list[int]:
    pts = {-1, 0, 1, 2}
    for p in (0.05, 0.25, 0.5, 0.75, 0.95, 0.999):
        q = quantile(dist, p)
        pts.update({q - 1, q})
    up = bounded_upper(dist)
    if up is not None:
        pts.update({up - 1, up, up + 1})
    return sorted(pts)


@pytest.mark.parametrize("name", NAMES)
def test_sample_frequencies_match_cdf(name):
    dist = CASES[name]
    for d in check_points(dist):
        p = float(dist.cdf(d))
        tol = Z * math.sqrt(p * (1.0 - p) / N) + EPS
        f = freq_le(name, d)
        assert abs(f - p) <= tol, f"{name}: d={d} freq={f} cdf={p} tol={tol}"


def test_closed_form_cdfs():
    """cdf against independent formulas / scipy."""
    d = np.arange(0, 400)
    np.testing.assert_allclose(Poisson(12.0).cdf(d), stats.poisson.cdf(d, 12.0), rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        HalfNormal(20.0).cdf(d), stats.halfnorm.cdf(d + 1, scale=20.0), rtol=0, atol=1e-14
    )
    np.testing.assert_allclose(
        Exponential(50.0).cdf(d), stats.expon.cdf(d + 1, scale=50.0), rtol=0, atol=1e-14
    )
    # Truncation at B renormalises: P(D <= d | D <= B).
    for b in (75, 250):
        dd = np.arange(0, b + 1)
        expect = stats.expon.cdf(dd + 1, scale=50.0) / stats.expon.cdf(b + 1, scale=50.0)
        np.testing.assert_allclose(Exponential(50.0, b).cdf(dd), expect, rtol=1e-13, atol=1e-15)
        assert np.all(Exponential(50.0, b).cdf(np.arange(b, b + 50)) == 1.0)
    for a in (0.3, 1.0, 2.5, 3.5):
        # 1 - cdf carries an absolute (not relative) round-off of a few ulp of 1.
        np.testing.assert_allclose(1.0 - Pareto(a).cdf(d), (d + 1.0) ** -a, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        Uniform(5, 25).cdf(d)[:30], np.clip((np.arange(30) - 4) / 21, 0, 1), rtol=0, atol=1e-15
    )


# ---------------------------------------------------------------------------------------------
# 2. Mean and variance
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LIGHT)
def test_moments_match_pmf_from_cdf(name):
    dist = CASES[name]
    mean, var, pmf = pmf_moments(dist, light_upper(dist))
    assert np.all(pmf >= -1e-15)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert dist.mean == pytest.approx(mean, rel=1e-9, abs=1e-12)
    assert dist.variance == pytest.approx(var, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("low,high", [(0, 0), (0, 10), (5, 25), (3, 4)])
def test_uniform_closed_form(low, high):
    dist = Uniform(low, high)
    support = np.arange(low, high + 1)
    assert dist.mean == pytest.approx(support.mean())
    assert dist.variance == pytest.approx(support.var(), abs=1e-12)


@pytest.mark.parametrize("mu", [0.01, 0.5, 5.0, 50.0, 500.0])
def test_geometric_closed_form(mu):
    dist = Geometric(mu)
    assert dist.mean == mu
    assert dist.variance == pytest.approx(mu * (mu + 1.0), rel=1e-15)
    m, v, _ = pmf_moments(dist, light_upper(dist))
    assert m == pytest.approx(mu, rel=1e-9)
    assert v == pytest.approx(mu * (mu + 1.0), rel=1e-8)


@pytest.mark.parametrize("rate", [0.5, 12.0, 100.0])
def test_poisson_closed_form(rate):
    dist = Poisson(rate)
    assert dist.mean == rate and dist.variance == rate
    m, v, _ = pmf_moments(dist, light_upper(dist))
    assert m == pytest.approx(rate, rel=1e-9)
    assert v == pytest.approx(rate, rel=1e-8)


@pytest.mark.parametrize("scale", [2.5, 50.0])
def test_exponential_untruncated_is_geometric(scale):
    """floor(Exp(scale)) is geometric on {0,1,...} with q = exp(-1/scale)."""
    q = math.exp(-1.0 / scale)
    geo = Geometric(q / (1.0 - q))
    dist = Exponential(scale)
    assert dist.mean == pytest.approx(geo.mean, rel=1e-12)
    assert dist.variance == pytest.approx(geo.variance, rel=1e-12)
    d = np.arange(0, 2000)
    np.testing.assert_allclose(dist.cdf(d), geo.cdf(d), rtol=0, atol=1e-13)


@pytest.mark.parametrize("bound", [75, 250])
def test_exponential_truncated_closed_form(bound):
    """P(D = d) = (1 - q) q^d / (1 - q^(B+1)) on {0..B}, q = exp(-1/50)."""
    q = math.exp(-1.0 / 50.0)
    d = np.arange(bound + 1)
    pmf = (1.0 - q) * q**d / (1.0 - q ** (bound + 1))
    mean = float((d * pmf).sum())
    var = float(((d - mean) ** 2 * pmf).sum())
    dist = Exponential(50.0, bound)
    assert dist.mean == pytest.approx(mean, rel=1e-10)
    assert dist.variance == pytest.approx(var, rel=1e-9)
    assert dist.mean < Exponential(50.0).mean  # truncation lowers the mean


@pytest.mark.parametrize("sigma", [0.7, 20.0])
def test_halfnormal_mean_bracketed_by_continuous_mean(sigma):
    """|Z| - 1 < floor(|Z|) <= |Z|, so E|Z| - 1 < E[D] <= E|Z| = sigma sqrt(2/pi)."""
    cont = sigma * math.sqrt(2.0 / math.pi)
    m = HalfNormal(sigma).mean
    assert cont - 1.0 < m <= cont
    # E[D] = sum_{k>=1} P(|Z| >= k) = sum_k erfc(k / (sigma sqrt 2)).
    k = np.arange(1, int(40 * sigma) + 40)
    assert m == pytest.approx(float(special.erfc(k / (sigma * math.sqrt(2.0))).sum()), rel=1e-10)


def _zeta_direct(s: float, n_terms: int = 1_000_000) -> float:
    """sum_{k>=1} k^-s by direct partial sum plus the midpoint-integral tail (error O(n^-s-2))."""
    k = np.arange(1, n_terms + 1, dtype=float)
    return float((k**-s).sum()) + (n_terms + 0.5) ** (1.0 - s) / (s - 1.0)


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 3.5])
def test_pareto_moments(alpha):
    dist = Pareto(alpha)
    if alpha <= 1:
        assert dist.mean == math.inf
    else:
        # E[D] = sum_{d>=0} P(D > d) = sum_{k>=1} k^-alpha.
        assert dist.mean == pytest.approx(_zeta_direct(alpha), rel=1e-9)
    if alpha <= 2:
        assert dist.variance == math.inf
    else:
        # E[D^2] = sum_{d>=0} (2d + 1) P(D > d) = 2 zeta(alpha - 1) - zeta(alpha).
        second = 2.0 * _zeta_direct(alpha - 1.0) - _zeta_direct(alpha)
        assert dist.variance == pytest.approx(second - _zeta_direct(alpha) ** 2, rel=1e-8)
        assert dist.variance > 0


@pytest.mark.parametrize(
    "name",
    ["empirical-log10", "empirical-linear", "empirical-linear-scaled", "empirical-atom-offgrid"],
)
def test_empirical_moments_by_quantile_integration(name):
    """E[D^k] = int_0^1 floor(scale * g(Q(u)))^k du via a midpoint sum over M points; the
    integrand is monotone, so the error is at most (f(1) - f(0)) / M."""
    dist = CASES[name]
    m = 2_000_000
    u = (np.arange(m) + 0.5) / m
    dq = np.floor(_g(dist, np.interp(u, dist.probs, dist.values)))
    lo, hi = float(np.floor(_g(dist, dist.values[0]))), float(np.floor(_g(dist, dist.values[-1])))
    mean, second = float(dq.mean()), float((dq**2).mean())
    tol_mean = (hi - lo) / m + 1e-9
    tol_second = (hi**2 - lo**2) / m + 1e-9
    assert abs(dist.mean - mean) <= tol_mean
    var = second - mean**2
    tol_var = tol_second + 2 * (mean + tol_mean) * tol_mean + 1e-9 * max(1.0, var)
    assert abs(dist.variance - var) <= tol_var


@pytest.mark.parametrize("name", [n for n in NAMES if math.isfinite(CASES[n].variance)])
def test_sample_mean_within_standard_errors(name):
    dist = CASES[name]
    x = draws(name).astype(float)
    se = x.std(ddof=1) / math.sqrt(N)
    assert abs(x.mean() - dist.mean) <= Z * se + EPS, (x.mean(), dist.mean, se)


@pytest.mark.parametrize("name", LIGHT)
def test_sample_variance_within_standard_errors(name):
    """SE of the sample variance: sqrt((m4 - s^4) / n) (all moments finite for these laws)."""
    dist = CASES[name]
    x = draws(name).astype(float)
    c = x - x.mean()
    s2 = float((c**2).mean())
    m4 = float((c**4).mean())
    se = math.sqrt(max(m4 - s2**2, 0.0) / N)
    assert abs(x.var(ddof=1) - dist.variance) <= Z * se + EPS, (x.var(ddof=1), dist.variance, se)


@pytest.mark.parametrize("alpha", [0.3, 1.0])
def test_pareto_infinite_mean_tail_is_heavy(alpha):
    """With an infinite mean, the frequency of huge delays matches (d+1)^-alpha."""
    name = f"pareto-{alpha}"
    d = 10**6
    p = float(1.0 - CASES[name].cdf(d))
    assert p == pytest.approx((d + 1.0) ** -alpha)
    f = 1.0 - freq_le(name, d)
    assert abs(f - p) <= Z * math.sqrt(p * (1 - p) / N)


# ---------------------------------------------------------------------------------------------
# 3. Properties
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None)
@given(a=st.integers(-1, 10**9), b=st.integers(-1, 10**9))
def test_cdf_monotone_and_in_unit_interval(name, a, b):
    dist = CASES[name]
    lo, hi = min(a, b), max(a, b)
    fl, fh = float(dist.cdf(lo)), float(dist.cdf(hi))
    assert 0.0 <= fl <= fh <= 1.0


@pytest.mark.parametrize("name", NAMES)
def test_cdf_grid_monotone_and_limits(name):
    dist = CASES[name]
    grid = np.unique(
        np.concatenate([np.arange(-1, 5000), np.logspace(0, 18, 200).astype(np.int64)])
    )
    c = dist.cdf(grid)
    assert c.shape == grid.shape
    assert np.all(np.isfinite(c))
    assert np.all((c >= 0.0) & (c <= 1.0))
    assert np.all(np.diff(c) >= 0.0)
    assert float(dist.cdf(-1)) == 0.0
    assert 1.0 - float(dist.cdf(10**18)) < 1e-5  # Pareto(0.3): (1e18)^-0.3 ~ 4e-6
    up = bounded_upper(dist)
    if up is not None:
        assert float(dist.cdf(up)) == pytest.approx(1.0, abs=1e-15)
        assert float(dist.cdf(up + 1)) == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_cdf_zero_for_all_negative_delays(name):
    dist = CASES[name]
    d = np.array([-1, -2, -3, -10, -1000])
    np.testing.assert_array_equal(dist.cdf(d), np.zeros(5))


@pytest.mark.parametrize("name", NAMES)
def test_cdf_scalar_vector_and_floor_consistency(name):
    dist = CASES[name]
    d = np.array([0, 1, 3, 7, 20, 100, 1234])
    vec = dist.cdf(d)
    # Scalar and vectorised numpy math may differ in the last ulp.
    np.testing.assert_allclose(vec, [float(dist.cdf(int(x))) for x in d], rtol=0, atol=1e-15)
    # D is integer-valued, so P(D <= d + 0.5) = P(D <= d).
    np.testing.assert_array_equal(dist.cdf(d + 0.5), vec)


@pytest.mark.parametrize("name", NAMES)
def test_samples_are_nonnegative_int64(name):
    x = draws(name)
    assert x.dtype == np.int64 and x.shape == (N,)
    assert x.min() >= 0
    up = bounded_upper(CASES[name])
    if up is not None:
        assert x.max() <= up
    assert CASES[name].sample(rng_for(name, 1), 0).shape == (0,)


@pytest.mark.parametrize("name", NAMES)
def test_sampling_is_reproducible(name):
    dist = CASES[name]
    a = dist.sample(np.random.default_rng(7), 1000)
    b = dist.sample(np.random.default_rng(7), 1000)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", PARETO)
def test_pareto_samples_at_least_one(name):
    assert draws(name).min() >= 1
    assert float(CASES[name].cdf(0)) == 0.0


def test_pareto_heavy_tail_is_clipped_not_overflowed():
    x = Pareto(0.05).sample(np.random.default_rng([SEED_BASE, 99]), 100_000)
    assert x.dtype == np.int64
    assert x.min() >= 1 and x.max() <= MAX_DELAY


@pytest.mark.parametrize("bound", [0, 1, 75, 250])
def test_truncated_exponential_never_exceeds_bound(bound):
    dist = Exponential(50.0, bound)
    x = dist.sample(np.random.default_rng([SEED_BASE, 100, bound]), N)
    assert x.min() >= 0 and x.max() <= bound
    if bound == 0:
        assert np.all(x == 0)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("upto", [0, 1, 50, 500])
def test_cdf_table(name, upto):
    dist = CASES[name]
    t = cdf_table(dist, upto)
    assert t.dtype == np.float64 and t.shape == (upto + 1,) and t.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(t, dist.cdf(np.arange(upto + 1)))


@pytest.mark.parametrize("name", ["geometric-5", "uniform-5-25", "pareto-3.5", "empirical-log10"])
def test_sample_table_shape_and_law(name):
    dist = CASES[name]
    horizon, k = 20_000, 5
    t = sample_table(dist, rng_for(name, 2), horizon, k)
    assert t.shape == (horizon, k) and t.dtype == np.int64
    x = t.astype(float).ravel()
    se = x.std(ddof=1) / math.sqrt(x.size)
    assert abs(x.mean() - dist.mean) <= Z * se + EPS


def test_per_arm_sample_table_uses_one_law_per_column():
    arms = (Geometric(1.0), Uniform(100, 120), Poisson(30.0), Pareto(3.5), Exponential(50.0, 75))
    dist = PerArm(arms)
    horizon = 40_000
    t = sample_table(dist, np.random.default_rng([SEED_BASE, 200]), horizon, len(arms))
    assert t.shape == (horizon, len(arms)) and t.dtype == np.int64
    for k, arm in enumerate(arms):
        col = t[:, k].astype(float)
        se = col.std(ddof=1) / math.sqrt(horizon)
        assert abs(col.mean() - arm.mean) <= Z * se + EPS, (k, col.mean(), arm.mean)
    assert t[:, 1].min() >= 100 and t[:, 1].max() <= 120
    assert t[:, 3].min() >= 1
    assert t[:, 4].max() <= 75
    # Columns really are different laws: e.g. arm 0 (mean 1) vs arm 2 (mean 30).
    assert t[:, 2].mean() - t[:, 0].mean() > 20


def test_per_arm_arm_count_mismatch_raises():
    dist = PerArm((Geometric(1.0), Poisson(3.0)))
    with pytest.raises(ConfigError, match=r"2 entries.*3 arms"):
        sample_table(dist, np.random.default_rng(0), 10, 3)
    with pytest.raises(ConfigError):
        sample_table(dist, np.random.default_rng(0), 10, 1)


# ---------------------------------------------------------------------------------------------
# 4. from_spec
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec,expected",
    [
        ({"kind": "uniform", "low": 0, "high": 100}, Uniform(0, 100)),
        ({"kind": "uniform", "low": 3.0, "high": 3}, Uniform(3, 3)),
        ({"kind": "geometric", "mean": 500}, Geometric(500.0)),
        ({"kind": "exponential", "mean": 50}, Exponential(50.0)),
        ({"kind": "exponential", "mean": 50, "bound": 75}, Exponential(50.0, 75)),
        ({"kind": "exponential", "mean": 50, "bound": 250}, Exponential(50.0, 250)),
        ({"kind": "poisson", "rate": 2.5}, Poisson(2.5)),
        ({"kind": "halfnormal", "sigma": 4}, HalfNormal(4.0)),
        ({"kind": "pareto", "alpha": 0.3}, Pareto(0.3)),
        ({"kind": "packet_loss", "p": 0.25}, PacketLoss(0.25)),
        ({"kind": "empirical", "probs": [0, 0.5, 0.8, 1], "values": [0, 10, 12.5, 40]}, LIN_TABLE),
        (
            {
                "kind": "empirical",
                "probs": [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1],
                "values": [1, 2, 2.7, 3.3, 4, 4.8, 5.5],
                "scale": 0.01,
                "log10": True,
            },
            LOG_TABLE,
        ),
        (
            {
                "kind": "per_arm",
                "arms": [
                    {"kind": "geometric", "mean": 1},
                    {"kind": "uniform", "low": 1, "high": 2},
                ],
            },
            PerArm((Geometric(1.0), Uniform(1, 2))),
        ),
    ],
)
def test_from_spec_builds(spec, expected):
    built = from_spec(spec)
    assert built == expected
    assert type(built) is type(expected)


def test_from_spec_geometric_q():
    g = from_spec({"kind": "geometric", "mean": 3})
    assert g.q == pytest.approx(0.75)


@pytest.mark.parametrize(
    "spec,fragments",
    [
        ({"kind": "gamma", "mean": 3}, ["delay.kind", "'gamma'", *KINDS]),
        ({"mean": 3}, ["delay.kind", "None", *KINDS]),
        ({"kind": "geometric"}, ["missing key 'mean'", "geometric"]),
        ({"kind": "uniform", "low": 0}, ["missing key 'high'"]),
        ({"kind": "poisson"}, ["missing key 'rate'"]),
        ({"kind": "halfnormal"}, ["missing key 'sigma'"]),
        ({"kind": "pareto"}, ["missing key 'alpha'"]),
        ({"kind": "exponential", "bound": 75}, ["missing key 'mean'"]),
        ({"kind": "geometric", "mean": 5, "bound": 10}, ["unknown key", "'bound'", "'mean'"]),
        ({"kind": "uniform", "low": 0, "high": 5, "mean": 2}, ["unknown key", "'mean'", "'high'"]),
        ({"kind": "pareto", "alpha": 2, "scale": 1, "shape": 2}, ["'scale'", "'shape'"]),
        ({"kind": "geometric", "mean": -1}, ["delay.mean", "> 0"]),
        ({"kind": "geometric", "mean": 0}, ["delay.mean", "> 0"]),
        ({"kind": "exponential", "mean": -50, "bound": 75}, ["delay.mean", "> 0"]),
        ({"kind": "poisson", "rate": -2}, ["delay.rate"]),
        ({"kind": "halfnormal", "sigma": -1.0}, ["delay.sigma"]),
        ({"kind": "pareto", "alpha": 0}, ["delay.alpha"]),
        ({"kind": "geometric", "mean": "50"}, ["delay.mean", "expected a finite number"]),
        ({"kind": "geometric", "mean": True}, ["delay.mean", "expected a finite number"]),
        ({"kind": "uniform", "low": 5, "high": 2}, ["low <= high"]),
        ({"kind": "uniform", "low": -1, "high": 2}, ["low <= high"]),
        ({"kind": "uniform", "low": 0.5, "high": 2}, ["integers"]),
        ({"kind": "exponential", "mean": 50, "bound": -1}, ["delay.bound"]),
        ({"kind": "exponential", "mean": 50, "bound": 7.5}, ["delay.bound"]),
        ({"kind": "empirical", "probs": [0, 1], "values": [0, 1, 2]}, ["equal length"]),
        ({"kind": "empirical", "probs": [1], "values": [3]}, ["equal length >= 2"]),
        ({"kind": "empirical", "values": [0, 1]}, ["probs and values"]),
        ({"kind": "empirical", "probs": 0.5, "values": [0, 1]}, ["probs and values"]),
        (
            {"kind": "empirical", "probs": [0.1, 1], "values": [0, 1]},
            ["probs must rise from 0 to 1"],
        ),
        (
            {"kind": "empirical", "probs": [0, 0.9], "values": [0, 1]},
            ["probs must rise from 0 to 1"],
        ),
        (
            {"kind": "empirical", "probs": [0, 0.6, 0.4, 1], "values": [0, 1, 2, 3]},
            ["probs must rise"],
        ),
        (
            {"kind": "empirical", "probs": [0, 0.5, 1], "values": [0, 2, 1]},
            ["values must not decrease"],
        ),
        ({"kind": "empirical", "probs": [0, 1], "values": [0, 1], "scale": -0.01}, ["delay.scale"]),
        ({"kind": "empirical", "probs": [0, 1], "values": [0, 1], "bins": 3}, ["'bins'"]),
        ({"kind": "packet_loss", "p": 1}, ["delay.p", "must be in (0, 1)"]),
        ({"kind": "packet_loss", "p": 0}, ["delay.p", "must be > 0"]),
        ({"kind": "packet_loss"}, ["missing key 'p'"]),
        ({"kind": "per_arm", "arms": []}, ["delay.arms", "non-empty"]),
        ({"kind": "per_arm"}, ["delay.arms", "non-empty"]),
        (
            {
                "kind": "per_arm",
                "arms": [{"kind": "geometric", "mean": 1}, {"kind": "geometric", "mean": -1}],
            },
            ["delay.arms[1].mean"],
        ),
        ({"kind": "per_arm", "arms": [{"kind": "nope"}]}, ["delay.arms[0].kind", *KINDS]),
        (
            {
                "kind": "per_arm",
                "arms": [{"kind": "per_arm", "arms": [{"kind": "poisson", "rate": 1}]}],
            },
            ["cannot be nested"],
        ),
    ],
)
def test_from_spec_errors(spec, fragments):
    with pytest.raises(ConfigError) as info:
        from_spec(spec)
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, (frag, msg)


def test_from_spec_error_names_where():
    with pytest.raises(ConfigError, match=r"^fig2\.settings\[0\]\.delay\.kind"):
        from_spec({"kind": "zipf"}, where="fig2.settings[0].delay")


def test_from_spec_rejects_negative_linear_empirical_values():
    with pytest.raises(ConfigError):
        from_spec({"kind": "empirical", "probs": [0, 1], "values": [-10, 10]})


def test_from_spec_per_arm_non_mapping_entry_is_config_error():
    with pytest.raises(ConfigError):
        from_spec({"kind": "per_arm", "arms": [5]})


def test_from_spec_non_numeric_empirical_values_is_config_error():
    with pytest.raises(ConfigError):
        from_spec({"kind": "empirical", "probs": [0, 1], "values": ["a", "b"]})


# ---------------------------------------------------------------------------------------------
# Empirical tables with atoms (repeated values), which from_spec allows ("must not decrease")
# ---------------------------------------------------------------------------------------------

ATOM_ON_GRID = Empirical(probs=(0.0, 0.3, 0.6, 1.0), values=(0.0, 5.0, 5.0, 20.0))
ATOM_AT_ZERO = Empirical(probs=(0.0, 0.2, 1.0), values=(0.0, 0.0, 10.0))


def test_atom_tables_are_accepted_by_from_spec():
    assert (
        from_spec({"kind": "empirical", "probs": [0, 0.3, 0.6, 1], "values": [0, 5, 5, 20]})
        == ATOM_ON_GRID
    )
    assert (
        from_spec({"kind": "empirical", "probs": [0, 0.2, 1], "values": [0, 0, 10]}) == ATOM_AT_ZERO
    )


def test_empirical_atom_on_grid_cdf():
    # D = floor(V); V has an atom of mass 0.3 at 5, so P(D <= 4) = P(V < 5) = 0.3.
    assert float(ATOM_ON_GRID.cdf(4)) == pytest.approx(0.3)


def test_empirical_atom_at_zero_cdf_minus_one():
    assert float(ATOM_AT_ZERO.cdf(-1)) == 0.0


def test_empirical_atom_on_grid_frequencies():
    x = np.sort(ATOM_ON_GRID.sample(np.random.default_rng([SEED_BASE, 300]), N))
    for d in range(-1, 22):
        p = float(ATOM_ON_GRID.cdf(d))
        f = np.searchsorted(x, d, side="right") / N
        assert abs(f - p) <= Z * math.sqrt(p * (1 - p) / N) + EPS, (d, f, p)


# ---------------------------------------------------------------------------------------------
# 5. Geometric parameterisation
# ---------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(mu=st.floats(1e-3, 1e4, allow_nan=False, allow_infinity=False), d=st.integers(0, 100_000))
def test_geometric_q_and_survival(mu, d):
    g = Geometric(mu)
    assert g.q == mu / (mu + 1.0)
    surv = 1.0 - float(g.cdf(d))
    assert abs(surv - g.q ** (d + 1)) <= 4 * np.finfo(float).eps
    assert float(g.cdf(-1)) == 0.0


@pytest.mark.parametrize("mu", [0.5, 5.0, 50.0])
def test_geometric_survival_ratio(mu):
    g = Geometric(mu)
    d = np.arange(0, 2000)
    surv = 1.0 - g.cdf(d)
    # 1 - cdf has absolute error ~eps, so only compare where surv >= 1e-4 (ratio error < 1e-11).
    keep = surv[1:] >= 1e-4
    assert keep.sum() >= 5
    np.testing.assert_allclose(surv[1:][keep] / surv[:-1][keep], g.q, rtol=1e-10)


# ---------------------------------------------------------------------------------------------
# kind sample: the empirical law of a file of delays, one per line
# ---------------------------------------------------------------------------------------------

import hashlib  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import jsonschema  # noqa: E402

from delayed_bandits import config as config_module  # noqa: E402
from delayed_bandits.delays import Capped, Pooled, Sample, describe, files  # noqa: E402

WHERE = "papers.arena.regret.settings.mylaw.delay"
# A small sample with ties, a zero and a long delay: its law has atoms of different weights.
SAMPLE_DELAYS = [0, 3, 3, 7, 12, 12, 12, 40, 41, 250, 5, 3]
REPO = Path(__file__).resolve().parents[1]


def sample_file(tmp_path: Path, text: str | bytes, name: str = "delays.txt") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return str(path)


def sample_spec(path: str) -> dict:
    return {"kind": "sample", "path": path}


def build_sample(tmp_path: Path, delays_: list[int] = SAMPLE_DELAYS) -> Sample:
    law = from_spec(sample_spec(sample_file(tmp_path, "".join(f"{d}\n" for d in delays_))), WHERE)
    assert isinstance(law, Sample)
    return law


def test_sample_kind_is_declared():
    assert "sample" in KINDS
    assert KINDS[-1] == "per_arm"


def test_sample_from_spec_reads_the_file(tmp_path):
    text = "".join(f"{d}\n" for d in SAMPLE_DELAYS)
    path = sample_file(tmp_path, text)
    law = from_spec(sample_spec(path), WHERE)
    assert isinstance(law, Sample)
    assert law.path == path
    assert law.digest == hashlib.sha256(text.encode()).hexdigest()
    assert law.values.dtype == np.int64
    np.testing.assert_array_equal(law.values, np.sort(SAMPLE_DELAYS))
    assert not law.values.flags.writeable
    assert law == from_spec(sample_spec(path), WHERE)


def test_sample_cdf_mean_variance_are_the_samples(tmp_path):
    law, x = build_sample(tmp_path), np.array(SAMPLE_DELAYS)
    grid = np.arange(-3, x.max() + 4)
    np.testing.assert_array_equal(law.cdf(grid), [np.mean(x <= d) for d in grid])
    np.testing.assert_array_equal(law.cdf(grid + 0.5), law.cdf(grid))  # floors
    assert float(law.cdf(12)) == np.mean(x <= 12)
    assert float(law.cdf(-1)) == 0.0 and float(law.cdf(10**30)) == 1.0
    assert float(law.cdf(math.inf)) == 1.0
    assert law.mean == pytest.approx(np.mean(x), rel=1e-15)
    assert law.variance == pytest.approx(np.var(x), rel=1e-14)  # the law's: divides by n
    np.testing.assert_allclose(cdf_table(law, 300), [np.mean(x <= d) for d in range(301)])


def test_sample_moments_exact_for_huge_delays(tmp_path):
    big = [MAX_DELAY, MAX_DELAY - 1, 0]
    law = build_sample(tmp_path, big)
    s = sum(big)
    assert law.mean == s / 3
    assert law.variance == (3 * sum(b * b for b in big) - s * s) / 9


def test_sample_single_delay_is_a_point_mass(tmp_path):
    law = build_sample(tmp_path, [17])
    assert law.mean == 17.0 and law.variance == 0.0
    assert np.all(law.sample(np.random.default_rng(0), 100) == 17)


def test_sample_draws_follow_the_empirical_law(tmp_path):
    """Each distinct delay's frequency in N draws is within Z binomial standard errors of its
    weight in the sample, and the draws' mean within Z standard errors of the sample's mean."""
    law, x = build_sample(tmp_path), np.array(SAMPLE_DELAYS)
    draws_ = law.sample(np.random.default_rng([SEED_BASE, 9001]), N)
    assert draws_.dtype == np.int64 and draws_.shape == (N,)
    assert set(np.unique(draws_)) <= set(x)
    for value in np.unique(x):
        p = np.mean(x == value)
        assert abs(np.mean(draws_ == value) - p) <= Z * math.sqrt(p * (1 - p) / N) + EPS, value
    assert abs(draws_.mean() - law.mean) <= Z * math.sqrt(law.variance / N)


def test_sample_sampling_is_reproducible(tmp_path):
    law = build_sample(tmp_path)
    a = law.sample(np.random.default_rng(7), 1000)
    b = law.sample(np.random.default_rng(7), 1000)
    np.testing.assert_array_equal(a, b)


def test_sample_as_an_arm_of_per_arm_and_pooled(tmp_path):
    path = sample_file(tmp_path, "".join(f"{d}\n" for d in SAMPLE_DELAYS))
    law = from_spec(
        {"kind": "per_arm", "arms": [sample_spec(path), {"kind": "geometric", "mean": 5}]}, WHERE
    )
    assert isinstance(law, PerArm) and isinstance(law.arms[0], Sample)
    table = sample_table(law, np.random.default_rng([SEED_BASE, 9002]), 50_000, 2)
    assert table.shape == (50_000, 2)
    assert set(np.unique(table[:, 0])) <= set(SAMPLE_DELAYS)
    assert abs(table[:, 1].mean() - 5.0) <= Z * math.sqrt(30.0 / 50_000)

    pooled = Pooled(law.arms)
    x, grid = np.array(SAMPLE_DELAYS), np.arange(0, 60)
    np.testing.assert_allclose(
        pooled.cdf(grid), (np.array([np.mean(x <= d) for d in grid]) + Geometric(5.0).cdf(grid)) / 2
    )
    assert pooled.mean == pytest.approx((np.mean(x) + 5.0) / 2)
    second = (np.var(x) + np.mean(x) ** 2 + 30.0 + 25.0) / 2
    assert pooled.variance == pytest.approx(second - pooled.mean**2)
    draws_ = pooled.sample(np.random.default_rng([SEED_BASE, 9003]), N)
    for d in (0, 3, 12, 41):
        p = float(pooled.cdf(d))
        assert abs(np.mean(draws_ <= d) - p) <= Z * math.sqrt(p * (1 - p) / N) + EPS


def test_sample_single_law_table_and_capped(tmp_path):
    law, x = build_sample(tmp_path), np.array(SAMPLE_DELAYS)
    table = sample_table(law, np.random.default_rng(3), 100, 4)
    assert table.shape == (100, 4) and set(np.unique(table)) <= set(x)
    capped = Capped(law, 20)
    assert capped.mean == pytest.approx(np.mean(np.minimum(x, 20)))
    assert capped.variance == pytest.approx(np.var(np.minimum(x, 20)))


@pytest.mark.parametrize(
    "text",
    [
        "12\n0\n7\n",
        "12\n0\n7",
        "  12\t\n0 \n\t7\n",
        "12\r\n0\r\n7\r\n",
        "\ufeff12\n0\n7\n",
        "012\n00\n7\n",
    ],
)
def test_sample_file_layouts_accepted(tmp_path, text):
    law = from_spec(sample_spec(sample_file(tmp_path, text.encode("utf-8"))), WHERE)
    np.testing.assert_array_equal(law.values, [0, 7, 12])


def test_sample_missing_file(tmp_path):
    path = str(tmp_path / "nope" / "delays.txt")
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: .*{re.escape(repr(path))}"
        r".*does not exist.*relative path is read from the "
        r"working directory.*repository root",
    ):
        from_spec(sample_spec(path), WHERE)


def test_sample_missing_relative_file_names_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(
        ConfigError,
        match=rf"{re.escape(WHERE)}\.path: .*'logs/delays\.txt' does "
        rf"not exist.*{re.escape(str(tmp_path))}",
    ):
        from_spec(sample_spec("logs/delays.txt"), WHERE)


def test_sample_relative_path_is_read_from_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "delays.txt").write_text("4\n2\n")
    monkeypatch.chdir(tmp_path)
    law = from_spec(sample_spec("logs/delays.txt"), WHERE)
    assert law.path == "logs/delays.txt" and law.mean == 3.0


def test_sample_directory(tmp_path):
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: .* is a directory; "
        r"expected a file of delays, one delay per line",
    ):
        from_spec(sample_spec(str(tmp_path)), WHERE)


@pytest.mark.parametrize("text", ["", "\n", "  \n\n", "\ufeff"])
def test_sample_empty_file(tmp_path, text):
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: delay sample file .* holds "
        r"no delays; expected one delay per line",
    ):
        from_spec(sample_spec(sample_file(tmp_path, text.encode("utf-8"))), WHERE)


@pytest.mark.parametrize(
    "text,line,shown",
    [
        ("1\n2\n12.0\n", 3, "'12.0'"),
        ("abc\n", 1, "'abc'"),
        ("delay\n5\n", 1, "'delay'"),  # a header
        ("# from the logs\n5\n", 1, "'# from the logs'"),  # a comment
        ("5\n1e3\n", 2, "'1e3'"),
        ("5\n+12\n", 2, "'+12'"),
        ("5\n1_000\n", 2, "'1_000'"),
        ("5\n12 13\n", 2, "'12 13'"),
        ("5\n6\n12,5\n", 3, "'12,5'"),
        ("5\n\u0661\u0662\n", 2, "'\u0661\u0662'"),  # digits, but not ASCII ones
        ("5\n" + "x" * 100 + "\n", 2, "'" + "x" * 37 + "...'"),
    ],
)
def test_sample_line_not_an_integer(tmp_path, text, line, shown):
    path = sample_file(tmp_path, text)
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: delay sample file "
        rf"{re.escape(repr(path))} line {line}: "
        rf"{re.escape(shown)} is not an integer; expected one "
        r"delay per line, a non-negative integer written in "
        r"digits like 12 \(not 12\.0",
    ):
        from_spec(sample_spec(path), WHERE)


@pytest.mark.parametrize(
    "text,line", [("5\n\n7\n", 2), ("5\n7\n\n", 3), ("\n5\n", 1), ("5\n  \t\n7\n", 2)]
)
def test_sample_blank_line(tmp_path, text, line):
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: delay sample file .* "
        rf"line {line} is blank; .*missing value",
    ):
        from_spec(sample_spec(sample_file(tmp_path, text)), WHERE)


def test_sample_negative_delay(tmp_path):
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: delay sample file .* "
        r"line 4: delay -3 is negative; delays must be >= 0",
    ):
        from_spec(sample_spec(sample_file(tmp_path, "1\n2\n3\n-3\n")), WHERE)


def test_sample_delay_too_large(tmp_path):
    with pytest.raises(
        ConfigError,
        match=rf"^{re.escape(WHERE)}\.path: .* line 2: delay "
        rf"{MAX_DELAY + 1} exceeds the largest delay allowed",
    ):
        from_spec(sample_spec(sample_file(tmp_path, f"1\n{MAX_DELAY + 1}\n")), WHERE)


def test_sample_not_utf8(tmp_path):
    with pytest.raises(ConfigError, match=rf"^{re.escape(WHERE)}\.path: .* line 2 is not UTF-8"):
        from_spec(sample_spec(sample_file(tmp_path, b"1\n\xff\xfe2\n")), WHERE)


@pytest.mark.parametrize(
    "spec,pattern",
    [
        ({"kind": "sample"}, rf"^{re.escape(WHERE)}: missing key 'path' for delay kind 'sample'"),
        (
            {"kind": "sample", "path": "x", "mean": 3},
            rf"^{re.escape(WHERE)}: unknown key\(s\) \['mean'\] for kind 'sample'; allowed: \['path'\]",
        ),
        ({"kind": "sample", "path": 5}, rf"^{re.escape(WHERE)}\.path: expected the path of a file"),
        (
            {"kind": "sample", "path": ""},
            rf"^{re.escape(WHERE)}\.path: expected the path of a file",
        ),
    ],
)
def test_sample_spec_errors(spec, pattern):
    with pytest.raises(ConfigError, match=pattern):
        from_spec(spec, WHERE)


def test_sample_error_inside_per_arm_names_the_arm(tmp_path):
    path = sample_file(tmp_path, "1\nx\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(WHERE)}\.arms\[1\]\.path: .* line 2"):
        from_spec(
            {"kind": "per_arm", "arms": [{"kind": "geometric", "mean": 1}, sample_spec(path)]},
            WHERE,
        )


def test_sample_edited_file_is_read_again(tmp_path):
    path = sample_file(tmp_path, "1\n2\n")
    first = from_spec(sample_spec(path), WHERE)
    Path(path).write_text("1\n2\n30\n")
    second = from_spec(sample_spec(path), WHERE)
    assert second.values.size == 3 and second.digest != first.digest and second != first


def test_files_lists_every_sample_path():
    assert files({"kind": "geometric", "mean": 5}) == []
    assert files(sample_spec("logs/a.txt")) == ["logs/a.txt"]
    nested = {
        "kind": "per_arm",
        "arms": [
            sample_spec("logs/a.txt"),
            {"kind": "uniform", "low": 0, "high": 3},
            sample_spec("logs/b.txt"),
            sample_spec("logs/a.txt"),
        ],
    }
    assert files(nested) == ["logs/a.txt", "logs/b.txt"]
    assert files({"kind": "nope"}) == []


def test_describe_sample(tmp_path):
    path = sample_file(tmp_path, "".join(f"{d % 97}\n" for d in range(1234)))
    assert describe(sample_spec(path)) == f"sample of 1,234 delays from {path}"
    assert describe(sample_spec(sample_file(tmp_path, "4\n", "one.txt"))).startswith(
        "sample of 1 delay from "
    )
    assert (
        describe({"kind": "per_arm", "arms": [sample_spec(path), {"kind": "geometric", "mean": 5}]})
        == f"[sample of 1,234 delays from {path}, geometric(mean=5)]"
    )
    assert (
        describe(sample_spec(str(tmp_path / "gone.txt"))) == f"sample from {tmp_path / 'gone.txt'}"
    )


def test_example_sample_file_is_valid():
    law = from_spec(sample_spec(str(REPO / "config" / "delays" / "example-sample.txt")), WHERE)
    assert isinstance(law, Sample) and law.values.size == 300
    # drawn once from a geometric law of mean 50 (variance 50 * 51)
    assert abs(law.mean - 50.0) <= Z * math.sqrt(50.0 * 51.0 / 300)


@pytest.mark.parametrize(
    "spec,valid",
    [
        ({"kind": "sample", "path": "logs/delays.txt"}, True),
        ({"kind": "sample"}, False),
        ({"kind": "sample", "path": ""}, False),
        ({"kind": "sample", "path": 3}, False),
    ],
)
def test_sample_in_the_config_schema(spec, valid):
    base = config_module.schemas()["config.schema.yaml"]
    assert "sample" in base["$defs"]["delay"]["properties"]["kind"]["enum"]
    validator = jsonschema.Draft202012Validator(base["$defs"]["delay"])
    assert validator.is_valid(spec) is valid


@pytest.mark.parametrize("p", [0.25, 0.75])
def test_packet_loss_is_at_once_or_never(p):
    """D = 0 with probability 1 - p, else MAX_DELAY (never), within Z binomial standard errors;
    tau is 1 - p at every d >= 0; censored at m the delay has mean p m and variance p (1 - p) m^2."""
    law = PacketLoss(p)
    draws = law.sample(np.random.default_rng(11), N)
    assert set(np.unique(draws)) == {0, MAX_DELAY}
    assert abs((draws == MAX_DELAY).mean() - p) <= Z * math.sqrt(p * (1 - p) / N)
    assert list(law.cdf(np.array([-1, 0, 200, 10**15, MAX_DELAY]))) == [0, 1 - p, 1 - p, 1 - p, 1]
    assert math.isinf(law.mean) and math.isinf(law.variance)
    capped = Capped(law, 200)
    assert capped.mean == pytest.approx(p * 200)
    assert capped.variance == pytest.approx(p * (1 - p) * 200**2)
