"""The arena leaderboard's statistics: bootstrap intervals that cover at their stated rate, the
equivalence rule for ties, numbers that do not depend on the order of the input, and intervals
of the count of wins."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from delayed_bandits.arena import leaderboard
from delayed_bandits.arena.entrants import MATCHED

FIG = {
    "horizon": 100,
    "replications": 4,
    "checkpoints": 2,
    "algorithms": ["d-ucb", "patient", "qpm-d-matched", "uniform"],
    "grid": [
        {"key": "n_arms", "values": [2], "names": ["K2"]},
        {"key": "gap", "values": [0.2], "names": ["large"]},
    ],
    "settings": {
        name: {
            "delay": {"kind": "pareto", "alpha": 0.3},
            "censored": False,
            "window": 20,
            "base_mean": 0.4,
            "alpha_tilde": 0.3,
        }
        for name in ("one", "two")
    },
}
BASE = np.array([10.0, 12.0, 14.0, 16.0])  # the best's runs: mean 13, margin 0.1 x 13 = 1.3
RUNS = {
    "patient": BASE,
    "d-ucb": BASE + 0.5,  # 0.5 above in every resample: inside the margin
    "qpm-d-matched": BASE + np.array([0.0, 4.0, -2.0, 2.0]),  # mean 1, resamples -2 to 4
    "uniform": BASE + 40,
}


def _raw(runs: dict[str, np.ndarray], settings=("one-K2-large", "two-K2-large")) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"setting": s, "algorithm": a, "replication": r, "t": 100, "regret": x}
            for s in settings
            for a, values in runs.items()
            for r, x in enumerate(values)
        ]
    )


def _matched(board: pd.DataFrame, setting: str = "one-K2-large") -> pd.DataFrame:
    return board[(board.field == MATCHED) & (board.setting == setting)].set_index("algorithm")


def test_percentile_intervals_cover_a_known_mean_at_their_stated_rate() -> None:
    """Over 500 seeded tables of 80 runs (the full scale's count), the 95 % intervals of a mean
    and of a paired difference cover the true value in 95 % of them, within 3 binomial SE (the
    percentile bootstrap runs a little short at n = 80: its spread is the plug-in one)."""
    rng = np.random.default_rng(7)
    tables, n, true_gap = 500, 80, 0.3
    stats = {**leaderboard.STATISTICS, "resamples": 1000}
    covered_mean = covered_diff = 0
    for i in range(tables):
        shared = rng.normal(5.0, 1.0, n)  # the paired runs share their environment
        runs = np.column_stack([shared, shared + true_gap + rng.normal(0.0, 0.5, n)])
        w = leaderboard.resample_weights(n, stats["resamples"], np.random.SeedSequence(i))
        lo, hi = leaderboard.interval(w @ runs[:, 0], stats["confidence"])
        covered_mean += lo <= 5.0 <= hi
        found = leaderboard.compare(runs, w, stats)
        covered_diff += found["diff_lo"][1] <= true_gap <= found["diff_hi"][1]
    tolerance = 3 * math.sqrt(0.95 * 0.05 / tables)
    assert abs(covered_mean / tables - 0.95) <= tolerance, covered_mean
    assert abs(covered_diff / tables - 0.95) <= tolerance, covered_diff


def test_ties_are_an_equivalence_test_with_a_margin_relative_to_the_best() -> None:
    board = leaderboard.build(_raw(RUNS), FIG, 1, "regret")
    one = _matched(board)
    assert one.loc["patient", "verdict"] == "tied-best" and one.loc["patient", "diff_hi"] == 0
    assert one.loc["patient", "half_width"] == 0 and one.loc["patient", "precise"]
    assert one.loc["d-ucb", "margin"] == pytest.approx(1.3)
    assert one.loc["d-ucb", "diff_lo"] == one.loc["d-ucb", "diff_hi"] == pytest.approx(0.5)
    assert one.loc["d-ucb", "tied_best"] and one.loc["d-ucb", "verdict"] == "tied-best"
    spread = one.loc["qpm-d-matched"]
    assert spread.diff_lo < 1.3 < spread.diff_hi and not spread.tied_best
    assert spread.verdict == "inconclusive"
    assert one.loc["uniform", "verdict"] == "worse" and one.loc["uniform", "diff_lo"] == 40
    # within its model (labelled outcomes) QPM-D is alone, so its own best
    assert spread.model_verdict == "tied-best" and spread.model_tied_best
    # the per-run quantiles
    assert one.loc["uniform", "max"] == 56 and one.loc["uniform", "q50"] == pytest.approx(53)


def test_same_numbers_whatever_the_order_of_the_input_and_another_seed_changes_them() -> None:
    raw = _raw(RUNS)
    board = leaderboard.build(raw, FIG, 1, "regret")
    shuffled = raw.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(board, leaderboard.build(shuffled, FIG, 1, "regret"))
    other = leaderboard.build(raw, FIG, 2, "regret")
    # four runs give few distinct intervals; the share of tied resamples shows the draws moved
    shares = [_matched(b).loc["qpm-d-matched", "tie_share"] for b in (board, other)]
    assert 0 < shares[0] < 1 and shares[0] != shares[1]


def test_the_interval_of_a_mean_never_goes_below_zero() -> None:
    # a realised regret can be negative; the reported interval of the mean stays at 0 or above
    runs = {**RUNS, "d-ucb": np.array([-6.0, -4.0, 0.5, 1.0])}
    one = _matched(leaderboard.build(_raw(runs), FIG, 1, "regret"))
    assert one.loc["d-ucb", "regret_lo"] == 0 and one.loc["d-ucb", "regret_hi"] >= 0
    board = leaderboard.build(_raw(RUNS), FIG, 1, "regret")
    live = board[board.applicable]
    assert (live.regret_lo >= 0).all() and (live.regret_lo <= live.regret).all()
    assert (live.regret <= live.regret_hi).all()


def test_wins_come_with_an_interval_that_holds_the_count() -> None:
    # setting one as above; in two Patient and d-UCB trade places, far apart
    raw = pd.concat(
        [
            _raw(RUNS, ("one-K2-large",)),
            _raw({**RUNS, "d-ucb": BASE - 8, "patient": BASE + 20}, ("two-K2-large",)),
        ]
    )
    board = leaderboard.build(raw, FIG, 1, "regret")
    wins = leaderboard.wins(board).set_index(["horizon", "field", "algorithm"])
    assert wins.loc[(100, MATCHED, "d-ucb"), "wins"] == 2
    assert wins.loc[(100, MATCHED, "patient"), "wins"] == 1
    assert wins.loc[(100, MATCHED, "uniform"), ["wins", "wins_lo", "wins_hi"]].tolist() == [0, 0, 0]
    assert (wins.wins_lo <= wins.wins).all() and (wins.wins <= wins.wins_hi).all()
    assert (wins.model_wins_lo <= wins.model_wins).all()
    assert (wins.model_wins <= wins.model_wins_hi).all()
    assert (wins.base_mean == 0.4).all()


def test_the_count_interval_is_the_poisson_binomial_one() -> None:
    """Settings won each with probability p: the count is binomial when p is the same."""
    shares = np.full(100, 0.5)
    expected = (int(sps.binom.ppf(0.025, 100, 0.5)), int(sps.binom.ppf(0.975, 100, 0.5)))
    assert leaderboard._count_interval(shares, 0.95) == expected
    assert leaderboard._count_interval(np.array([1.0, 1.0, 0.0]), 0.95) == (2, 2)


def test_precision_report_counts_the_cells_that_reach_the_stated_precision() -> None:
    board = leaderboard.build(_raw(RUNS), FIG, 1, "regret")
    cells = leaderboard.precision_cells(board)
    assert "patient" not in set(cells.algorithm)  # the best is left out
    one = cells[(cells.field == MATCHED) & (cells.setting == "one-K2-large")]
    one = one.set_index("algorithm")
    cell = one.loc["qpm-d-matched"]
    assert cell.runs_needed == pytest.approx(4 * (cell.half_width / 1.3) ** 2)
    assert not cell.precise and cell.runs_needed > 4
    assert one.loc["d-ucb", "precise"] and one.loc["d-ucb", "runs_needed"] == 0  # half-width 0
    assert one.loc["d-ucb", "contender"] and not one.loc["uniform", "contender"]
    report = leaderboard.precision_report(board).set_index("field").loc[MATCHED]
    assert report.all_cells == 2 * len(one)  # two settings alike
    assert report.all_precise == pytest.approx(one.precise.mean())
    assert report.contenders_cells == 2 * one.contender.sum()
