"""Figures of Pike-Burke et al. 2018: regret ratios over QPM-D (Figure 3) and regret at T against
the expected delay (Appendix E)."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.legend_handler import HandlerTuple
from matplotlib.ticker import EngFormatter

from delayed_bandits import algorithms, captions
from delayed_bandits import curves as cv
from delayed_bandits.papers.pikeburke2018.analysis import at_horizon
from delayed_bandits.papers.pikeburke2018.experiment import coefficient_band
from delayed_bandits.style import legend_outside, palette, reader, unique_handles

STYLES = {"qpm-d": "--", "odaaf": "-", "odaaf-b": ":", "odaaf-v": ":"}
"""Figure 3's line styles: ODAAF solid, ODAAF-B and ODAAF-V dotted (QPM-D dashed); any other
variant dash-dotted."""


def ratio_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """A column per delay law: on top the ratio of mean regrets to QPM-D's with the bootstrap
    band, below the regrets themselves (±2 SE); ODAAF solid, ODAAF-B or ODAAF-V dotted (as in
    Figure 3), other variants dash-dotted, QPM-D dashed, a colour per curve shared by all
    panels, and ODAAF's delay-coefficient band (``coefficient_band``) hatched between its extreme
    curves. Rows share their y axis, so the laws compare across columns."""
    ratios, summary = tables["ratios"], tables["summary"]
    settings = list(fig_cfg["settings"])
    band = coefficient_band(fig_cfg)
    members = {c for law in band.values() for c in law if c != "odaaf"}
    curves = [alg for alg in fig_cfg["algorithms"] if alg not in members]
    others = [alg for alg in curves if alg != "qpm-d"]
    colours = {"qpm-d": "0.25", **dict(zip(others, palette("tab10", len(others))))}
    fig, axes = plt.subplots(
        2,
        len(settings),
        figsize=(3.3 * len(settings) + 1.2, 7.2),
        sharex=True,
        sharey="row",
        squeeze=False,
        layout="constrained",
    )
    for column, name in enumerate(settings):
        top, bottom = axes[0, column], axes[1, column]
        for panel, table, value, lo, hi in (
            (top, ratios, "ratio", "lo", "hi"),
            (bottom, summary, "mean", None, None),
        ):
            rows = table[table.setting == name]
            for alg in curves:
                curve = rows[rows.algorithm == alg].sort_values("t")
                if curve.empty:
                    continue
                low = curve[lo] if lo else curve["mean"] - 2 * curve.se
                high = curve[hi] if hi else curve["mean"] + 2 * curve.se
                panel.plot(
                    curve.t,
                    curve[value],
                    STYLES.get(alg, "-."),
                    color=colours[alg],
                    label=cv.label(paper, fig_cfg, alg),
                )
                panel.fill_between(curve.t, low, high, color=colours[alg], alpha=0.2, lw=0)
            if band.get(name) and len(band[name]) > 1:
                wide = rows[rows.algorithm.isin(band[name])].pivot(
                    index="t", columns="algorithm", values=value
                )
                for member in band[name]:
                    if member != "odaaf":
                        panel.plot(wide.index, wide[member], "-", color=colours["odaaf"], lw=0.5)
                coefficients = band[name].values()
                panel.fill_between(
                    wide.index,
                    wide.min(axis=1),
                    wide.max(axis=1),
                    facecolor="none",
                    edgecolor=colours["odaaf"],
                    hatch="////",
                    lw=0,
                    alpha=0.5,
                    label=f"ODAAF with the delay coefficient of D_m from "
                    f"{min(coefficients):g} to {max(coefficients):g} "
                    "(hatched)",
                )
        top.axhline(
            1.0, color=colours["qpm-d"], ls="--", lw=1, label=cv.label(paper, fig_cfg, "qpm-d")
        )
        top.set_title(reader(fig_cfg["settings"][name].get("label", name)), fontsize=9)
        bottom.set_xlabel("time t")
        bottom.xaxis.set_major_formatter(EngFormatter(sep=""))
    axes[0, 0].set_ylabel("ratio of mean pseudo-regret to QPM-D's\n(95% paired bootstrap band)")
    axes[1, 0].set_ylabel("mean pseudo-regret (±2 SE)")
    handles, labels = unique_handles(axes.ravel())
    legend_outside(fig, handles, labels)
    n_runs = int(summary.n_runs.min())
    fig.suptitle(
        reader(
            f"{captions.title(fig_cfg)}\nμ = (0.5, 0.6), T = {fig_cfg['horizon']}, {n_runs} runs"
        ),
        fontsize=10,
    )
    return fig


def delay_sweep_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """Mean regret at T (±2 SE) against E[tau], with a least-squares line per algorithm."""
    at_t = at_horizon(tables["summary"], fig_cfg)
    fig, ax = plt.subplots(figsize=(7, 4.8), layout="constrained")
    handles, labels = [], []
    for colour, (alg, rows) in zip(palette("tab10", 10), at_t.groupby("algorithm")):
        rows = rows.sort_values("mean_delay")
        points = ax.errorbar(
            rows.mean_delay, rows["mean"], yerr=2 * rows.se, fmt="o", color=colour, capsize=3
        )
        slope, intercept = np.polyfit(rows.mean_delay, rows["mean"], 1)
        x = np.linspace(0, rows.mean_delay.max(), 50)
        (line,) = ax.plot(x, intercept + slope * x, color=colour, lw=1)
        handles.append((points, line))
        labels.append(
            f"{algorithms.get(paper, alg).label}; least-squares line "
            f"{intercept:.0f} + {slope:.3g} E[τ]"
        )
    ax.set(
        xlabel=reader("expected delay E[τ]"),
        ylabel=f"mean pseudo-regret at T = {fig_cfg['horizon']} (±2 SE)",
    )
    legend_outside(fig, handles, labels, ncol=1, handler_map={tuple: HandlerTuple(ndivide=None)})
    fig.suptitle(
        reader(f"{captions.title(fig_cfg)}\n{int(at_t.n_runs.min())} runs per point"), fontsize=10
    )
    return fig


PLOTS = {"ratio": ratio_figure, "delay_sweep": delay_sweep_figure}
