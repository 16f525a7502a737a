"""What the claims and the figures of Manegueu et al. 2020 both compute: regret at T along a
sweep."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from delayed_bandits import grid


def sweep_table(summary: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> pd.DataFrame:
    """The summary at T, with the listed setting (``base``) and the swept value (``x``)."""
    key = fig_cfg["sweep"]["key"]
    cells = grid.settings(fig_cfg)
    last = summary[summary.t == summary.t.max()].copy()
    last["x"] = last.setting.map({name: cfg[key] for name, cfg in cells.items()})
    last["base"] = last.setting.str.rsplit("-", n=1).str[0]
    return last.sort_values(["base", "x"])
