"""The arena leaderboard's statistics: bootstrap intervals that cover at their stated rate, the
equivalence rule for ties (its error rates: test_tie_coverage.py), numbers that do not depend on
the order of the input, and win counts that count the rule's decisions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

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
            "censored": True,  # uncensored, d-UCB would need the law's 0.99 quantile as its window
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
        found = leaderboard.compare(runs, w, stats, stats["confidence"])
        covered_diff += found["diff_lo"][1] <= true_gap <= found["diff_hi"][1]
    tolerance = 3 * math.sqrt(0.95 * 0.05 / tables)
    assert abs(covered_mean / tables - 0.95) <= tolerance, covered_mean
    assert abs(covered_diff / tables - 0.95) <= tolerance, covered_diff


def test_ties_are_an_equivalence_test_with_a_margin_relative_to_the_best() -> None:
    board = leaderboard.build(_raw(RUNS), FIG, 1, "regret")
    one = _matched(board)
    # the paired difference from the sample best, and its precision
    assert one.loc["patient", "diff_hi"] == 0 and one.loc["patient", "half_width"] == 0
    assert one.loc["patient", "precise"] and one.loc["d-ucb", "margin"] == pytest.approx(1.3)
    assert one.loc["d-ucb", "diff_lo"] == one.loc["d-ucb", "diff_hi"] == pytest.approx(0.5)
    # the excess over the margin: 13.5 - 1.1 x 13 for d-UCB
    assert one.loc["d-ucb", "excess"] == pytest.approx(-0.8)
    # four runs cannot show the sample best, nor d-UCB, within 10 % of the best: no free tie
    assert one.loc["patient", "verdict"] == "inconclusive" and not one.loc["patient", "tied_best"]
    assert one.loc["d-ucb", "verdict"] == "inconclusive"
    assert one.loc["uniform", "verdict"] == "worse" and one.loc["uniform", "diff_lo"] == 40
    # the per-run quantiles
    assert one.loc["uniform", "max"] == 56 and one.loc["uniform", "q50"] == pytest.approx(53)
    # forty runs (the same four, ten times) show both within the margin, QPM-D's spread not
    many = {name: np.tile(runs, 10) for name, runs in RUNS.items()}
    forty = _matched(leaderboard.build(_raw(many), {**FIG, "replications": 40}, 1, "regret"))
    assert forty.loc["patient", "verdict"] == forty.loc["d-ucb", "verdict"] == "tied-best"
    assert forty.loc["qpm-d-matched", "verdict"] == "inconclusive"
    assert forty.loc["uniform", "verdict"] == "worse"
    # within its model (labelled outcomes) QPM-D is alone: within the margin of itself
    assert forty.loc["qpm-d-matched", "model_verdict"] == "tied-best"


def test_same_numbers_whatever_the_order_of_the_input_and_another_seed_changes_them() -> None:
    raw = _raw(RUNS)
    board = leaderboard.build(raw, FIG, 1, "regret")
    shuffled = raw.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(board, leaderboard.build(shuffled, FIG, 1, "regret"))
    # another seed moves the resamples, and the simultaneous interval's ends with them (forty
    # runs: four give too few distinct resamples to move a quantile)
    many = _raw({name: np.tile(runs, 10) for name, runs in RUNS.items()})
    fig = {**FIG, "replications": 40}
    ends = [
        _matched(leaderboard.build(many, fig, seed, "regret")).loc["qpm-d-matched", "excess_hi"]
        for seed in (1, 2)
    ]
    assert ends[0] != ends[1]


def test_the_interval_of_a_mean_never_goes_below_zero() -> None:
    # a realised regret can be negative; the reported interval of the mean stays at 0 or above
    runs = {**RUNS, "d-ucb": np.array([-6.0, -4.0, 0.5, 1.0])}
    one = _matched(leaderboard.build(_raw(runs), FIG, 1, "regret"))
    assert one.loc["d-ucb", "regret_lo"] == 0 and one.loc["d-ucb", "regret_hi"] >= 0
    board = leaderboard.build(_raw(RUNS), FIG, 1, "regret")
    live = board[board.applicable]
    assert (live.regret_lo >= 0).all() and (live.regret_lo <= live.regret).all()
    assert (live.regret <= live.regret_hi).all()


def test_wins_count_the_decisions_of_the_tie_rule() -> None:
    # forty runs; setting one as RUNS, in two Patient and d-UCB trade places, far apart
    many = {name: np.tile(runs, 10) for name, runs in RUNS.items()}
    swapped = {**many, "d-ucb": np.tile(BASE - 8, 10), "patient": np.tile(BASE + 20, 10)}
    raw = pd.concat([_raw(many, ("one-K2-large",)), _raw(swapped, ("two-K2-large",))])
    board = leaderboard.build(raw, {**FIG, "replications": 40}, 1, "regret")
    wins = leaderboard.wins(board).set_index(["horizon", "field", "algorithm"])
    assert wins.loc[(100, MATCHED, "d-ucb"), ["wins", "worse", "outright"]].tolist() == [2, 0, 1]
    assert wins.loc[(100, MATCHED, "patient"), ["wins", "worse"]].tolist() == [1, 1]
    assert wins.loc[(100, MATCHED, "uniform"), ["wins", "worse"]].tolist() == [0, 2]
    assert (wins.wins + wins.worse + wins.inconclusive == wins.settings).all()
    assert (wins.base_mean == 0.4).all()


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
    decided = (one.verdict != "inconclusive").mean()
    assert report.all_decided == pytest.approx(decided) and decided < 1
    # one stage: all that decided them; the runs that would decide the others, from their excess
    assert report.all_decided_first == report.all_decided
    open_ = one[one.verdict == "inconclusive"].iloc[0]
    half = (open_.excess_hi - open_.excess_lo) / 2
    assert open_.runs_to_decide == pytest.approx(4 * (half / abs(open_.excess)) ** 2)
    assert (one[one.verdict != "inconclusive"].runs_to_decide == 0).all()
