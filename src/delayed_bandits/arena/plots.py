"""Figures of the arena, every algorithm against every delay regime: the leaderboard as a heatmap
of regret over the best in each setting at matched exploration (at T, and at T/10 as another
view), the regret curves behind it, an A4 page per problem (number of arms, base rate, gap) with
a row per delay law, a colour per family of algorithms and a line style per member, the
window study (regret at T against the censoring window m), and the critical-difference diagram
of the algorithms' mean ranks (its statistics in ``ranks``)."""

from __future__ import annotations

import textwrap
from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.collections import QuadMesh
from matplotlib.colors import Colormap, LogNorm
from matplotlib.lines import Line2D
from matplotlib.ticker import EngFormatter, FixedLocator, LogLocator, NullLocator

from delayed_bandits.arena import leaderboard, ranks
from delayed_bandits.arena.entrants import ANONYMOUS, INFORMATION, LABELLED, PUBLISHED
from delayed_bandits.errors import ConfigError
from delayed_bandits.style import palette, reader

MARKS = {ANONYMOUS: "†", LABELLED: "‡"}  # information models marked after a row's label
MARK = MARKS[ANONYMOUS]
NA_GREY = "0.82"
CENSORED_FACE = "0.94"  # background of the curves' censored panels
BAR_LABEL = "regret / best at matched exploration"


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


def model_groups(board: pd.DataFrame) -> list[int]:
    """Row positions (in ``algorithm_labels`` order) where a new information model starts among
    the matched rows, the first excepted: where the heatmap draws a thin rule."""
    rows = board.drop_duplicates("algorithm").set_index("algorithm")
    order = list(algorithm_labels(board))
    matched = [a for a in order if "section" not in rows or rows.section[a] != PUBLISHED]
    models = [rows.information[a] for a in matched]
    return [i for i in range(1, len(models)) if models[i] != models[i - 1]]


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


def runs_note(board: pd.DataFrame) -> str:
    """'100 runs', or '50-100 runs' when the curves differ (curves that do not apply have none)."""
    runs = board.n_runs[board.applicable.astype(bool)].dropna()
    low, high = int(runs.min()), int(runs.max())
    return f"{low} runs" if low == high else f"{low}-{high} runs"


# Sizes in inches and points, for the 8 problems of the paper-scale grid (2 rows of 4 panels of
# 14 regimes x 28 algorithms) on a landscape page a little larger than A4: 5.5 pt numbers in cells
# 0.18 in wide and 0.105 in high, about 8 px in a report page 1200 px wide (zoom for more).
CELL_WIDTH, CELL_HEIGHT = 0.18, 0.105
CELL_FONT = 5.5
LABEL_FONT = 6.0
ZERO_BEST = "–"  # a cell whose setting's lowest mean regret is 0: no ratio
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


def heatmap_panel(
    ax: plt.Axes,
    board: pd.DataFrame,
    problem: Problem,
    norm: LogNorm,
    cmap: Colormap,
    row_labels: bool,
    column_labels: bool,
) -> QuadMesh:
    """One problem's algorithms x regimes: cells coloured by ratio and annotated with it (bold:
    tied-best; plain: inconclusive; faded: worse, ``cell_look``), grey "n/a" where not
    applicable; a rule between uncensored and censored regimes, and one above the rows at the
    papers' constants (in italics)."""
    labels, regimes = algorithm_labels(board), regime_order(board)
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
    ax.set_xticklabels(
        list(regime_rows.regime_label) if column_labels else [],
        rotation=55,
        ha="right",
        rotation_mode="anchor",
        fontsize=LABEL_FONT,
    )
    ax.set_yticklabels(list(labels.values()) if row_labels else [], fontsize=LABEL_FONT)
    ax.tick_params(length=0, pad=2)
    ax.set_title(reader(problem_title(problem)), fontsize=8, pad=9)
    return mesh


def heatmap_note(labels: Mapping[str, str], width: float, zero_best: bool = False) -> str:
    """What a cell, its type, n/a, censored and the marks mean (and ``ZERO_BEST`` if shown),
    wrapped to a figure ``width`` inches wide (about 17 characters of 6 pt per inch)."""
    text = [
        "Cell: mean pseudo-regret over the lowest among the applicable algorithms of the same "
        "setting at matched exploration (every index method at f(t) = log t). Bold: tied-best, "
        "the 95 % paired-bootstrap interval of the difference from that lowest has its upper "
        "end within the equivalence margin; faded: worse, its lower end above the margin; plain: "
        "inconclusive, the runs cannot tell. Below the rule, in italics: index methods at their "
        "papers' constants, over the same lowest, not ranked. Grey n/a: the algorithm's model "
        "does not cover the regime (reasons in the leaderboard). Censored: rewards delayed by "
        "more than the window m rounds are never seen. Rows are grouped by information model "
        "(dashed rules): conversions only; conversions settled at m; labelled outcomes; "
        "anonymous aggregate; per-round losses; none."
    ]
    if zero_best:
        text.append(f"{ZERO_BEST}: no ratio, the lowest mean regret of the setting is 0.")
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
    return "\n".join(textwrap.fill(t, int(17 * width)) for t in text)


def heatmap(board: pd.DataFrame, fig_cfg: Mapping[str, Any], horizon: int) -> plt.Figure:
    """One panel per problem (``Problem``: a row per number of arms, a column per (base rate,
    gap)): algorithms x regimes at round ``horizon`` (rows of ``leaderboard.display``), each cell
    coloured by the algorithm's mean pseudo-regret over the lowest in that setting at matched
    exploration (log scale, shared by the panels) and annotated with it, bold if tied-best,
    faded if worse, plain if inconclusive (the leaderboard's ``verdict``); grey "n/a" where the
    algorithm's model does not cover the regime. The censored regimes follow the uncensored
    ones, after a rule."""
    labels, regimes = algorithm_labels(board), regime_order(board)
    arms = list(dict.fromkeys(board.n_arms))
    rates = list(dict.fromkeys(zip(board.base_mean, board.gap)))
    found = set(problems(board))
    top = max(float(board.ratio.max()), 2.0)  # a board of ties still gets a scale to 2
    low = min(float(board.ratio.min()), 1.0)  # a published constant may beat the matched best
    norm = LogNorm(vmin=low, vmax=top)
    import seaborn  # only here, for its "rocket" colormap: the import costs ~0.7 s

    cmap = seaborn.color_palette("rocket_r", as_cmap=True).with_extremes(bad=NA_GREY)

    panel_width, panel_height = CELL_WIDTH * len(regimes), CELL_HEIGHT * len(labels)
    width = len(rates) * (panel_width + 0.15) + 2.1
    note_height = 0.75
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
        heatmap_note(
            labels, width, bool((board.applicable.astype(bool) & board.ratio.isna()).any())
        ),
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
        f"{fig_cfg['title']}\npseudo-regret at {at}, mean over {runs_note(board)} per cell",
        fontsize=9,
    )
    return fig


FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Vernade et al. 2017", ("d-ucb", "d-klucb", "ud-ucb", "ud-klucb")),
    ("Discarding (settled at m)", ("discarding-ucb", "discarding-klucb", "discarding-ts")),
    ("Thompson sampling on N~", ("d-ts", "ud-ts")),
    ("QPM-D (labelled outcomes)", ("qpm-d-matched", "qpm-d-klucb", "qpm-d-ts")),
    ("Pike-Burke et al. 2018", ("odaaf", "odaaf-v")),
    ("Manegueu et al. 2020", ("patient", "adapt-patient")),
    ("Thune et al. 2019", ("dew", "skipper", "doubling")),
    ("Vernade et al. 2020", ("otflinucb", "otflints")),
    ("ignoring delays", ("ucb1-matched", "klucb-matched", "ts", "uniform")),
)
"""The curves' families, each a colour, its members told apart by line style: the built-in
entrants by the paper they come from. The algorithms at their papers' constants (the published
comparison) are a family of their own, like the rows below the heatmap's rule; any other entrant
(a plug-in's) joins the family "other entrants"."""
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
PAGE = (8.27, 11.69)  # inches: an A4 page, portrait


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
        drop = IGNORES if family == "ignoring delays" else ""
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
        fontsize=7,
        frameon=False,
        handlelength=2.6,
        columnspacing=1.2,
    )
    for text in legend.get_texts():
        if text.get_text().endswith(":"):
            text.set_fontweight("bold")


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
    """One problem's page: a row per delay law (sharing a log y axis), uncensored on the left and
    censored on the right (grey), the legend by family and what does not apply below."""
    styles, rows = curve_styles(board), law_rows(board)
    regime_labels = board.drop_duplicates("regime").set_index("regime").regime_label
    rows_of = problem_rows(board, problem)
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
    spec = fig.add_gridspec(
        len(rows) + 1,
        2,
        height_ratios=[*[1] * len(rows), 0.16 * legend_rows + 0.13 * na_lines + 0.3],
    )
    for i, regimes in enumerate(rows):
        first, lowest = None, np.inf
        for j, regime in enumerate(regimes):
            if regime is None:
                continue
            ax = fig.add_subplot(spec[i, j], sharey=first)
            first = first or ax
            lowest = min(
                lowest, curves_panel(ax, by_curve, rows_of[rows_of.regime == regime], styles)
            )
            ax.set_xlim(0, fig_cfg["horizon"])
            ax.set_title(reader(str(regime_labels[regime])), fontsize=8, pad=3)
            if j == 0:
                ax.set_ylabel("pseudo-regret", fontsize=7)
            if i == len(rows) - 1:
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
    note = "left: uncensored; right, on grey: censored at the window m"
    shown = "".join(algorithm_labels(board).values())
    if MARK in shown:
        note += f"; {MARK} anonymous aggregate feedback"
    if MARKS[LABELLED] in shown:
        note += f"; {MARKS[LABELLED]} labelled outcomes (an oracle)"
    fig.suptitle(
        reader(
            f"{fig_cfg['title']}: {problem_title(problem)} (page {page} of "
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
        f"{fig_cfg['title']}\nmean pseudo-regret at T = {fig_cfg['horizon']:,} over "
        f"{runs_note(board)}, every delay censored at m\nbars: 95 % bootstrap interval of the "
        "mean (the entrants side by side at each m)",
        fontsize=9,
    )
    return fig


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
        f"{fig_cfg['title']}\nmean rank of pseudo-regret at T = {fig_cfg['horizon']:,} "
        "(1 = lowest) over the settings of each family, matched exploration;\na bar joins "
        "algorithms the Nemenyi test does not separate (Demšar 2006)",
        fontsize=8,
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


def curves_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> list[plt.Figure]:
    """``curves`` of the summary, with the leaderboard's labels and applicability."""
    return curves(tables["summary"], leaderboard.display(tables["leaderboard"]), fig_cfg)


def window_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """``window`` of the window study's leaderboard at T."""
    return window(leaderboard.display(tables["leaderboard"]), fig_cfg)


PLOTS = {
    "arena": heatmap_figure,
    "arena_early": early_figure,
    "arena_curves": curves_figure,
    "arena_window": window_figure,
    "arena_ranks": ranks_figure,
}
