"""Figure of Thune et al. 2019, Example 8: the explicit and oracle bounds against T, the measured
regret against T, and the regret against time at the largest T. Slopes are least-squares fits of
log value on log T over the upper half of the T grid (T >= sqrt(T_min T_max))."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from delayed_bandits import algorithms
from delayed_bandits import skipper_bounds as sb
from delayed_bandits.papers.thune2019.experiment import Setting
from delayed_bandits.papers.thune2019 import policies as p19
from delayed_bandits.style import palette


@dataclass(frozen=True)
class GridPoint:
    """One setting of the figure: its id, its horizon T and its problem."""

    setting: str
    horizon: int
    problem: Setting


@dataclass(frozen=True)
class Fit:
    """Slope of log y on log T, with its standard error from the points' own standard errors
    (delta method: var log y_i = (se_i / y_i)^2); 0 for exact values such as bounds."""

    slope: float
    se: float

    def __str__(self) -> str:
        return f"{self.slope:.2f}" + (f" ± {self.se:.1g}" if self.se > 0 else "")


def grid(fig_cfg: Mapping[str, Any]) -> list[GridPoint]:
    """The figure's settings in increasing order of T."""
    points = [GridPoint(name, int(scfg.get("horizon", fig_cfg["horizon"])),
                        Setting.from_config(scfg, name))
              for name, scfg in fig_cfg["settings"].items()]
    return sorted(points, key=lambda p: p.horizon)


def upper_half(horizons: np.ndarray) -> np.ndarray:
    """Mask of the T values at or above the grid's geometric middle, sqrt(T_min T_max)."""
    horizons = np.asarray(horizons, dtype=np.float64)
    return horizons >= np.sqrt(horizons.min() * horizons.max()) * (1 - 1e-12)


def loglog_fit(horizons: np.ndarray, values: np.ndarray, se: np.ndarray | None = None) -> Fit:
    """Least-squares slope of log values on log T; ``se`` gives the slope's standard error."""
    x = np.log(np.asarray(horizons, dtype=np.float64))
    y = np.log(np.asarray(values, dtype=np.float64))
    weights = (x - x.mean()) / np.sum((x - x.mean()) ** 2)  # slope = sum weights * y
    slope = float(np.sum(weights * y))
    if se is None:
        return Fit(slope, 0.0)
    relative = np.asarray(se, dtype=np.float64) / np.asarray(values, dtype=np.float64)
    return Fit(slope, float(np.sqrt(np.sum((weights * relative) ** 2))))


def bounds(points: list[GridPoint]) -> pd.DataFrame:
    """Corollary 7 (explicit) and Theorem 6 (oracle) bounds on each point's delays, with
    Example 8's beta = sqrt(K T / ln K) and |S_beta|, D, D_beta there."""
    rows = []
    for p in points:
        delays = p.problem.delays(p.horizon)
        beta = sb.example8_threshold(p.horizon, p.problem.n_arms)
        stats = sb.skip_stats(delays, beta)
        rows.append({"setting": p.setting, "T": p.horizon, "K": p.problem.n_arms,
                     "explicit": sb.corollary7_bound(delays, p.problem.n_arms),
                     "oracle": sb.theorem6_bound(delays, p.problem.n_arms),
                     "beta": beta, "skipped": stats.skipped, "D": stats.total_delay,
                     "D_beta": stats.experienced_delay})
    return pd.DataFrame(rows)


def at_horizon(summary: pd.DataFrame, points: list[GridPoint]) -> pd.DataFrame:
    """Each (setting, algorithm) curve's row at its own T, with T as a column."""
    horizon = {p.setting: p.horizon for p in points}
    last = summary[summary.t == summary.setting.map(horizon)].copy()
    last["T"] = last.t
    return last.sort_values(["algorithm", "T"])


def example8_figure(tables: Mapping[str, pd.DataFrame], paper: str, figure: str,
                    fig_cfg: Mapping[str, Any]) -> plt.Figure:
    """(a) the bounds against T; (b) mean regret at T (±2 SE) against T, with uniform play's
    linear regret dotted; (c) mean regret (±2 SE) against t at the largest T. Log-log in (a)
    and (b), fitted slopes (upper half of the grid) in the legends."""
    summary = tables["summary"]
    points = grid(fig_cfg)
    horizons = np.array([p.horizon for p in points])
    upper = upper_half(horizons)
    colours = dict(zip(fig_cfg["algorithms"], palette("tab10", len(fig_cfg["algorithms"]))))
    fig, (left, middle, right) = plt.subplots(1, 3, figsize=(16, 4.8))

    table = bounds(points)
    fine_table = bounds(grid_between(points, int(fig_cfg["bound_points"])))
    for column, label, style in (("explicit", "explicit, Corollary 7", "-"),
                                 ("oracle", "oracle, Theorem 6", "--")):
        fit = loglog_fit(table["T"][upper], table[column][upper])
        left.plot(fine_table["T"], fine_table[column], style, color="black",
                  label=f"{label}: slope {fit}")
        left.plot(table["T"], table[column], "o", color="black", markersize=4)
    left.set(xscale="log", yscale="log", xlabel="horizon T", ylabel="regret bound",
             title="(a) bounds on Example 8's delays")
    left.legend(fontsize=8)

    last = at_horizon(summary, points)
    upper_settings = {p.setting for p, keep in zip(points, upper) if keep}
    for alg in fig_cfg["algorithms"]:
        rows = last[last.algorithm == alg]
        if rows.empty:
            continue
        fitted = rows[rows.setting.isin(upper_settings)]
        fit = loglog_fit(fitted["T"], fitted["mean"], fitted.se)
        middle.errorbar(rows["T"], rows["mean"], yerr=2 * rows.se, fmt="o-", capsize=3,
                        color=colours[alg], markersize=4,
                        label=f"{algorithms.get(paper, alg).label}: slope {fit}")
    linear = [p.problem.uniform_play_regret(p.horizon) for p in points]
    middle.plot(horizons, linear, ":", color="black", linewidth=1.5, zorder=3,
                label="uniform play (linear)")
    middle.set(xscale="log", yscale="log", xlabel="horizon T", ylabel="mean regret at T (±2 SE)",
               title="(b) regret against T")
    middle.legend(fontsize=8)

    largest = points[-1]
    for alg in fig_cfg["algorithms"]:
        rows = summary[(summary.setting == largest.setting)
                       & (summary.algorithm == alg)].sort_values("t")
        right.plot(rows.t, rows["mean"], color=colours[alg],
                   label=algorithms.get(paper, alg).label)
        right.fill_between(rows.t, rows["mean"] - 2 * rows.se, rows["mean"] + 2 * rows.se,
                           color=colours[alg], alpha=0.2, linewidth=0)
    if "doubling" in fig_cfg["algorithms"]:
        # Doubling restarts DEW at each epoch start: the steps of its curve
        epochs = p19.doubling_epochs(largest.problem.delays(largest.horizon),
                                     largest.problem.n_arms)
        for i, (_, start, _) in enumerate(epochs):
            right.axvline(start, color=colours["doubling"], linestyle=":", linewidth=0.8,
                          label="Doubling's epoch starts" if i == 0 else None)
    right.set(yscale="log", xlabel="round t", ylabel="mean regret (±2 SE)",
              title=f"(c) regret against time, T = {largest.horizon:,}")
    right.legend(fontsize=8)

    problem = largest.problem
    n_runs = int(summary.n_runs.min()) if not summary.empty else 0
    fig.suptitle(f"{fig_cfg['title']}\nK = {problem.n_arms}, losses {problem.losses.kind} "
                 f"(gap {problem.losses.gap}), slopes fitted for T ≥ "
                 f"{horizons[upper].min():,}, {n_runs} runs per point", fontsize=10)
    return fig


def grid_between(points: list[GridPoint], n: int) -> list[GridPoint]:
    """``n`` log-spaced horizons from the smallest to the largest T, with the largest T's
    problem: the bound curves between the simulated points."""
    horizons = np.unique(np.round(np.geomspace(points[0].horizon, points[-1].horizon, n)))
    return [GridPoint(f"T={int(h)}", int(h), points[-1].problem) for h in horizons]


PLOTS = {"example8": example8_figure}
