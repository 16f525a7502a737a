"""The arena's leaderboard as a heatmap (kinds ``arena`` and ``arena_early``): each
algorithm's mean regret over the lowest in its setting at matched exploration, a panel per
problem, algorithms x delay regimes, at T and, as another view, at the first leaderboard horizon
(T/10 at paper scale)."""

from __future__ import annotations

import textwrap
from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.collections import QuadMesh
from matplotlib.colors import Colormap, LogNorm
from matplotlib.ticker import FixedLocator, NullLocator

from delayed_bandits.arena import leaderboard, ties
from delayed_bandits.arena.entrants import LABELLED, PUBLISHED
from delayed_bandits.arena.identifiability import MARK as UNIDENTIFIED
from delayed_bandits.arena.identifiability import UNIDENTIFIABLE
from delayed_bandits.arena.views.common import (
    MARK,
    MARKS,
    Problem,
    algorithm_labels,
    problem_rows,
    problem_title,
    problems,
    regime_order,
    runs_note,
)
from delayed_bandits.captions import title as figure_title
from delayed_bandits.style import reader

NA_GREY = "0.82"


BAR_LABEL = "regret / best at matched exploration"


def model_groups(board: pd.DataFrame) -> list[int]:
    """Row positions (in ``algorithm_labels`` order) where a new information model starts among
    the matched rows, the first excepted: where the heatmap draws a thin rule."""
    rows = board.drop_duplicates("algorithm").set_index("algorithm")
    order = list(algorithm_labels(board))
    matched = [a for a in order if "section" not in rows or rows.section[a] != PUBLISHED]
    models = [rows.information[a] for a in matched]
    return [i for i in range(1, len(models)) if models[i] != models[i - 1]]


def grid(board: pd.DataFrame, problem: Problem, column: str) -> pd.DataFrame:
    """``column`` of one problem's rows as algorithms x regimes, in display order."""
    rows = problem_rows(board, problem)
    return rows.pivot(index="algorithm", columns="regime", values=column).reindex(
        index=list(algorithm_labels(board)), columns=regime_order(board)
    )


def ratio_text(ratio: float) -> str:
    """A cell's ratio in at most four characters: '1.0', '3.2', '41', '12k'."""
    if ratio < 9.95:
        return f"{ratio:.1f}"
    if ratio < 999.5:
        return f"{ratio:.0f}"
    return f"{ratio / 1000:.0f}k"


def ratio_ticks(low: float, top: float) -> list[float]:
    """..., 0.5, 1, 2, 5, 10, 20, 50, ... from ``low`` up to ``top``: colour-bar ticks in ratio
    units."""
    decades = 10.0 ** np.arange(int(np.floor(np.log10(low))), int(np.ceil(np.log10(top))) + 1)
    return [t for t in np.outer(decades, [1, 2, 5]).ravel() if low * 0.9999 <= t <= top * 1.0001]


# Sizes in inches and points, for the 8 problems of the paper-scale grid (2 rows of 4 panels of
# 14 regimes x every entrant) on a landscape page a little larger than A4: 5.5 pt numbers in cells
# 0.18 in wide and 0.105 in high, about 8 px in a report page 1200 px wide (zoom for more).
CELL_WIDTH, CELL_HEIGHT = 0.18, 0.105
MIN_PANEL_WIDTH = 2.4
"""Inches: a panel of a few regimes (the switching figure's two) keeps room for its title."""
CELL_FONT = 5.5
LABEL_FONT = 6.0
ZERO_BEST = "–"  # a cell whose setting's lowest mean regret is 0: no ratio
TUNED = "(T)"  # at a round before T, the row of a learner tuned to T (Entrant.horizon_tuned)
WORSE_ALPHA = 0.55
"""A worse cell's number is faded to this opacity: a plain one is inconclusive, a bold one
tied-best (the leaderboard's ``verdict``)."""


def cell_look(verdict: str, published: bool) -> tuple[str, float]:
    """(font weight, opacity) of a cell's number: bold if tied-best, faded if worse, plain if
    inconclusive; the rows at the papers' constants are not ranked (plain)."""
    if published:
        return "normal", 1.0
    return (
        ("bold", 1.0)
        if verdict == "tied-best"
        else ("normal", WORSE_ALPHA if verdict == "worse" else 1.0)
    )


def marked_labels(board: pd.DataFrame, tuned_to: int | None) -> dict[str, str]:
    """``algorithm_labels``, and at a round before the horizon ``tuned_to`` each learner tuned to
    it (``Entrant.horizon_tuned``) marked ``TUNED``: its cell is not a run of that horizon."""
    labels = algorithm_labels(board)
    if tuned_to is None:
        return labels
    tuned = set(board.algorithm[board.horizon_tuned.astype(bool)])
    return {a: f"{text} {TUNED}" if a in tuned else text for a, text in labels.items()}


def heatmap_panel(
    ax: plt.Axes,
    board: pd.DataFrame,
    problem: Problem,
    norm: LogNorm,
    cmap: Colormap,
    row_labels: bool,
    column_labels: bool,
    tuned_to: int | None = None,
) -> QuadMesh:
    """One problem's algorithms x regimes: cells coloured by ratio and annotated with it (bold:
    tied-best; plain: inconclusive; faded: worse, ``cell_look``), grey "n/a" where not
    applicable; a rule between uncensored and censored regimes, and one above the rows at the
    papers' constants (in italics); a regime's label marked ``UNIDENTIFIED`` where the panel's
    setting is not identifiable (in the arena that holds for every K alike, the other arms
    sharing one mean and one law, so the labels under the bottom row say it for the column);
    ``tuned_to`` as ``marked_labels``."""
    labels, regimes = marked_labels(board, tuned_to), regime_order(board)
    ratio = grid(board, problem, "ratio").to_numpy(dtype=float)
    na = grid(board, problem, "applicable").eq(False)  # a missing row is not n/a
    regret = grid(board, problem, "regret").to_numpy(dtype=float)
    verdict = grid(board, problem, "verdict")
    rows = board.drop_duplicates("algorithm").set_index("algorithm")
    published = rows.section.eq(PUBLISHED).reindex(list(labels))
    mesh = ax.pcolormesh(
        np.ma.masked_invalid(ratio), cmap=cmap, norm=norm, edgecolors="white", linewidth=0.4
    )
    for (r, c), value in np.ndenumerate(ratio):
        if na.iat[r, c]:
            ax.text(c + 0.5, r + 0.5, "n/a", ha="center", va="center", fontsize=4.5, color="0.35")
        elif np.isfinite(value) or np.isfinite(regret[r, c]):
            weight, alpha = cell_look(verdict.iat[r, c], bool(published.iat[r]))
            ax.text(
                c + 0.5,
                r + 0.5,
                ratio_text(value) if np.isfinite(value) else ZERO_BEST,
                ha="center",
                va="center",
                fontsize=CELL_FONT,
                fontweight=weight,
                alpha=alpha,
                style="italic" if published.iat[r] else "normal",
                color="white" if np.isfinite(value) and norm(value) > 0.55 else "black",
            )  # dark cells: white text
    for row in model_groups(board):
        ax.axhline(row, color="0.35", linewidth=0.6, linestyle=(0, (4, 2)))
    n_matched = int((~published).sum())
    if 0 < n_matched < len(labels):
        ax.axhline(n_matched, color="black", linewidth=1.2)
    regime_rows = board.drop_duplicates("regime").set_index("regime").loc[regimes]
    n_plain = int((~regime_rows.censored.astype(bool)).sum())
    if 0 < n_plain < len(regimes):
        ax.axvline(n_plain, color="black", linewidth=1.2)
        for start, stop, text in ((0, n_plain, "uncensored"), (n_plain, len(regimes), "censored")):
            ax.text(
                (start + stop) / 2,
                -0.2,
                text,
                ha="center",
                va="bottom",
                fontsize=LABEL_FONT,
                style="italic",
            )
    ax.grid(False)
    ax.set_xlim(0, len(regimes))
    ax.set_ylim(len(labels), 0)  # first algorithm on top
    ax.set_xticks(np.arange(len(regimes)) + 0.5)
    ax.set_yticks(np.arange(len(labels)) + 0.5)
    identifiable = (
        problem_rows(board, problem).drop_duplicates("regime").set_index("regime").identifiable
    )
    ax.set_xticklabels(
        [
            f"{label} {UNIDENTIFIED}" if not identifiable.get(regime, True) else label
            for regime, label in regime_rows.regime_label.items()
        ]
        if column_labels
        else [],
        rotation=55,
        ha="right",
        rotation_mode="anchor",
        fontsize=LABEL_FONT,
    )
    ax.set_yticklabels(list(labels.values()) if row_labels else [], fontsize=LABEL_FONT)
    ax.tick_params(length=0, pad=2)
    ax.set_title(reader(problem_title(problem)), fontsize=8, pad=9)
    return mesh


def heatmap_note(
    labels: Mapping[str, str],
    width: float,
    zero_best: bool = False,
    rule: str = ties.TIE_RULE,
    unidentifiable: bool = False,
    partial: bool = False,
    tuned_to: int | None = None,
    switching: bool = False,
) -> str:
    """What a cell, its type (the tie ``rule``, ``ties.tie_rule`` at the figure's statistics),
    n/a, censored and the marks mean (and ``ZERO_BEST`` if shown, ``UNIDENTIFIED`` if a regime
    is ``unidentifiable``, a blank column if a problem is ``partial``: run under some regimes
    only; ``TUNED`` at a round before the horizon ``tuned_to``; what the regret is against under
    ``switching`` means), wrapped to a figure ``width`` inches wide (about 17 characters of 6 pt per inch)."""
    text = [
        "Cell: mean pseudo-regret over the lowest among the applicable algorithms of the same "
        "setting at matched exploration (every index method at f(t) = log t). Bold: tied-best; "
        f"faded: worse; plain: inconclusive, the runs cannot tell ({rule}). "
        "Below the rule, in italics: index methods at their "
        "papers' constants, over the same lowest, not ranked. Grey n/a: the algorithm's model "
        "does not cover the regime (reasons in the leaderboard). Censored: rewards delayed by "
        "more than the window m rounds are never seen. Rows are grouped by information model "
        "(dashed rules): conversions only; conversions settled at m; labelled outcomes; "
        "anonymous aggregate; per-round losses; none."
    ]
    if switching:
        text.append(
            "Switching means: the arms' means change once, so the pseudo-regret is against each "
            "round's best arm; against the best fixed arm in hindsight it is the same minus a "
            "constant of the setting, which the figure's claims state."
        )
    if zero_best:
        text.append(f"{ZERO_BEST}: no ratio, the lowest mean regret of the setting is 0.")
    if partial:
        text.append(
            "A blank grey column: the regime is not run at that problem (a grid value kept to "
            "some regimes, only_with in the config)."
        )
    if MARKS[LABELLED] in "".join(labels.values()):
        text.append(
            f"{MARKS[LABELLED]} labelled outcomes, an oracle: every outcome, 0 or 1, arrives after "
            "its delay, which an application cannot know before the window closes."
        )
    if MARK in "".join(labels.values()):
        text.append(
            f"{MARK} anonymous aggregate feedback: the algorithm sees only the sum of "
            "the rewards arriving each round, not which pull they came from."
        )
    if tuned_to is not None and TUNED in "".join(labels.values()):
        text.append(
            f"{TUNED} tuned to the horizon T = {tuned_to:,} (told T): its cell is its run at T "
            "seen at this round, not a run of this horizon, which an anytime learner's is."
        )
    if unidentifiable:
        text.append(
            f"{UNIDENTIFIED} after a regime: in that panel the setting is {UNIDENTIFIABLE}; the "
            "claims leave it out of their verdicts and name it apart."
        )
    return "\n".join(textwrap.fill(t, int(17 * width)) for t in text)


def heatmap(board: pd.DataFrame, fig_cfg: Mapping[str, Any], horizon: int) -> plt.Figure:
    """One panel per problem (``Problem``: a row per number of arms, a column per (base rate,
    gap)): algorithms x regimes at round ``horizon`` (rows of ``leaderboard.display``), each cell
    coloured by the algorithm's mean pseudo-regret over the lowest in that setting at matched
    exploration (log scale, shared by the panels) and annotated with it, bold if tied-best,
    faded if worse, plain if inconclusive (the leaderboard's ``verdict``); grey "n/a" where the
    algorithm's model does not cover the regime. The censored regimes follow the uncensored
    ones, after a rule."""
    tuned_to = int(fig_cfg["horizon"]) if horizon < int(fig_cfg["horizon"]) else None
    labels, regimes = marked_labels(board, tuned_to), regime_order(board)
    arms = list(dict.fromkeys(board.n_arms))
    rates = list(dict.fromkeys(zip(board.base_mean, board.gap)))
    found = set(problems(board))
    top = max(float(board.ratio.max()), 2.0)  # a board of ties still gets a scale to 2
    low = min(float(board.ratio.min()), 1.0)  # a published constant may beat the matched best
    norm = LogNorm(vmin=low, vmax=top)
    import seaborn  # only here, for its "rocket" colormap: the import costs ~0.7 s

    cmap = seaborn.color_palette("rocket_r", as_cmap=True).with_extremes(bad=NA_GREY)

    panel_width = max(CELL_WIDTH * len(regimes), MIN_PANEL_WIDTH)
    panel_height = CELL_HEIGHT * len(labels)
    width = len(rates) * (panel_width + 0.15) + 2.1
    text = heatmap_note(
        labels,
        width,
        bool((board.applicable.astype(bool) & board.ratio.isna()).any()),
        ties.tie_rule(*(ties.statistics(fig_cfg)[k] for k in ("confidence", "tie_margin"))),
        not board.identifiable.astype(bool).all(),
        any(len(set(problem_rows(board, p).regime)) < len(regimes) for p in found),
        tuned_to,
        any("switch" in raw for raw in fig_cfg.get("settings", {}).values()),
    )
    # its lines of 6 pt (0.1 in each), so that a longer note does not squeeze the panels
    note_height = max(0.75, 0.1 * (text.count("\n") + 1))
    fig = plt.figure(
        figsize=(width, len(arms) * (panel_height + 0.45) + 1.6 + note_height),
        layout="constrained",  # room for the tick labels of the bottom row only
    )
    spec = fig.add_gridspec(
        len(arms) + 1,
        len(rates) + 1,
        width_ratios=[*[panel_width] * len(rates), 0.12],
        height_ratios=[*[panel_height] * len(arms), note_height],
    )
    for i, n_arms in enumerate(arms):
        for j, (base_mean, gap) in enumerate(rates):
            problem = (int(n_arms), float(base_mean), float(gap))
            if problem not in found:
                continue
            mesh = heatmap_panel(
                fig.add_subplot(spec[i, j]),
                board,
                problem,
                norm,
                cmap,
                row_labels=j == 0,
                column_labels=i == len(arms) - 1,
                tuned_to=tuned_to,
            )
    bar = fig.colorbar(mesh, cax=fig.add_subplot(spec[:-1, -1]))
    bar.set_label(BAR_LABEL, fontsize=7)
    bar.ax.tick_params(labelsize=6)
    bar.ax.yaxis.set_major_locator(FixedLocator(ratio_ticks(low, top)))
    bar.ax.yaxis.set_major_formatter(lambda value, _: f"{value:g}")
    bar.ax.yaxis.set_minor_locator(NullLocator())
    note = fig.add_subplot(spec[-1, :])
    note.axis("off")
    note.text(
        0,
        1,
        text,
        ha="left",
        va="top",
        fontsize=6,
        transform=note.transAxes,
    )
    at = (
        f"T = {horizon:,}"
        if horizon == fig_cfg["horizon"]
        else f"t = {horizon:,} (T = {fig_cfg['horizon']:,})"
    )
    fig.suptitle(
        f"{figure_title(fig_cfg)}\npseudo-regret at {at}, mean over {runs_note(board)} per cell",
        fontsize=9,
    )
    return fig


def heatmap_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """``heatmap`` of the leaderboard at its last horizon (T)."""
    board = tables["leaderboard"]
    return heatmap(leaderboard.display(board), fig_cfg, int(board.horizon.max()))


def early_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """``heatmap`` of the leaderboard at its first horizon (T/10 at paper scale)."""
    board = tables["leaderboard"]
    first = int(board.horizon.min())
    return heatmap(leaderboard.display(board, first), fig_cfg, first)
