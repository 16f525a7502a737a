"""Figures of Manegueu et al. 2020 beyond regret against time: regret at T along a sweep of
alpha_tilde (Figure 2) or of the gap (Figure 3), and Adapt-Patient's alpha estimate (Figure 7)."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import pandas as pd

from delayed_bandits import captions, grid
from delayed_bandits import curves as cv
from delayed_bandits.papers.manegueu2020.analysis import sweep_table, uniform_regret
from delayed_bandits.style import legend_outside, palette, reader, unique_handles


def sweep_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """Mean pseudo-regret at T (±2 SE) against the swept value, one curve per listed setting."""
    table = sweep_table(tables["summary"], fig_cfg)
    xlabel = {"alpha_tilde": "tail parameter α̃ of Patient Bandits", "gap": "gap Δ"}
    fig, ax = plt.subplots(figsize=(7.5, 4.8), layout="constrained")
    for colour, (base, rows) in zip(
        palette("viridis", table.base.nunique()), table.groupby("base", sort=False)
    ):
        _uniform_play(ax, fig_cfg, rows, colour)
        ax.errorbar(
            rows.x,
            rows["mean"],
            yerr=2 * rows.se,
            marker="o",
            ms=3,
            capsize=2,
            color=colour,
            label=fig_cfg["settings"][base].get("label", base),
        )
    ax.set(
        xlabel=reader(xlabel[fig_cfg["sweep"]["key"]]),
        ylabel=f"mean pseudo-regret at T = {fig_cfg['horizon']:,} (±2 SE)",
    )
    legend_outside(fig, *ax.get_legend_handles_labels())
    fig.suptitle(
        reader(f"{captions.title(fig_cfg)}\n{int(table.n_runs.min())} runs per point"), fontsize=10
    )
    return fig


def _uniform_play(
    ax: plt.Axes, fig_cfg: Mapping[str, Any], rows: pd.DataFrame, colour: Any
) -> None:
    """Where the sweep leaves the problem as it is (Figure 2's α̃), uniform play's regret at T
    (exact, from the config) as a dashed line, so that the axis shows the curve's scale against
    what learning nothing scores, and the curve's spread as a share of its minimum, so that a
    narrow axis does not pass a few per cent for a deep U. A sweep that changes the problem
    (Figure 3's gap) has no one such level."""
    cells = grid.settings(fig_cfg)
    if not all("mu" in cells[s] for s in rows.setting):  # means set per point: mu_base + gap
        return
    levels = {uniform_regret(fig_cfg, s, a) for s, a in zip(rows.setting, rows.algorithm)}
    if len(levels) != 1:
        return
    (level,) = levels
    low, high = rows["mean"].min(), rows["mean"].max()
    ax.axhline(
        level,
        color=colour,
        ls="--",
        lw=1,
        label=f"uniform play (learns nothing): {level:,.0f}, exact",
    )
    ax.annotate(
        f"the curve spans {low:,.1f} to {high:,.1f}: {(high - low) / low:.1%} of its minimum,"
        f"\n{(low - level) / level:+.1%} to {(high - level) / level:+.1%} against uniform play",
        xy=(0.98, 0.5 * (low + level)),  # between uniform play and the curve, clear of both
        xycoords=("axes fraction", "data"),
        ha="right",
        va="center",
        fontsize=8,
    )


def alpha_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """alpha_t and alpha_hat_t over time, mean and 5-95% quantiles over runs: one panel per
    Adapt-Patient curve (reading of d_t)."""
    events = tables["events"].dropna(subset=["t"])
    curves = [a for a in fig_cfg["algorithms"] if a in set(events.algorithm)]
    fig, axes = plt.subplots(
        1,
        len(curves),
        figsize=(5.2 * len(curves), 4.5),
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for ax, alg in zip(axes[0], curves):
        own = events[events.algorithm == alg]
        for column, label, colour in (
            ("alpha_t", "α_t, the lower confidence value used", "C0"),
            ("alpha_hat", "α̂_t, the raw estimate", "C1"),
        ):
            stats = own.groupby("t")[column].agg(
                mean="mean", lo=lambda x: x.quantile(0.05), hi=lambda x: x.quantile(0.95)
            )
            ax.plot(stats.index, stats["mean"], color=colour, label=label)
            ax.fill_between(stats.index, stats.lo, stats.hi, color=colour, alpha=0.2, lw=0)
        ax.axhline(0.3, color="black", ls="--", lw=1, label="true α = 0.3")
        ax.set(xlabel="round t", ylim=(0, 1.05), title=reader(cv.label(paper, fig_cfg, alg)))
    axes[0, 0].set_ylabel(reader("estimate of α"))
    legend_outside(fig, *unique_handles(axes[0]))
    fig.suptitle(
        reader(
            f"{captions.title(fig_cfg)}\n{events.replication.nunique()} runs, mean and "
            "5-95% quantiles over runs"
        ),
        fontsize=10,
    )
    return fig


PLOTS = {"alpha_sweep": sweep_figure, "gap_sweep": sweep_figure, "alpha_trace": alpha_figure}
