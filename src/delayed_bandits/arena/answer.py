"""The answer per regime family: each entrant's mean paired ratio of regret to Thompson sampling
that ignores delays (``REFERENCE``, which runs in every setting), over the settings of a family,
with a 95 % interval over the paired runs, the settings as fixed effects
(docs/decisions/arena.md#families).

A family (``family``, declared here once) is a delay regime (``regime``: short delays, long
delays, a heavy tail, arm-dependent tails, packet loss, reward-dependent delays), censored or not,
at one base rate; the grid's numbers of arms and gaps are its settings.

Per setting s, the ratio of means r_s = mean(a) / mean(ts) over its paired runs, and its standard
error by the delta method on the paired runs, se_s = sd(a - r_s ts) / (sqrt(n) mean(ts))
(``setting_ratios``). Per family, the plain mean of its settings' ratios and its standard error
sqrt(sum se_s^2) / S (``family_table``): the settings are the family's fixed members, not a
sample of regimes, so only the runs' noise enters the interval. One sentence per family names
the best entrant of each information model and what it buys over the reference
(``sentences``)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd
from scipy import stats as sps

from delayed_bandits import curves as cv
from delayed_bandits import delays, grid
from delayed_bandits.algorithms import get
from delayed_bandits.arena.problem import Setting

PAPER = "arena"

REFERENCE = "ts"
"""Thompson sampling that ignores delays: the entrant every ratio is to."""

LONG = 0.5
"""A law whose CDF at the window m is below this is a regime of long delays: most conversions
come later than m (tau_m < 1/2; geometric, mean 1000 at m = 200: 0.18; the Criteo-like law)."""

REGIMES = (
    "short delays",
    "long delays",
    "heavy tail",
    "arm-dependent tails",
    "packet loss",
    "reward-dependent",
)
"""The delay regimes of the families, in the order tables list them (``regime``)."""


def regime(st: Setting) -> str:
    """The delay regime of a setting (``REGIMES``): reward-dependent where a 0 has a law of its
    own; packet loss; arm-dependent tails where the arms' laws differ; a heavy tail where the
    law has an infinite mean (Pareto, alpha <= 1: Manegueu et al. 2020's regime); else long or
    short delays by tau_m (``LONG``), the law's CDF at the window."""
    if st.reward_dependent:
        return "reward-dependent"
    if isinstance(st.delay, delays.PacketLoss):
        return "packet loss"
    if st.arm_dependent:
        return "arm-dependent tails"
    if isinstance(st.delay, delays.Pareto) and st.delay.alpha <= 1:
        return "heavy tail"
    return "long delays" if float(st.delay.cdf(st.window)) < LONG else "short delays"


def family(st: Setting, base_mean: float) -> str:
    """A setting's family: its regime (``regime``), censored or not, and its base rate, e.g.
    'heavy tail, censored, μ = 0.4' (packet loss is censored by construction, and a
    reward-dependent regime is named without it)."""
    name = regime(st)
    if name not in ("packet loss", "reward-dependent"):
        name += ", censored" if st.censored else ", uncensored"
    return f"{name}, μ = {base_mean:g}"


def families(fig: Mapping[str, Any]) -> dict[str, str]:
    """Every setting of the figure (by id) and its family (``family``), in config order."""
    return {
        point.id: family(Setting.from_config(raw, point.id), float(raw["base_mean"]))
        for point, raw in grid.selected(fig).items()
    }


def rate(name: str) -> float:
    """The base rate of a family named by ``family``."""
    return float(name.rsplit("μ = ", 1)[1])


def order(names: Mapping[str, str]) -> list[str]:
    """The families of ``families`` in reading order: base rates high to low, then ``REGIMES``,
    uncensored first."""

    def key(name: str) -> tuple[float, int, bool]:
        first = next(i for i, r in enumerate(REGIMES) if name.startswith(r))
        return -rate(name), first, ", censored" in name

    return sorted(dict.fromkeys(names.values()), key=key)


def setting_ratios(runs: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Per (setting, algorithm) of ``runs`` (columns setting, replication, algorithm, regret;
    an algorithm's replications paired with the reference's), ``ratio`` r_s to the reference's
    mean, ``se`` its delta-method standard error on the paired runs, and ``n_runs`` (the
    replications both have). A setting without the reference raises."""
    ref = runs.loc[runs.algorithm == reference, ["setting", "replication", "regret"]]
    missing = [s for s in pd.unique(runs.setting) if s not in set(ref.setting)]
    if missing:
        raise ValueError(f"setting {missing[0]!r}: no runs of the reference {reference!r}")
    paired = runs.merge(ref.rename(columns={"regret": "ref"}), on=["setting", "replication"])
    keys = ["setting", "algorithm"]
    grouped = paired.groupby(keys, sort=False)
    out = grouped.agg(a=("regret", "mean"), base=("ref", "mean"), n_runs=("ref", "size"))
    out["ratio"] = out.a / out.base
    per_run = out.loc[pd.MultiIndex.from_frame(paired[keys])]
    z = (paired.regret.to_numpy() - per_run.ratio.to_numpy() * paired.ref.to_numpy()) / (
        per_run.base.to_numpy()
    )
    sd = pd.Series(z).groupby([paired.setting, paired.algorithm], sort=False).std(ddof=1)
    out["se"] = sd.reindex(out.index).to_numpy() / np.sqrt(out.n_runs.to_numpy())
    return out.reset_index()[["setting", "algorithm", "ratio", "se", "n_runs"]]


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
    framed = ratios.assign(family=ratios.setting.map(family), var=ratios.se**2)
    out = framed.groupby(["family", "algorithm"], sort=False).agg(
        ratio=("ratio", "mean"), var=("var", "sum"), settings=("setting", "size")
    )
    out = out.reset_index()
    se = np.sqrt(out.pop("var")) / out.settings
    return out.assign(se=se, lo=out.ratio - z * se, hi=out.ratio + z * se)[
        ["family", "algorithm", "ratio", "se", "settings", "lo", "hi"]
    ]


def bests(table: pd.DataFrame) -> pd.DataFrame:
    """Per family of ``table`` (``table``'s columns) and information model, in the table's
    order, the row of the entrant with the lowest mean ratio among those that apply in every
    setting of the family (``complete``). The lowest of several means is biased low (the
    winner's curse): its interval is the entrant's, not a correction for having chosen it."""
    complete = table[table.complete.astype(bool)].dropna(subset=["information"])
    return complete.loc[complete.groupby(["family", "information"], sort=False).ratio.idxmin()]


def sentences(table: pd.DataFrame) -> dict[str, str]:
    """Per family of ``table``, one sentence: for each information model, its best entrant
    (``bests``), its ratio to the reference with the interval, and what that buys (a cut of
    regret where the interval lies below 1, a cost where above, else no difference shown; in
    percent of the reference's regret, or as a whole multiple of it from twice on, from the
    ratio as printed)."""
    out = {}
    for fam, rows in bests(table).groupby("family", sort=False):
        parts = []
        for best in rows.itertuples():
            # what it buys, from the ratio as printed, so that the two never disagree by a rounding
            shown = round(float(best.ratio), 2)
            if best.hi < 1:
                buys = f"{round(100 * (1 - shown))} % less regret than {REFERENCE}"
            elif best.lo > 1 and shown >= 2:  # a multiple, whole, at or below the ratio
                times = int(shown)
                buys = f"{'over ' if shown > times else ''}{times} times the regret of {REFERENCE}"
            elif best.lo > 1:
                buys = f"{round(100 * (shown - 1))} % more regret than {REFERENCE}"
            else:
                buys = f"no difference from {REFERENCE} shown"
            parts.append(
                f"{best.information}: {best.label} at {shown:.2f} × [{best.lo:.2f}, {best.hi:.2f}] "
                f"({buys})"
            )
        out[fam] = f"{fam}: " + "; ".join(parts) + "."
    return out


COLUMNS = [
    "family",
    "algorithm",
    "label",
    "information",
    "ratio",
    "se",
    "lo",
    "hi",
    "settings",
    "complete",
    "n_runs",
]
"""The columns of the families table (``table``): ``complete`` where the entrant applies in every
setting of the family (only those enter the sentences: a mean over a subset of a family's
settings is not the family's), ``n_runs`` its fewest paired runs in a setting."""


def table(raw: pd.DataFrame, fig: Mapping[str, Any], confidence: float = 0.95) -> pd.DataFrame:
    """The families table of a figure's runs ``raw`` (setting, algorithm, replication, t,
    regret; the shards') at its horizon: per family (``families``, in ``order``) and entrant
    (config order), ``family_table``'s ratio to the reference with its interval, the entrant's
    label and information model, and the columns of ``COLUMNS``."""
    entrants = {a: get(PAPER, cv.resolve(fig, {}, a)[0]) for a in fig["algorithms"]}
    at_t = raw[raw.t == int(fig["horizon"])]
    ratios = setting_ratios(at_t[["setting", "replication", "algorithm", "regret"]])
    named = families(fig)
    out = family_table(ratios, named, confidence)
    framed = ratios.assign(family=ratios.setting.map(named))
    size = pd.Series(named).value_counts()
    runs = framed.groupby(["family", "algorithm"]).n_runs.min()
    out = out.assign(
        label=out.algorithm.map(lambda a: cv.label(PAPER, fig, a)),
        information=out.algorithm.map(lambda a: entrants[a].information),
        complete=out.settings.to_numpy() == size[out.family].to_numpy(),
        n_runs=[int(runs[f, a]) for f, a in zip(out.family, out.algorithm)],
    )
    rank = {name: i for i, name in enumerate(order(named))}
    place = {a: i for i, a in enumerate(fig["algorithms"])}
    out = out.sort_values(
        ["family", "algorithm"], key=lambda c: c.map(rank if c.name == "family" else place)
    )
    return out[COLUMNS].reset_index(drop=True)
