"""Replications to summaries: mean, standard error and quantiles of regret per checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from delayed_bandits.errors import ConfigError

SUMMARY_COLUMNS = ["setting", "algorithm", "t", "mean", "se", "q05", "q95", "n_runs"]


def read_shards(paths: Iterable[str | Path]) -> pd.DataFrame:
    """Concatenate raw shard files; a replication present twice is an error, not averaged."""
    frames = [pd.read_parquet(p) for p in paths]
    if not frames:
        raise ConfigError("no shard files given to aggregate")
    raw = pd.concat(frames, ignore_index=True)
    dup = raw.duplicated(["setting", "algorithm", "replication", "t"])
    if dup.any():
        row = raw[dup].iloc[0]
        raise ConfigError(f"replication {row.replication} of {row.setting}/{row.algorithm} "
                          "appears in more than one shard")
    return raw


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Tidy summary with columns ``SUMMARY_COLUMNS``; se = sd / sqrt(n) (0 for a single run)."""
    grouped = raw.groupby(["setting", "algorithm", "t"], sort=True)["regret"]
    out = grouped.agg(mean="mean", sd="std", n_runs="count",
                      q05=lambda x: np.quantile(x, 0.05), q95=lambda x: np.quantile(x, 0.95))
    out["se"] = (out.pop("sd").fillna(0.0) / np.sqrt(out["n_runs"])).astype(float)
    return out.reset_index()[SUMMARY_COLUMNS]
