"""The critical-difference diagrams of the arena (kind ``arena_ranks``, Demšar 2006): the mean
rank of each algorithm's regret at T over the settings of each family (base rate, censored or
not), with the Friedman test and the Nemenyi critical difference, whose statistics are
``arena.ranks``'s."""

from __future__ import annotations

import textwrap
from typing import Any, Mapping

import matplotlib.pyplot as plt
import pandas as pd

from delayed_bandits import captions
from delayed_bandits.arena import leaderboard, ranks
from delayed_bandits.arena.views.common import PAGE, algorithm_labels
from delayed_bandits.errors import ConfigError
from delayed_bandits.style import reader

RANK_STEP, CLIQUE_STEP = 0.19, 0.08  # inches: between the names, between the clique bars


def cd_height(family: ranks.Family) -> float:
    """The height in inches of ``cd_panel``'s drawing of ``family``."""
    return 0.7 + CLIQUE_STEP * len(family.cliques) + RANK_STEP * ((len(family.mean_ranks) + 1) // 2)


def cd_panel(ax: plt.Axes, family: ranks.Family, labels: Mapping[str, str]) -> None:
    """One family's critical-difference diagram (Demšar 2006, Figure 1): the mean-rank axis (1,
    the lowest regret, on the left), each algorithm joined to its mean rank, the better half
    named on the left and the other on the right, a thick bar under each clique (``ranks.cliques``:
    mean ranks less than CD apart) and the length CD drawn above the axis. Data units: x in
    ranks, y in inches below the axis."""
    k = len(family.mean_ranks)
    ax.set_axis_off()
    ax.set_xlim(0.5, k + 0.5)
    top, bottom = 0.45, -cd_height(family) + 0.45
    ax.set_ylim(bottom, top)
    ax.plot([1, k], [0, 0], color="black", linewidth=1)
    for r in range(1, k + 1):
        ax.plot([r, r], [0, 0.05], color="black", linewidth=0.8)
        ax.text(r, 0.08, str(r), ha="center", va="bottom", fontsize=6.5)
    ax.plot([1, 1 + family.cd], [0.33, 0.33], color="black", linewidth=1.5)
    ax.text(1 + family.cd / 2, 0.36, f"CD = {family.cd:.2f}", ha="center", va="bottom", fontsize=7)
    for i, members in enumerate(family.cliques):
        y = -CLIQUE_STEP * (i + 1)
        low, high = family.mean_ranks[members[0]], family.mean_ranks[members[-1]]
        ax.plot(
            [low - 0.05, high + 0.05], [y, y], color="black", linewidth=2.5, solid_capstyle="butt"
        )
    start = -CLIQUE_STEP * (len(family.cliques) + 1)
    half = (k + 1) // 2
    for i, (alg, rank) in enumerate(family.mean_ranks.items()):
        left = i < half
        y = start - RANK_STEP * (i if left else k - 1 - i)
        edge = 0.5 if left else k + 0.5
        ax.plot([rank, rank, edge], [0, y, y], color="0.3", linewidth=0.7)
        ax.text(
            edge + (-0.1 if left else 0.1),
            y,
            reader(f"{labels[alg]} ({rank:.2f})" if not left else f"({rank:.2f}) {labels[alg]}"),
            ha="right" if left else "left",
            va="center",
            fontsize=7,
        )


def rank_title(family: ranks.Family) -> str:
    """A family's panel title: its settings, the Friedman test and CD."""
    p = "< 0.001" if family.p_value < 0.001 else f"= {family.p_value:.3f}"
    return reader(
        f"μ = {family.base_mean:g}, {'censored' if family.censored else 'uncensored'}: "
        f"{len(family.mean_ranks)} algorithms over {family.n_settings} settings; Friedman "
        f"χ² = {family.chi2:.1f}, F = {family.f_stat:.1f}, p {p}; Nemenyi CD = {family.cd:.2f} "
        f"(α = {ranks.ALPHA:g})"
    )


def ranks_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """The critical-difference diagram of each family (base rate, censored or not) of the
    leaderboard at T, matched exploration (``ranks.families``), one above the other; the
    algorithms left out of a family (not applicable in all of it) named below its diagram."""
    board = tables["leaderboard"]
    found = ranks.families(board)
    if not found:
        raise ConfigError(
            "the rank diagram needs a family (base rate, censored or not) with two settings and "
            "two algorithms that apply in both"
        )
    labels = algorithm_labels(leaderboard.display(board))
    heights = [cd_height(f) + 0.5 for f in found]
    fig = plt.figure(figsize=(PAGE[0], sum(heights) + 0.8), layout="constrained")
    spec = fig.add_gridspec(len(found), 1, height_ratios=heights)
    for i, family in enumerate(found):
        ax = fig.add_subplot(spec[i])
        cd_panel(ax, family, labels)
        ax.set_title(rank_title(family), fontsize=7.5, pad=2)
        if family.left_out:
            ax.text(
                0.5,
                0.0,
                textwrap.fill(
                    reader(
                        "Not ranked (not applicable in every setting): "
                        + ", ".join(labels[a] for a in family.left_out)
                    ),
                    int(15 * PAGE[0]),
                ),
                transform=ax.transAxes,
                ha="center",
                va="top",
                fontsize=6.5,
                color="0.3",
            )
    fig.suptitle(
        f"{captions.title(fig_cfg)}\nmean rank of pseudo-regret at T = {fig_cfg['horizon']:,} "
        "(1 = lowest) over the settings of each family, matched exploration;\na bar joins "
        "algorithms the Nemenyi test does not separate (Demšar 2006)",
        fontsize=8,
    )
    return fig
