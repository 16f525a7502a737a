"""Replications to summaries: mean, standard error and quantiles of regret per checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from delayed_bandits.errors import ConfigError
from delayed_bandits.tables import SHARD_COLUMNS, Binding, read_shard

SUMMARY_COLUMNS = ["setting", "algorithm", "t", "mean", "se", "q05", "q95", "n_runs"]


def read_shards(paths: Iterable[str | Path], binding: Binding | None) -> pd.DataFrame:
    """Concatenate raw shard files; a replication present twice is an error, not averaged, and a
    corrupt or truncated shard, or one made by another config than ``binding`` says, is an error
    naming the file (``tables.read_shard``)."""
    frames = [read_shard(p, binding) for p in paths]
    if not frames:
        raise ConfigError("no shard files given to aggregate")
    raw = pd.concat(frames, ignore_index=True)
    dup = raw.duplicated(["setting", "algorithm", "replication", "t"])
    if dup.any():
        row = raw[dup].iloc[0]
        raise ConfigError(
            f"replication {row.replication} of {row.setting}/{row.algorithm} "
            "appears in more than one shard"
        )
    return raw


def read_runs(
    paths: Iterable[str | Path], curves: Iterable[tuple[str, str]], binding: Binding
) -> pd.DataFrame:
    """A figure's shards as one table of every run, columns ``SHARD_COLUMNS`` (what its claims
    read as ``tables["runs"]``), read by ``read_shards`` (each made by the config ``binding``
    says); a curve (setting, algorithm) of ``curves`` with no runs is an error naming it."""
    raw = read_shards(paths, binding)[SHARD_COLUMNS]
    absent = sorted(set(curves) - set(zip(raw.setting, raw.algorithm)))
    if absent:
        raise ConfigError(
            "the shards given hold no runs of " + ", ".join(f"{s}/{a}" for s, a in absent)
        )
    return raw


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Tidy summary with columns ``SUMMARY_COLUMNS``; se = sd / sqrt(n) (0 for a single run)."""
    grouped = raw.groupby(["setting", "algorithm", "t"], sort=True)["regret"]
    out = grouped.agg(
        mean="mean",
        sd="std",
        n_runs="count",
        q05=lambda x: np.quantile(x, 0.05),
        q95=lambda x: np.quantile(x, 0.95),
    )
    out["se"] = (out.pop("sd").fillna(0.0) / np.sqrt(out["n_runs"])).astype(float)
    return out.reset_index()[SUMMARY_COLUMNS]


RATIO_COLUMNS = ["setting", "algorithm", "t", "ratio", "lo", "hi", "n_runs"]


def ratio_of_means(
    raw: pd.DataFrame, baseline: str, n_boot: int, seed: np.random.SeedSequence
) -> pd.DataFrame:
    """Ratio of each algorithm's mean regret to the baseline's, per setting and checkpoint, with
    a 95% percentile-bootstrap band (Pike-Burke et al. 2018, Figure 3).

    The replications are paired (same realisation for every algorithm), so each bootstrap sample
    resamples replication indices once and applies them to numerator and baseline alike."""
    rng = np.random.default_rng(seed)
    out = []
    for setting, group in raw.groupby("setting", sort=True):
        wide = {
            alg: g.pivot(index="replication", columns="t", values="regret")
            for alg, g in group.groupby("algorithm")
        }
        if baseline not in wide:
            raise ConfigError(f"setting {setting}: the baseline {baseline!r} has no results")
        base = wide.pop(baseline)
        n = len(base)
        # weights[b, r] = how often replication r is drawn in bootstrap sample b, over n
        draws = rng.integers(0, n, size=(n_boot, n))
        weights = np.stack([np.bincount(row, minlength=n) for row in draws]) / n
        base_boot = weights @ base.to_numpy()
        for alg, num in sorted(wide.items()):
            num = num.reindex(index=base.index, columns=base.columns)
            if num.isna().any().any():
                raise ConfigError(
                    f"setting {setting}: {alg} and {baseline} are not paired "
                    "(different replications or checkpoints)"
                )
            with np.errstate(divide="ignore", invalid="ignore"):
                boot = (weights @ num.to_numpy()) / base_boot
                ratio = num.mean().to_numpy() / base.mean().to_numpy()
            lo, hi = np.nanquantile(boot, [0.025, 0.975], axis=0)
            out.append(
                pd.DataFrame(
                    {
                        "setting": setting,
                        "algorithm": alg,
                        "t": base.columns,
                        "ratio": ratio,
                        "lo": lo,
                        "hi": hi,
                        "n_runs": n,
                    }
                )
            )
    return pd.concat(out, ignore_index=True)[RATIO_COLUMNS]
