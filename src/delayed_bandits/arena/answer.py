"""The answer per regime family: each entrant's mean paired ratio of regret to Thompson sampling
that ignores delays (``REFERENCE``, which runs in every setting), over the settings of a family,
with a 95 % interval over the paired runs, the settings as fixed effects
(docs/decisions/arena.md#screening).

Per setting s, the ratio of means r_s = mean(a) / mean(ts) over its paired runs, and its standard
error by the delta method on the paired runs, se_s = sd(a - r_s ts) / (sqrt(n) mean(ts))
(``setting_ratios``). Per family, the plain mean of its settings' ratios and its standard error
sqrt(sum se_s^2) / S (``family_table``): the settings are the family's fixed members, not a
sample of regimes, so only the runs' noise enters the interval. One sentence per family names
the best entrant of each information model and what it buys over the reference
(``sentences``)."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
from scipy import stats as sps

REFERENCE = "ts"
"""Thompson sampling that ignores delays: the entrant every ratio is to."""


def setting_ratios(runs: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Per (setting, algorithm) of ``runs`` (columns setting, replication, algorithm, regret;
    an algorithm's replications paired with the reference's), ``ratio`` r_s to the reference's
    mean, ``se`` its delta-method standard error on the paired runs, and ``n_runs`` (the
    replications both have). A setting without the reference raises."""
    rows = []
    for setting, group in runs.groupby("setting", sort=False):
        wide = group.pivot(index="replication", columns="algorithm", values="regret")
        if reference not in wide:
            raise ValueError(f"setting {setting!r}: no runs of the reference {reference!r}")
        for alg in wide.columns:
            pair = wide[[alg, reference]].dropna().to_numpy()
            n = len(pair)
            base = pair[:, 1].mean()
            ratio = pair[:, 0].mean() / base
            z = (pair[:, 0] - ratio * pair[:, 1]) / base
            se = z.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
            rows.append((setting, alg, ratio, se, n))
    return pd.DataFrame(rows, columns=["setting", "algorithm", "ratio", "se", "n_runs"])


def family_table(
    ratios: pd.DataFrame, family: Mapping[str, str], confidence: float = 0.95
) -> pd.DataFrame:
    """Per (family, algorithm): the mean over the family's settings (``family``: setting ->
    family) of the per-setting ratios (``setting_ratios``), its standard error
    sqrt(sum se_s^2) / S, the normal ``confidence`` interval (``lo``, ``hi``), and the number
    of ``settings``. A setting of ``ratios`` with no family raises."""
    missing = sorted(set(ratios.setting) - set(family))
    if missing:
        raise ValueError(f"settings with no family: {', '.join(map(str, missing))}")
    z = sps.norm.ppf(1 - (1 - confidence) / 2)
    framed = ratios.assign(family=ratios.setting.map(family))
    out = framed.groupby(["family", "algorithm"], sort=False).agg(
        ratio=("ratio", "mean"),
        se=("se", lambda s: float(np.sqrt((s**2).sum())) / len(s)),
        settings=("setting", "nunique"),
    )
    out = out.reset_index()
    return out.assign(lo=out.ratio - z * out.se, hi=out.ratio + z * out.se)


def sentences(
    table: pd.DataFrame, information: Mapping[str, str], labels: Mapping[str, str]
) -> dict[str, str]:
    """Per family of ``table`` (``family_table``), one sentence: for each information model
    (``information``: algorithm -> model), the entrant with the lowest mean ratio, its ratio to
    the reference with the interval, and what that buys (a cut of regret where the interval lies
    below 1, a cost where above, else no difference shown)."""
    out = {}
    for fam, rows in table.groupby("family", sort=False):
        parts = []
        framed = rows.assign(model=rows.algorithm.map(information))
        for model, group in framed.dropna(subset=["model"]).groupby("model", sort=False):
            best = group.loc[group.ratio.idxmin()]
            if best.hi < 1:
                buys = f"{100 * (1 - best.ratio):.0f} % less regret than {REFERENCE}"
            elif best.lo > 1:
                buys = f"{100 * (best.ratio - 1):.0f} % more regret than {REFERENCE}"
            else:
                buys = f"no difference from {REFERENCE} shown"
            parts.append(
                f"{model}: {labels.get(best.algorithm, best.algorithm)} at {best.ratio:.2f} x "
                f"[{best.lo:.2f}, {best.hi:.2f}] ({buys})"
            )
        out[fam] = f"{fam}: " + "; ".join(parts) + "."
    return out
