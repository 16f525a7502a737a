"""The arena's leaderboard: regret at T of every algorithm in every setting, ranked within the
setting, with what each algorithm was told and why some do not apply (issue 13)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import config, delays
from delayed_bandits.algorithms import get
from delayed_bandits.claims import at
from delayed_bandits.papers.arena import experiment as arena

PAPER = "arena"
COLUMNS = ["setting", "regime", "regime_label", "delay", "arm_dependent", "censored", "window",
           "n_arms", "gap",
           "algorithm", "label", "feedback", "knows", "applicable", "reason", "regret", "se",
           "n_runs", "rank", "ratio"]


def build(summary: pd.DataFrame, fig: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (setting, algorithm) of the figure, in config order. ``regret`` and ``se`` are
    the mean pseudo-regret at T and its standard error; ``rank`` 1 is the lowest regret among the
    setting's applicable algorithms (ties share the lower rank) and ``ratio`` is the regret over
    that lowest one. A curve missing from the summary although it applies is an error."""
    rows = []
    for name, raw in config.settings(fig).items():
        st = arena.Setting.from_config(raw, name)
        regime = config.listed_setting(fig, name)
        for algorithm in fig["algorithms"]:
            reason = get(PAPER, algorithm).applies(st)
            point = None if reason else at(summary, name, algorithm)
            runs = summary[(summary.setting == name) & (summary.algorithm == algorithm)]
            rows.append({
                "setting": name, "regime": regime, "regime_label": raw.get("label", regime),
                "delay": delays.describe(raw["delay"]), "arm_dependent": st.arm_dependent,
                "censored": st.censored,
                "window": st.window, "n_arms": st.n_arms, "gap": float(raw["gap"]),
                "algorithm": algorithm, "label": config.label(PAPER, fig, algorithm),
                "feedback": arena.FEEDBACK_OF[algorithm], "knows": arena.told(algorithm, st),
                "applicable": not reason, "reason": reason,
                "regret": point.mean if point else np.nan, "se": point.se if point else np.nan,
                "n_runs": int(runs.n_runs.max()) if point else 0,
            })
    board = pd.DataFrame(rows, columns=COLUMNS[:-2])
    by_setting = board.groupby("setting", sort=False).regret
    board["rank"] = by_setting.rank(method="min")
    best = by_setting.transform("min")
    board["ratio"] = np.where(best > 0, board.regret / best.where(best > 0, 1.0), np.nan)
    return board[COLUMNS]
