"""The tie rule keeps its stated error rates (``ties.excess``, ``ties.verdict``): a cell whose
true mean is exactly at the equivalence margin is called tied-best at most (1 - confidence) / 2
of the time, whether its runs are unimodal or bimodal (some runs stuck on a worse arm), and the
simultaneous interval covers every cell's true excess at the stated rate. Seeded tables of 80
paired runs (the full scale's count); tolerances are 3 binomial standard errors of the rate
over the tables."""

from __future__ import annotations

import math

import numpy as np

from delayed_bandits.arena import leaderboard, ties

N, TABLES, RESAMPLES = 80, 400, 1000
CONFIDENCE, MARGIN = ties.STATISTICS["confidence"], ties.STATISTICS["tie_margin"]
NOMINAL = (1 - CONFIDENCE) / 2  # a one-sided error: called tied-best although not within


def _tolerance(rate: float) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / TABLES)


def _stuck(rng: np.random.Generator, mean: float, share: float, scale: float) -> np.ndarray:
    """Runs of a bimodal cell with the given true ``mean``: a ``share`` of them stuck at ``scale``
    times the others' level (a learner that never found the best arm)."""
    level = mean / (1 - share + share * scale)
    stuck = rng.random(N) < share
    return np.where(stuck, scale * level, level) * rng.gamma(50.0, 1 / 50.0, N)


def _tables(make, seed: int):
    """(runs, true means, resample weights) of ``TABLES`` seeded tables from ``make(rng)``."""
    rng = np.random.default_rng(seed)
    for i in range(TABLES):
        runs, means = make(rng)
        yield runs, means, leaderboard.resample_weights(N, RESAMPLES, np.random.SeedSequence(i))


def _at_margin(bimodal: bool):
    """A best cell (mean 100), a cell exactly at the margin (mean 110) sharing its environment,
    and a clearly worse one: the one at the margin is not within it."""

    def make(rng: np.random.Generator):
        shared = rng.gamma(8.0, 12.5, N)  # mean 100
        best = shared + rng.normal(0.0, 10.0, N)
        if bimodal:
            edge = _stuck(rng, 110.0, 0.1, 8.0)
        else:
            edge = 1.1 * shared + rng.normal(0.0, 10.0, N)
        worse = 2 * shared + rng.normal(0.0, 20.0, N)
        return np.column_stack([best, edge, worse]), np.array([100.0, 110.0, 200.0])

    return make


def _rates(make, seed: int) -> tuple[float, float]:
    """(the share of tables where column 1 is called tied-best, the share where the simultaneous
    interval misses the true excess of some column)."""
    tied = missed = 0
    for runs, means, w in _tables(make, seed):
        _, lower, upper = ties.excess(runs, w, MARGIN, CONFIDENCE)
        truth = means - (1 + MARGIN) * means.min()
        tied += ties.verdict(lower, upper)[1] == ties.TIED
        missed += bool(((truth < lower) | (truth > upper)).any())
    return tied / TABLES, missed / TABLES


def test_a_cell_at_the_margin_is_rarely_called_tied_best() -> None:
    false_tie, missed = _rates(_at_margin(bimodal=False), seed=11)
    assert false_tie <= NOMINAL + _tolerance(NOMINAL), false_tie
    assert missed <= 1 - CONFIDENCE + _tolerance(1 - CONFIDENCE), missed


def test_a_bimodal_cell_at_the_margin_is_rarely_called_tied_best() -> None:
    """10 % of the cell's runs stuck at 8 times the others' regret: the sample mean is skewed,
    the samples with few stuck runs look better than the truth, and the percentile interval of
    the difference from the sample best called this cell tied-best in 30 % of the tables (the
    rule until the fourth edition); the studentized resamples keep the rate. A rarer failure
    (5 % of runs) pushes it to about 5 %, and one well below 1/80 no rule on 80 runs can see
    (docs/decisions/arena.md#failures)."""
    false_tie, missed = _rates(_at_margin(bimodal=True), seed=12)
    assert false_tie <= NOMINAL + _tolerance(NOMINAL), false_tie
    assert missed <= 1 - CONFIDENCE + _tolerance(1 - CONFIDENCE), missed


def test_the_sample_best_gets_no_free_tie() -> None:
    """Two cells with the same true mean and runs too noisy to show either within 10 % of the
    other: the one with the lower sample mean is inconclusive, not tied-best by construction."""
    rng = np.random.default_rng(3)
    runs = rng.gamma(1.0, 100.0, (N, 2))
    w = leaderboard.resample_weights(N, RESAMPLES, np.random.SeedSequence(0))
    theta, lower, upper = ties.excess(runs, w, MARGIN, CONFIDENCE)
    best = int(np.argmin(runs.mean(axis=0)))
    assert theta[best] < 0 < upper[best]
    assert ties.verdict(lower, upper)[best] == ties.INCONCLUSIVE


def test_precise_runs_decide_both_ways() -> None:
    """The power side: with low noise, a cell 2 % above the best is tied-best (the best too) and
    one 30 % above is worse."""
    rng = np.random.default_rng(4)
    shared = rng.gamma(8.0, 12.5, N)
    runs = np.column_stack([shared, 1.02 * shared, 1.3 * shared]) + rng.normal(0, 1.0, (N, 3))
    w = leaderboard.resample_weights(N, RESAMPLES, np.random.SeedSequence(0))
    _, lower, upper = ties.excess(runs, w, MARGIN, CONFIDENCE)
    assert list(ties.verdict(lower, upper)) == [ties.TIED, ties.TIED, ties.WORSE]


def test_a_rarely_stuck_cell_does_not_widen_the_others() -> None:
    """Three tight cells (the best, one 2 % above, one 30 % above) and a fourth whose runs are
    stuck in 3 of 80: about 5 % of the resamples miss all three stuck runs and have almost no
    spread, so that cell's studentized deviations are huge. One critical value for the largest
    deviation over all pairs took them on for every pair and left all four inconclusive; each
    pair at its own tail decides the tight cells as the previous test does."""
    rng = np.random.default_rng(5)
    shared = rng.gamma(8.0, 12.5, N)
    tight = [c * shared + rng.normal(0, 1.0, N) for c in (1.0, 1.02, 1.3)]
    stuck = np.r_[np.full(N - 3, 500.0), np.full(3, 10000.0)] + rng.normal(0, 5.0, N)
    w = leaderboard.resample_weights(N, RESAMPLES, np.random.SeedSequence(0))
    _, lower, upper = ties.excess(np.column_stack([*tight, stuck]), w, MARGIN, CONFIDENCE)
    assert list(ties.verdict(lower, upper)) == [ties.TIED, ties.TIED, ties.WORSE, ties.WORSE]


def test_the_failure_rule_counts_runs_still_linear_at_the_end() -> None:
    """A run that added 0.3 per round over the late rounds, with a smallest gap of 0.4, failed
    (0.3 >= 0.5 x 0.4); one that added 0.1 per round did not."""
    late = np.array([0.3 * 5000, 0.1 * 5000])
    assert list(ties.failed(late, 5000, 0.4)) == [True, False]


def test_one_run_apart_leaves_the_cells_it_touches_undecided(recwarn) -> None:
    """Seventy-nine equal runs and one stuck run: a third of the resamples leave the stuck run
    out and have no spread (to rounding), so the studentized deviation of the stuck cell is
    unbounded there, its critical value too, and both cells are inconclusive (no NaN, no
    warning). The balanced intervals keep that unbounded tail to the pairs it belongs to: the
    other cell's upper end stays finite."""
    runs = np.column_stack([np.full(N, 100.0), np.r_[np.full(N - 1, 100.0), 5000.0]])
    w = leaderboard.resample_weights(N, RESAMPLES, np.random.SeedSequence(0))
    _, lower, upper = ties.excess(runs, w, MARGIN, CONFIDENCE)
    assert upper[1] > 1e6 * runs.max() and np.isfinite(upper[0]) and not np.isnan(lower).any()
    assert list(ties.verdict(lower, upper)) == [ties.INCONCLUSIVE] * 2
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_the_balanced_ranks_are_a_search_of_each_sorted_column() -> None:
    """``ties._ranks`` (one sort of the whole table) gives what a left ``searchsorted`` of every
    entry in its own sorted column gives, on tables with ties, signed zeros, infinities and NaNs."""
    rng = np.random.default_rng(11)
    for trial in range(60):
        t = np.round(rng.normal(size=(int(rng.integers(1, 200)), int(rng.integers(1, 30)))), 1)
        u = rng.random(t.shape)
        t[u < 0.05], t[u > 0.95] = np.inf, -np.inf
        t[(u > 0.5) & (u < 0.53)], t[(u > 0.53) & (u < 0.56)] = 0.0, -0.0
        if trial % 3 == 0:
            t[(u > 0.3) & (u < 0.33)] = np.nan
        t[:, 0] = 0.0
        order = np.sort(t, axis=0)
        searched = np.stack(
            [np.searchsorted(order[:, j], t[:, j], side="left") for j in range(t.shape[1])],
            axis=1,
        )
        np.testing.assert_array_equal(ties._ranks(t), searched)
