"""Figures of Pike-Burke et al. 2018: regret ratios over QPM-D (Figure 3) and regret at T against
the expected delay (Appendix E)."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from delayed_bandits import algorithms, config
from delayed_bandits.papers.pikeburke2018.analysis import at_horizon
from delayed_bandits.papers.pikeburke2018.experiment import coefficient_band
from delayed_bandits.style import palette


def ratio_figure(tables: Mapping[str, pd.DataFrame], paper: str, figure: str,
                 fig_cfg: Mapping[str, Any]) -> plt.Figure:
    """Left: ratio of mean regrets to QPM-D's with the bootstrap band, one colour per delay law,
    ODAAF solid and the informed variant dotted (as in Figure 3); ODAAF's delay-coefficient band
    (``coefficient_band``) hatched between its extreme curves, other variants dash-dotted.
    Right: the regrets themselves, drawn the same way."""
    ratios, summary = tables["ratios"], tables["summary"]
    settings = list(fig_cfg["settings"])
    colours = dict(zip(settings, palette("tab10", len(settings))))
    styles = {"odaaf": "-", "odaaf-b": ":", "odaaf-v": ":", "qpm-d": "--"}
    band = coefficient_band(fig_cfg)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 6.4))
    for name in settings:
        label = fig_cfg["settings"][name].get("label", name)
        members = [c for c in band.get(name, {}) if c != "odaaf"]
        for panel, table, value, lo, hi in ((left, ratios, "ratio", "lo", "hi"),
                                            (right, summary, "mean", None, None)):
            rows = table[table.setting == name]
            for alg, curve in rows[~rows.algorithm.isin(members)].groupby("algorithm"):
                curve = curve.sort_values("t")
                low = curve[lo] if lo else curve["mean"] - 2 * curve.se
                high = curve[hi] if hi else curve["mean"] + 2 * curve.se
                panel.plot(curve.t, curve[value], styles.get(alg, "-."), color=colours[name],
                           label=f"{config.label(paper, fig_cfg, alg)}, {label}")
                panel.fill_between(curve.t, low, high, color=colours[name], alpha=0.15, lw=0)
            if members:
                wide = rows[rows.algorithm.isin(band[name])].pivot(
                    index="t", columns="algorithm", values=value)
                for member in members:
                    panel.plot(wide.index, wide[member], "-", color=colours[name], lw=0.5)
                coefficients = band[name].values()
                panel.fill_between(wide.index, wide.min(axis=1), wide.max(axis=1),
                                   facecolor="none", edgecolor=colours[name], hatch="////",
                                   lw=0, alpha=0.5,
                                   label=f"ODAAF, D_m coefficient {min(coefficients):g}-"
                                         f"{max(coefficients):g}, {label}")
    left.axhline(1.0, color="black", lw=0.8)
    left.set(xlabel="time t", ylabel="regret ratio to QPM-D",
             title="ratio of mean pseudo-regrets (95% paired bootstrap band)")
    right.set(xlabel="time t", ylabel="mean pseudo-regret (±2 SE)",
              title="pseudo-regret; QPM-D dashed")
    for panel in (left, right):  # below the axes: a dozen curves would hide the ratios
        panel.legend(fontsize=6, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    n_runs = int(summary.n_runs.min())
    fig.suptitle(f"{fig_cfg['title']}\nμ = (0.5, 0.6), T = {fig_cfg['horizon']}, {n_runs} runs",
                 fontsize=10)
    return fig


def delay_sweep_figure(tables: Mapping[str, pd.DataFrame], paper: str, figure: str,
                       fig_cfg: Mapping[str, Any]) -> plt.Figure:
    """Mean regret at T (±2 SE) against E[tau], with a least-squares line per algorithm."""
    at_t = at_horizon(tables["summary"], fig_cfg)
    fig, ax = plt.subplots(figsize=(7, 4.4))
    for colour, (alg, rows) in zip(palette("tab10", 10), at_t.groupby("algorithm")):
        rows = rows.sort_values("mean_delay")
        ax.errorbar(rows.mean_delay, rows["mean"], yerr=2 * rows.se, fmt="o", color=colour,
                    label=algorithms.get(paper, alg).label, capsize=3)
        slope, intercept = np.polyfit(rows.mean_delay, rows["mean"], 1)
        x = np.linspace(0, rows.mean_delay.max(), 50)
        ax.plot(x, intercept + slope * x, color=colour, lw=1,
                label=f"fit: {intercept:.0f} + {slope:.1f} E[τ]")
    ax.set(xlabel="expected delay E[τ]", ylabel=f"mean pseudo-regret at T = {fig_cfg['horizon']}")
    ax.legend(fontsize=7)
    fig.suptitle(f"{fig_cfg['title']}\n{int(at_t.n_runs.min())} runs per point", fontsize=10)
    return fig


PLOTS = {"ratio": ratio_figure, "delay_sweep": delay_sweep_figure}
