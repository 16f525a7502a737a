"""What the arena's views share: the board's regimes and algorithms in display order, their
labels with the marks of their information models, and its problems (number of arms, base rate,
gap), each a panel of the heatmap and of the window study and a page of the curves."""

from __future__ import annotations

import pandas as pd

from delayed_bandits.arena.entrants import ANONYMOUS, INFORMATION, LABELLED, PUBLISHED

MARKS = {ANONYMOUS: "†", LABELLED: "‡"}  # information models marked after a row's label
MARK = MARKS[ANONYMOUS]


PAGE = (8.27, 11.69)  # inches: an A4 page, portrait


def regime_order(board: pd.DataFrame) -> list[str]:
    """Regimes in board order, the uncensored ones first: the censored block then repeats the
    delay laws with a window, so each law reads once in each block."""
    regimes = board.drop_duplicates("regime")
    censored = regimes.censored.astype(bool)
    return [*regimes.regime[~censored], *regimes.regime[censored]]


def algorithm_labels(board: pd.DataFrame) -> dict[str, str]:
    """Each algorithm's label, grouped by information model (``INFORMATION``'s order, board
    order within a model; the rows at the papers' constants after all of them), with its
    model's mark (``MARKS``: the anonymous and the labelled-outcome oracle ones)."""
    rows = board.drop_duplicates("algorithm")
    rank = {name: i for i, name in enumerate(INFORMATION)}
    later = rows.section.eq(PUBLISHED) if "section" in rows else False
    rows = rows.assign(later=later, model=rows.information.map(rank)).sort_values(
        ["later", "model"], kind="stable"
    )
    return {
        alg: f"{label} {MARKS[model]}" if model in MARKS else label
        for alg, label, model in zip(rows.algorithm, rows.label, rows.information)
    }


Problem = tuple[int, float, float]
"""(number of arms, base rate, gap): what a panel of the heatmap and a page of the curves show."""
PROBLEM = ["n_arms", "base_mean", "gap"]


def problems(board: pd.DataFrame) -> list[Problem]:
    """The board's problems (``Problem``), in board order."""
    keys = board[PROBLEM].drop_duplicates()
    return [(int(k), float(b), float(g)) for k, b, g in keys.itertuples(index=False)]


def problem_rows(board: pd.DataFrame, problem: Problem) -> pd.DataFrame:
    """The rows of ``board`` on one problem."""
    n_arms, base_mean, gap = problem
    return board[(board.n_arms == n_arms) & (board.base_mean == base_mean) & (board.gap == gap)]


def problem_title(problem: Problem) -> str:
    """A panel's problem: 'K = 10, μ = 0.02, gap 0.005' (μ the base rate, every arm's mean but
    the best's, which is μ + gap)."""
    n_arms, base_mean, gap = problem
    return f"K = {n_arms}, μ = {base_mean:g}, gap {gap:g}"


def runs_note(board: pd.DataFrame) -> str:
    """'100 runs', or '50-100 runs' when the curves differ (curves that do not apply have none)."""
    runs = board.n_runs[board.applicable.astype(bool)].dropna()
    low, high = int(runs.min()), int(runs.max())
    return f"{low} runs" if low == high else f"{low}-{high} runs"
