"""The regret curves behind the arena's heatmap (kind ``arena_curves``): an A4 page per
problem (number of arms, base rate, gap) with a row per delay law, uncensored and censored side
by side, a colour per family of algorithms and a line style per member."""

from __future__ import annotations

import textwrap
from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import EngFormatter

from delayed_bandits import captions
from delayed_bandits.arena import leaderboard
from delayed_bandits.arena.entrants import LABELLED
from delayed_bandits.arena.views.common import (
    MARK,
    MARKS,
    PAGE,
    Problem,
    algorithm_labels,
    problem_rows,
    problem_title,
    problems,
    runs_note,
)
from delayed_bandits.arena.views.families import curve_styles, family_legend, legend_entries
from delayed_bandits.style import reader

CENSORED_FACE = "0.94"  # background of the curves' censored panels
TITLE_CHARS = 30  # a panel title's line, in characters: a quarter of the A4 page at 7 pt


def law_rows(board: pd.DataFrame) -> list[tuple[str | None, str | None]]:
    """(uncensored regime, censored regime) per delay law, in board order; None where the board
    has no such regime."""
    regimes = board.drop_duplicates("regime")
    rows: dict[str, list[str | None]] = {}
    for regime, law, censored in zip(regimes.regime, regimes.delay, regimes.censored.astype(bool)):
        rows.setdefault(law, [None, None])[int(censored)] = regime
    return [(plain, censored) for plain, censored in rows.values()]


def na_note(board: pd.DataFrame, problem: Problem) -> str:
    """Which algorithms do not apply where, on one problem: 'Not applicable (...): ODAAF † and
    ODAAF-V † under Pareto, α = 0.3 and Pareto, α = 1; ...', wrapped to the page."""
    labels = algorithm_labels(board)
    rows = problem_rows(board, problem)
    rows = rows[~rows.applicable.astype(bool)]
    where: dict[tuple[str, ...], list[str]] = {}
    for regime, cell in rows.groupby("regime", sort=False):
        algs = tuple(labels[a] for a in labels if a in set(cell.algorithm))
        where.setdefault(algs, []).append(str(cell.regime_label.iloc[0]))
    if not where:
        return ""
    parts = [f"{', '.join(algs)} under {'; '.join(laws)}" for algs, laws in where.items()]
    return textwrap.fill(
        "Not drawn where the algorithm's model does not cover the regime "
        "(reasons in the leaderboard): " + ". ".join(parts) + ".",
        int(15 * PAGE[0]),
    )


def curves_panel(
    ax: plt.Axes,
    by_curve: Mapping[tuple[str, str], pd.DataFrame],
    cell: pd.DataFrame,
    styles: Mapping[str, tuple[Any, Any]],
) -> float:
    """One setting (``cell``: its board rows): each applicable algorithm's mean regret with the
    band from the 5th to the 95th percentile of its runs (``q05``, ``q95``: a regret is never
    negative, nor is the band, where mean ± 2 SE would be) on a log y axis; a grey background if
    censored. Returns the lowest mean drawn above 0 (inf if none)."""
    setting, lowest = cell.setting.iloc[0], np.inf
    for alg in cell.algorithm[cell.applicable.astype(bool)]:
        if (setting, alg) not in by_curve:
            continue
        curve = by_curve[setting, alg].sort_values("t")
        colour, style = styles[alg]
        ax.plot(curve.t, curve["mean"], color=colour, linestyle=style, linewidth=1)
        ax.fill_between(
            curve.t,
            curve.q05,
            curve.q95,
            color=colour,
            alpha=0.12,
            linewidth=0,
        )
        positive = curve["mean"][curve["mean"] > 0]
        lowest = min(lowest, float(positive.min())) if len(positive) else lowest
    if cell.censored.iloc[0]:
        ax.set_facecolor(CENSORED_FACE)
    ax.set_yscale("log")  # a regime's worst regrets are orders of magnitude above its best
    ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    ax.tick_params(labelsize=7)
    return lowest


def curves_page(
    summary: pd.DataFrame,
    board: pd.DataFrame,
    fig_cfg: Mapping[str, Any],
    problem: Problem,
    page: int,
    pages: int,
) -> plt.Figure:
    """One problem's page: a pair of panels per delay law it is run under (sharing a log y axis;
    a grid value kept to some laws, ``only_with``, has fewer), uncensored on the left and
    censored on the right (grey), two laws a row, the legend by family and what does not apply
    below."""
    rows_of = problem_rows(board, problem)
    styles, rows = curve_styles(board), law_rows(rows_of)
    regime_labels = board.drop_duplicates("regime").set_index("regime").regime_label
    by_curve = dict(
        list(
            summary[summary.setting.isin(set(rows_of.setting))].groupby(
                ["setting", "algorithm"], sort=False
            )
        )
    )
    handles, labels, ncol = legend_entries(board, styles)
    legend_rows = len(labels) // ncol
    na_text = reader(na_note(board, problem))
    na_lines = na_text.count("\n") + 1 if na_text else 0
    fig = plt.figure(figsize=PAGE, layout="constrained")
    # two delay laws a row (four panels), so that ten laws leave each panel room; heights in
    # inches, each row's titles and ticks (about 0.5 in) taken off, so that the legend and the
    # note keep theirs
    lines = (len(rows) + 1) // 2
    foot_height = 0.16 * legend_rows + 0.13 * na_lines + 0.3
    row_height = (PAGE[1] - 0.9 - foot_height) / lines - 0.5
    spec = fig.add_gridspec(lines + 1, 4, height_ratios=[*[row_height] * lines, foot_height])
    for i, regimes in enumerate(rows):
        first, lowest = None, np.inf
        for j, regime in enumerate(regimes):
            if regime is None:
                continue
            ax = fig.add_subplot(spec[i // 2, 2 * (i % 2) + j], sharey=first)
            first = first or ax
            lowest = min(
                lowest, curves_panel(ax, by_curve, rows_of[rows_of.regime == regime], styles)
            )
            ax.set_xlim(0, fig_cfg["horizon"])
            # wrapped to the panel's width (a quarter of the page): long laws' titles would
            # run into the next panel's
            ax.set_title(
                reader(textwrap.fill(str(regime_labels[regime]), TITLE_CHARS)), fontsize=7, pad=3
            )
            if j == 0 and i % 2 == 0:
                ax.set_ylabel("pseudo-regret", fontsize=7)
            if i // 2 == lines - 1:
                ax.set_xlabel("round t", fontsize=7)
        if first is not None and np.isfinite(lowest):
            # a band reaching 0 would stretch the log axis down to where no mean is
            first.set_ylim(bottom=lowest / 2)
    foot = fig.add_subplot(spec[-1, :])
    family_legend(foot, handles, labels, ncol)
    foot.text(
        0.5,
        0.0,
        na_text,
        transform=foot.transAxes,
        ha="center",
        va="bottom",
        fontsize=6.5,
        color="0.3",
    )
    note = "per law: uncensored, then censored at the window m (grey)"
    shown = "".join(algorithm_labels(board).values())
    if MARK in shown:
        note += f"; {MARK} anonymous aggregate feedback"
    if MARKS[LABELLED] in shown:
        note += f"; {MARKS[LABELLED]} labelled outcomes (an oracle)"
    fig.suptitle(
        reader(
            f"{captions.title(fig_cfg)}: {problem_title(problem)} (page {page} of "
            f"{pages}, a page per problem)\nmean pseudo-regret against t, band: 5-95 % of "
            f"{runs_note(rows_of)}, T = {fig_cfg['horizon']:,}\n{note}"
        ),
        fontsize=9,
    )
    return fig


def curves(
    summary: pd.DataFrame, board: pd.DataFrame, fig_cfg: Mapping[str, Any]
) -> list[plt.Figure]:
    """Mean pseudo-regret against t (band: 5-95 % of the runs) of every applicable algorithm, a
    page per problem (``curves_page``): an A4 page each, where 112 panels on one would be
    unreadable. ``plotting.save`` writes every page to a PDF and the first to a PNG."""
    pages = problems(board)
    return [
        curves_page(summary, board, fig_cfg, problem, i, len(pages))
        for i, problem in enumerate(pages, 1)
    ]


def curves_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> list[plt.Figure]:
    """``curves`` of the summary, with the leaderboard's labels and applicability."""
    return curves(tables["summary"], leaderboard.display(tables["leaderboard"]), fig_cfg)
