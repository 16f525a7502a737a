"""What the claims and the figures of Pike-Burke et al. 2018 both compute: regret at T against
the expected delay (Appendix E)."""

from __future__ import annotations

from typing import Any, Mapping

import pandas as pd

from delayed_bandits.papers.pikeburke2018.experiment import Setting


def at_horizon(summary: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> pd.DataFrame:
    """The summary at T, with each setting's expected delay as ``mean_delay``."""
    last = summary[summary.t == summary.t.max()].copy()
    means = {
        name: Setting.from_config(cfg, name).delay.mean for name, cfg in fig_cfg["settings"].items()
    }
    last["mean_delay"] = last.setting.map(means)
    return last
