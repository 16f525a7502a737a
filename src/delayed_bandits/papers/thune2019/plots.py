"""Figure of Thune et al. 2019, Example 8: the explicit and oracle bounds against T, the measured
regret against T, and the regret against time at the largest T. The bounds, the regret at T and
the slopes come from ``analysis``, which the claims read too."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from delayed_bandits import algorithms
from delayed_bandits.captions import title as figure_title
from delayed_bandits.papers.thune2019 import policies as p19
from delayed_bandits.papers.thune2019.analysis import (
    at_horizon,
    bounds,
    grid,
    grid_between,
    loglog_fit,
    upper_half,
)
from delayed_bandits.papers.thune2019.experiment import Losses
from delayed_bandits.style import legend_below, palette, reader


def losses_text(losses: Losses) -> str:
    """The loss sequence in words: 'Bernoulli losses with gap 0.2', and the decoy's phase of a
    switching sequence."""
    text = f"Bernoulli losses with gap {losses.gap:g}"
    if losses.kind == "bernoulli_switch":
        text += f", a decoy arm best for the first {losses.switch:g} T rounds"
    return text


def example8_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """(a) the bounds against T; (b) mean regret at T (±2 SE) against T, with uniform play's
    linear regret dotted; (c) mean regret (±2 SE) against t at the largest T. Log-log in (a)
    and (b), fitted slopes (upper half of the grid) in the legends."""
    summary = tables["summary"]
    points = grid(fig_cfg)
    horizons = np.array([p.horizon for p in points])
    upper = upper_half(horizons)
    colours = dict(zip(fig_cfg["algorithms"], palette("tab10", len(fig_cfg["algorithms"]))))
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 5.6), layout="constrained")

    table = bounds(points)
    fine_table = bounds(grid_between(points, int(fig_cfg["bound_points"])))
    for column, label, style in (
        ("explicit", "explicit, Corollary 7", "-"),
        ("oracle", "oracle, Theorem 6", "--"),
    ):
        fit = loglog_fit(table["T"][upper], table[column][upper])
        left.plot(
            fine_table["T"], fine_table[column], style, color="black", label=f"{label}: slope {fit}"
        )
        left.plot(table["T"], table[column], "o", color="black", markersize=4)
    left.set(
        xscale="log",
        yscale="log",
        xlabel="horizon T",
        ylabel="regret bound",
        title="(a) bounds on Example 8's delays",
    )
    legend_below(left)

    last = at_horizon(summary, points)
    upper_settings = {p.setting for p, keep in zip(points, upper) if keep}
    for alg in fig_cfg["algorithms"]:
        rows = last[last.algorithm == alg]
        if rows.empty:
            continue
        fitted = rows[rows.setting.isin(upper_settings)]
        fit = loglog_fit(fitted["T"], fitted["mean"], fitted.se)
        middle.errorbar(
            rows["T"],
            rows["mean"],
            yerr=2 * rows.se,
            fmt="o-",
            capsize=3,
            color=colours[alg],
            markersize=4,
            label=f"{algorithms.get(paper, alg).label}: slope {fit}",
        )
    linear = [p.problem.uniform_play_regret(p.horizon) for p in points]
    middle.plot(
        horizons, linear, ":", color="black", linewidth=1.5, zorder=3, label="uniform play (linear)"
    )
    middle.set(
        xscale="log",
        yscale="log",
        xlabel="horizon T",
        ylabel="mean regret at T (±2 SE)",
        title="(b) regret against T",
    )
    legend_below(middle)

    largest = points[-1]
    for alg in fig_cfg["algorithms"]:
        rows = summary[
            (summary.setting == largest.setting) & (summary.algorithm == alg)
        ].sort_values("t")
        right.plot(rows.t, rows["mean"], color=colours[alg], label=algorithms.get(paper, alg).label)
        right.fill_between(
            rows.t,
            rows["mean"] - 2 * rows.se,
            rows["mean"] + 2 * rows.se,
            color=colours[alg],
            alpha=0.2,
            linewidth=0,
        )
    if "doubling" in fig_cfg["algorithms"]:
        # Doubling restarts DEW at each epoch start: the steps of its curve
        epochs = p19.doubling_epochs(
            largest.problem.delays(largest.horizon), largest.problem.n_arms
        )
        for i, (_, start, _) in enumerate(epochs):
            right.axvline(
                start,
                color=colours["doubling"],
                linestyle=":",
                linewidth=0.8,
                label="Doubling's epoch starts" if i == 0 else None,
            )
    right.set(
        yscale="log",
        xlabel="round t",
        ylabel="mean regret (±2 SE)",
        title=f"(c) regret against time, T = {largest.horizon:,}",
    )
    legend_below(right)

    problem = largest.problem
    n_runs = int(summary.n_runs.min()) if not summary.empty else 0
    fig.suptitle(
        reader(
            f"{figure_title(fig_cfg)}\nK = {problem.n_arms}, {losses_text(problem.losses)}; "
            f"slopes fitted for T ≥ {horizons[upper].min():,}, {n_runs} runs per "
            "point"
        ),
        fontsize=10,
    )
    return fig


PLOTS = {"example8": example8_figure}
