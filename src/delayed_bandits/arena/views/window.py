"""The arena's window study (kind ``arena_window``): mean regret at T against the censoring
window m, a panel per (delay law, problem), a line per entrant styled by family as the curves,
with its 95 % bootstrap interval as an error bar."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FixedLocator, LogLocator, NullLocator

from delayed_bandits import captions
from delayed_bandits.arena import leaderboard
from delayed_bandits.arena.views.common import (
    PAGE,
    problem_rows,
    problem_title,
    problems,
    runs_note,
)
from delayed_bandits.arena.views.families import curve_styles, family_legend, legend_entries
from delayed_bandits.style import reader

DODGE = 1.035
"""The window figure's entrants are drawn side by side at each m, each this factor to the right
of the one before (on the log x axis), so that their intervals do not hide one another."""


def window_panel(
    ax: plt.Axes, cell: pd.DataFrame, styles: Mapping[str, tuple[Any, Any]], windows: list[int]
) -> None:
    """One (delay law, problem) of the window study (``cell``: its board rows): each applicable
    entrant's mean regret at T against the window m, a point per m joined by a line in its
    family's style (``curve_styles``), its 95 % bootstrap interval of the mean (``regret_lo``,
    ``regret_hi``) as an error bar; the entrants side by side around each m (``DODGE``); log x
    and y axes."""
    live = cell[cell.applicable.astype(bool)]
    groups = list(live.groupby("algorithm", sort=False))
    for i, (alg, rows) in enumerate(groups):
        rows = rows.sort_values("window")
        colour, style = styles[alg]
        x = rows.window * DODGE ** (i - (len(groups) - 1) / 2)
        ax.errorbar(
            x,
            rows.regret,
            yerr=[rows.regret - rows.regret_lo, rows.regret_hi - rows.regret],
            color=colour,
            linestyle=style,
            linewidth=1,
            elinewidth=0.8,
            marker="o",
            markersize=2.5,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")  # the entrants' regrets at T span orders of magnitude
    ax.xaxis.set_major_locator(FixedLocator(windows))
    ax.xaxis.set_major_formatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(windows[0] / 1.4, windows[-1] * 1.4)
    ax.yaxis.set_major_formatter(lambda value, _: f"{value:g}")
    ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))  # 20, 50, 200, ...: no crowding
    ax.yaxis.set_minor_formatter(lambda value, _: f"{value:g}")
    positive = live.regret[live.regret > 0]
    if len(positive):  # an interval reaching 0 would stretch the log axis down to nothing
        ax.set_ylim(bottom=float(positive.min()) / 2)
    ax.tick_params(labelsize=7)


def window(board: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> plt.Figure:
    """The window study on an A4 page: mean pseudo-regret at T against the censoring window m,
    a row per delay law and a column per problem (``Problem``), a line per entrant styled by
    family as the curves (``curve_styles``), with its 95 % bootstrap interval as a bar; the
    legend by family below."""
    styles = curve_styles(board)
    laws, columns = list(dict.fromkeys(board.regime)), problems(board)
    windows = sorted(int(m) for m in board.window.unique())
    regime_labels = board.drop_duplicates("regime").set_index("regime").regime_label
    handles, labels, ncol = legend_entries(board, styles)
    fig = plt.figure(figsize=PAGE, layout="constrained")
    spec = fig.add_gridspec(
        len(laws) + 1,
        len(columns),
        height_ratios=[*[1] * len(laws), 0.16 * len(labels) // ncol + 0.3],
    )
    for i, law in enumerate(laws):
        for j, problem in enumerate(columns):
            ax = fig.add_subplot(spec[i, j])
            rows = problem_rows(board, problem)
            window_panel(ax, rows[rows.regime == law], styles, windows)
            ax.set_title(
                reader(f"{regime_labels[law]}\n{problem_title(problem)}"), fontsize=8, pad=3
            )
            if j == 0:
                ax.set_ylabel("pseudo-regret at T", fontsize=7)
            if i == len(laws) - 1:
                ax.set_xlabel("window m (rounds)", fontsize=7)
    foot = fig.add_subplot(spec[-1, :])
    family_legend(foot, handles, labels, ncol)
    fig.suptitle(
        f"{captions.title(fig_cfg)}\nmean pseudo-regret at T = {fig_cfg['horizon']:,} over "
        f"{runs_note(board)}, every delay censored at m\nbars: 95 % bootstrap interval of the "
        "mean (the entrants side by side at each m)",
        fontsize=9,
    )
    return fig


def window_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """``window`` of the window study's leaderboard at T."""
    return window(leaderboard.display(tables["leaderboard"]), fig_cfg)
