"""What the claims and the figures of Manegueu et al. 2020 both compute: regret at T along a
sweep."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import curves as cv
from delayed_bandits import grid


def sweep_table(summary: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> pd.DataFrame:
    """The summary at T, with the listed setting (``base``) and the swept value (``x``)."""
    key = fig_cfg["sweep"]["key"]
    cells = grid.settings(fig_cfg)
    last = summary[summary.t == summary.t.max()].copy()
    last["x"] = last.setting.map({name: cfg[key] for name, cfg in cells.items()})
    last["base"] = last.setting.str.rsplit("-", n=1).str[0]
    return last.sort_values(["base", "x"])


def uniform_regret(fig_cfg: Mapping[str, Any], setting: str, alg: str) -> float:
    """Pseudo-regret at T of uniform play, T mean_i(max mu - mu_i), from the config: what
    a policy that learns nothing scores, drawn under Figure 2's curve (Section 8.1)."""
    mu = np.asarray(cv.resolve(fig_cfg, grid.settings(fig_cfg)[setting], alg)[1]["mu"])
    return float(fig_cfg["horizon"] * np.mean(mu.max() - mu))
