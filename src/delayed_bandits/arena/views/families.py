"""The curves' and the window study's styles: a colour per family of algorithms (the paper the
built-in entrants come from, the papers' constants, other entrants), a line style per member,
and the legend, a row per family."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.lines import Line2D

from delayed_bandits.arena import experiment
from delayed_bandits.arena.entrants import PUBLISHED
from delayed_bandits.arena.views.common import algorithm_labels
from delayed_bandits.style import palette, reader

FAMILIES = experiment.families()
"""The curves' families, each a colour, its members told apart by line style, from the entrants'
declarations (``Entrant.family``): the built-in entrants by the paper they come from. The
algorithms at their papers' constants (the published comparison) are a family of their own, like
the rows below the heatmap's rule; an entrant of no family (a plug-in's, unless it declares one)
joins the family "other entrants"."""
PUBLISHED_FAMILY, OTHERS = "at their papers' constants", "other entrants"
IGNORES = " (ignores delays)"  # said once, by the family, in the legend
DASHES: tuple[Any, ...] = (
    "-",
    "--",
    ":",
    "-.",
    (0, (5, 1, 1, 1, 1, 1)),
    (0, (8, 2)),
    (0, (1, 3)),
    (0, (3, 1, 3, 3)),
)


def families(board: pd.DataFrame) -> dict[str, list[str]]:
    """The algorithms of ``board`` by family (``FAMILIES``), in the families' order then board
    order; a family without a member is left out."""
    published = board.drop_duplicates("algorithm").set_index("algorithm").section.eq(PUBLISHED)
    found: dict[str, list[str]] = {name: [] for name, _ in FAMILIES}
    found.update({PUBLISHED_FAMILY: [], OTHERS: []})
    member = {alg: name for name, algs in FAMILIES for alg in algs}
    for alg in algorithm_labels(board):
        family = PUBLISHED_FAMILY if published[alg] else member.get(alg, OTHERS)
        found[family].append(alg)
    return {name: algs for name, algs in found.items() if algs}


def curve_styles(board: pd.DataFrame) -> dict[str, tuple[Any, Any]]:
    """(colour, line style) per algorithm: a colour per family (``families``; dark grey for the
    papers' constants), a line style per member."""
    colours = iter(palette("tab10", 10))
    styles = {}
    for family, algs in families(board).items():
        colour = "0.25" if family == PUBLISHED_FAMILY else next(colours)
        styles.update({alg: (colour, DASHES[i % len(DASHES)]) for i, alg in enumerate(algs)})
    return styles


def legend_entries(
    board: pd.DataFrame, styles: Mapping[str, tuple[Any, Any]]
) -> tuple[list[Any], list[str], int]:
    """The curves' legend, a row per family: its name, then its members (handles, labels, and the
    number of columns, for a legend filled column by column)."""
    labels = algorithm_labels(board)
    rows = []
    for family, algs in families(board).items():
        drop = IGNORES if family == experiment.IGNORING else ""
        rows.append(
            [(Line2D([], [], linestyle="none"), f"{family}:")]
            + [
                (
                    Line2D([], [], color=styles[a][0], linestyle=styles[a][1], linewidth=1.5),
                    labels[a].removesuffix(drop) if drop else labels[a],
                )
                for a in algs
            ]
        )
    ncol = max(len(row) for row in rows)
    blank = (Line2D([], [], linestyle="none"), "")
    grid = [row + [blank] * (ncol - len(row)) for row in rows]
    entries = [grid[r][c] for c in range(ncol) for r in range(len(grid))]  # column by column
    return [h for h, _ in entries], [t for _, t in entries], ncol


def family_legend(ax: plt.Axes, handles: list[Any], labels: list[str], ncol: int) -> None:
    """``legend_entries``' legend at the top of ``ax`` (an axes of its own, hidden), the families'
    names in bold."""
    ax.axis("off")
    legend = ax.legend(
        handles,
        [reader(t) for t in labels],
        loc="upper center",
        ncol=ncol,
        fontsize=5.8,
        frameon=False,
        handlelength=1.8,
        handletextpad=0.4,
        columnspacing=0.4,
    )
    # out of the constrained layout: a legend as wide as the page would otherwise squeeze the
    # panels to the middle and still be cut at both edges; the page fits it (fontsize, spacing)
    legend.set_in_layout(False)
    for text in legend.get_texts():
        if text.get_text().endswith(":"):
            text.set_fontweight("bold")
