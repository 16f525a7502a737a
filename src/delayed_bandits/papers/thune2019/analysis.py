"""What the claims and the figure of Thune et al. 2019, Example 8, both compute: the grid of
horizons T, the explicit and oracle regret bounds on it (Corollary 4, Theorem 7), the measured
regret at each T, and slopes: least-squares fits of log value on log T over the upper half of the
T grid (T >= sqrt(T_min T_max))."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits.papers.thune2019 import bounds as sb
from delayed_bandits.papers.thune2019.experiment import Setting


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
    points = [
        GridPoint(
            name, int(scfg.get("horizon", fig_cfg["horizon"])), Setting.from_config(scfg, name)
        )
        for name, scfg in fig_cfg["settings"].items()
    ]
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
        rows.append(
            {
                "setting": p.setting,
                "T": p.horizon,
                "K": p.problem.n_arms,
                "explicit": sb.corollary7_bound(delays, p.problem.n_arms),
                "oracle": sb.theorem6_bound(delays, p.problem.n_arms),
                "beta": beta,
                "skipped": stats.skipped,
                "D": stats.total_delay,
                "D_beta": stats.experienced_delay,
            }
        )
    return pd.DataFrame(rows)


def at_horizon(summary: pd.DataFrame, points: list[GridPoint]) -> pd.DataFrame:
    """Each (setting, algorithm) curve's row at its own T, with T as a column."""
    horizon = {p.setting: p.horizon for p in points}
    last = summary[summary.t == summary.setting.map(horizon)].copy()
    last["T"] = last.t
    return last.sort_values(["algorithm", "T"])


def grid_between(points: list[GridPoint], n: int) -> list[GridPoint]:
    """``n`` log-spaced horizons from the smallest to the largest T, with the largest T's
    problem: the bound curves between the simulated points."""
    horizons = np.unique(np.round(np.geomspace(points[0].horizon, points[-1].horizon, n)))
    return [GridPoint(f"T={int(h)}", int(h), points[-1].problem) for h in horizons]
