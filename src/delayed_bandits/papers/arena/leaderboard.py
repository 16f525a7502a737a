"""The arena's leaderboard: regret of every algorithm in every setting at each of the figure's
``leaderboard_at`` horizons (T/10 and T at paper scale, read from the same runs), ranked within
the setting in each comparison (``entrants.FIELDS``), with ties, what each algorithm was told and
why some do not apply.

Ties: the replications are paired (every algorithm of a replication faces the same draws), so an
algorithm is compared with its field's best (lowest mean regret) through the mean of the
per-replication differences and its standard error; it is *tied-best* when that difference is at
most 2 SE. A win is a tied-best cell.

Information models: an entrant is also ranked among the entrants of its own information model
(``entrants.INFORMATION``) in its comparison, with the same paired test (``model_tied_best``,
``model_ratio``), so that the verdict compares like with like; ``oracle_worth`` is what the
labelled outcomes buy over the best learner that sees only conversions (``oracle_worth``)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import config, delays
from delayed_bandits.algorithms import get
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.arena.entrants import (
    CONVERSIONS,
    FIELDS,
    INFORMATION,
    LABELLED,
    MATCHED,
    PUBLISHED,
    SETTLED,
)
from delayed_bandits.papers.arena.problem import Setting

PAPER = "arena"
TIE_SE = 2.0
"""An algorithm within this many paired standard errors of its field's best is tied-best."""
COLUMNS = [
    "horizon",
    "field",
    "setting",
    "regime",
    "regime_label",
    "delay",
    "arm_dependent",
    "censored",
    "window",
    "n_arms",
    "gap",
    "algorithm",
    "label",
    "information",
    "knows",
    "exploration",
    "applicable",
    "reason",
    "regret",
    "se",
    "n_runs",
    "diff",
    "se_diff",
    "rank",
    "tied_best",
    "ratio",
    "model_tied_best",
    "model_ratio",
]


def horizons(fig: Mapping[str, Any]) -> list[int]:
    """The rounds the leaderboard reports, in increasing order (default: T alone)."""
    return sorted(int(h) for h in fig.get("leaderboard_at", [fig["horizon"]]))


def _paired(regrets: pd.DataFrame, best: str) -> tuple[pd.Series, pd.Series]:
    """(mean, SE) per algorithm (column) of its per-replication difference from ``best``."""
    diff = regrets.sub(regrets[best], axis=0)
    n = diff.notna().sum()
    se = (diff.std(ddof=1) / np.sqrt(n)).fillna(0.0)
    return diff.mean(), se


def _ties(rows: pd.DataFrame, regrets: pd.DataFrame) -> tuple[pd.Series, ...]:
    """(paired difference from the best, its SE, tied-best, ratio to the best) of ``rows``, over
    their applicable members; all NaN (tied-best False) when none applies."""
    live = rows.applicable.to_numpy(bool)
    if not live.any():
        nan = pd.Series(np.nan, index=rows.index)
        return nan, nan, pd.Series(False, index=rows.index), nan
    best = rows.loc[live, "regret"].idxmin()
    best_alg, low = rows.at[best, "algorithm"], rows.at[best, "regret"]
    mean, se = _paired(regrets[list(rows.algorithm[live])], best_alg)
    diff, se_diff = rows.algorithm.map(mean), rows.algorithm.map(se)
    tied = pd.Series(live & (diff <= TIE_SE * se_diff).to_numpy(), index=rows.index)
    return diff, se_diff, tied, rows.regret / low if low > 0 else diff * np.nan


def _field_rows(rows: pd.DataFrame, regrets: pd.DataFrame) -> pd.DataFrame:
    """Rank, tie, paired difference and ratio of one (horizon, setting, field)'s rows, over the
    field and within each information model."""
    rows = rows.copy()
    live = rows.applicable.to_numpy(bool)
    rows["rank"] = rows.regret.where(live).rank(method="min")
    rows["diff"], rows["se_diff"], rows["tied_best"], rows["ratio"] = _ties(rows, regrets)
    rows["model_tied_best"], rows["model_ratio"] = False, np.nan
    for _, members in rows.groupby("information", sort=False):
        _, _, tied, ratio = _ties(members, regrets)
        rows.loc[members.index, "model_tied_best"] = tied
        rows.loc[members.index, "model_ratio"] = ratio
    rows["model_tied_best"] = rows.model_tied_best.astype(bool)
    return rows


def build(raw: pd.DataFrame, fig: Mapping[str, Any]) -> pd.DataFrame:
    """One row per (horizon, field, setting, algorithm of the field), fields in the order of
    ``FIELDS``, settings and algorithms in config order. ``raw`` holds the replications
    (setting, algorithm, replication, t, regret). ``regret`` and ``se`` are the mean
    pseudo-regret at ``horizon`` and its standard error; ``diff`` and ``se_diff`` the mean paired
    difference from the field's best and its SE; ``rank`` 1 is the lowest mean among the
    setting's applicable algorithms of the field (equal means share the lower rank);
    ``tied_best`` marks those within ``TIE_SE`` paired SE of the best; ``ratio`` is the regret
    over the best's. A curve missing from ``raw`` although it applies is an error."""
    at = raw[raw.t.isin(horizons(fig))]
    wide = {
        key: group.pivot(index="replication", columns="algorithm", values="regret")
        for key, group in at.groupby(["t", "setting"], sort=False)
    }
    fields = {a: get(PAPER, _registry_id(fig, a)).fields for a in fig["algorithms"]}
    out = []
    for horizon in horizons(fig):
        for name, raw_setting in config.settings(fig).items():
            st = Setting.from_config(raw_setting, name)
            regrets = wide.get((horizon, name), pd.DataFrame())
            rows = pd.DataFrame(
                [
                    _row(fig, name, raw_setting, st, algorithm, regrets, horizon)
                    for algorithm in fig["algorithms"]
                ]
            )
            for field in FIELDS:
                members = rows[[field in fields[a] for a in rows.algorithm]]
                out.append(_field_rows(members.assign(field=field), regrets))
    return pd.concat(out, ignore_index=True)[COLUMNS]


def _registry_id(fig: Mapping[str, Any], curve: str) -> str:
    return config.resolve(fig, {}, curve)[0]


def _row(
    fig: Mapping[str, Any],
    name: str,
    raw_setting: Mapping[str, Any],
    st: Setting,
    algorithm: str,
    regrets: pd.DataFrame,
    horizon: int,
) -> dict[str, Any]:
    entrant = get(PAPER, _registry_id(fig, algorithm))
    reason = entrant.applies(st)
    if not reason and algorithm not in regrets:
        raise ConfigError(
            f"{name}/{algorithm}: no replications at t = {horizon}, although the algorithm applies"
        )
    runs = regrets[algorithm].dropna() if not reason else pd.Series(dtype=float)
    se = runs.std(ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else 0.0  # 0 for a single run
    return {
        "horizon": horizon,
        "setting": name,
        "regime": config.listed_setting(fig, name),
        "regime_label": raw_setting.get("label", config.listed_setting(fig, name)),
        "delay": delays.describe(raw_setting["delay"]),
        "arm_dependent": st.arm_dependent,
        "censored": st.censored,
        "window": st.window,
        "n_arms": st.n_arms,
        "gap": float(raw_setting["gap"]),
        "algorithm": algorithm,
        "label": config.label(PAPER, fig, algorithm),
        "information": entrant.information,
        "knows": entrant.knows(st),
        "exploration": entrant.bonus,
        "applicable": not reason,
        "reason": reason,
        "regret": runs.mean() if len(runs) else np.nan,
        "se": se if len(runs) else np.nan,
        "n_runs": len(runs),
    }


def view(board: pd.DataFrame, horizon: int | None = None, field: str = MATCHED) -> pd.DataFrame:
    """The rows of one comparison at one horizon (default: the last)."""
    horizon = int(board.horizon.max()) if horizon is None else horizon
    return board[(board.horizon == horizon) & (board.field == field)]


def wins(board: pd.DataFrame) -> pd.DataFrame:
    """Per (horizon, field, algorithm): settings where it is tied-best (``wins``), where it is
    the single best (``outright``: tied-best and nobody else is), where it applies, and the
    median ratio to the best."""
    alone = board.groupby(["horizon", "field", "setting"]).tied_best.transform("sum") == 1
    board = board.assign(outright=board.tied_best & alone)
    table = board.groupby(
        ["horizon", "field", "information", "algorithm", "label"], sort=False
    ).agg(
        wins=("tied_best", "sum"),
        outright=("outright", "sum"),
        model_wins=("model_tied_best", "sum"),
        settings=("applicable", "sum"),
        median_ratio=("ratio", "median"),
        median_model_ratio=("model_ratio", "median"),
    )
    return table.reset_index()


def oracle_worth(board: pd.DataFrame) -> pd.DataFrame:
    """Per (horizon, field, setting): the lowest regret with labelled outcomes (the oracle), the
    lowest with the conversions alone (``CONVERSIONS`` or ``SETTLED``, which censoring at m
    reveals), and their ratio (below 1: the oracle's information is worth that much)."""
    live = board[board.applicable.astype(bool)]
    keys = ["horizon", "field", "setting"]
    oracle = live[live.information == LABELLED].groupby(keys, sort=False).regret.min()
    plain = live[live.information.isin([CONVERSIONS, SETTLED])]
    conv = plain.groupby(keys, sort=False).regret.min()
    out = pd.DataFrame({"oracle": oracle, "conversions": conv}).dropna()
    out["ratio"] = out.oracle / out.conversions
    return out.reset_index()


def model_order(board: pd.DataFrame) -> list[str]:
    """The board's algorithms grouped by information model (``INFORMATION``'s order), board order
    within a model."""
    rows = board.drop_duplicates("algorithm")
    rank = {name: i for i, name in enumerate(INFORMATION)}
    return list(rows.assign(r=rows.information.map(rank)).sort_values("r", kind="stable").algorithm)


def display(board: pd.DataFrame, horizon: int | None = None) -> pd.DataFrame:
    """What the figures show at ``horizon`` (default: the last), one row per (setting,
    algorithm): the matched comparison's rows (``section`` matched), then those of the algorithms
    that enter the published comparison only (``section`` published: an index method at its
    paper's constant), with their regret over the matched comparison's best as ``ratio``, and
    not ranked there (``tied_best`` False)."""
    matched = view(board, horizon, MATCHED)
    others = view(board, horizon, PUBLISHED)
    others = others[~others.algorithm.isin(matched.algorithm)].copy()
    best = matched[matched.applicable.astype(bool)].groupby("setting").regret.min()
    low = others.setting.map(best).astype(float)
    others["ratio"] = np.where(
        low > 0, others.regret.astype(float) / low.where(low > 0, 1.0), np.nan
    )
    others["rank"], others["tied_best"] = np.nan, False
    return pd.concat(
        [matched.assign(section=MATCHED), others.assign(section=PUBLISHED)], ignore_index=True
    )
