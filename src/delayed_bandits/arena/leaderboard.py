"""The arena's leaderboard: regret of every algorithm in every setting at each of the figure's
``leaderboard_at`` horizons (T/10 and T at paper scale, read from the same runs), ranked within
the setting in each comparison (``entrants.FIELDS``), with ties, what each algorithm was told,
why some do not apply, and whether the setting's conversions single out its best arm
(``identifiable``, ``problem.Setting.identifiable``).

Intervals: the replications are paired (every algorithm of a replication faces the same draws),
so one bootstrap resamples a setting's replication indices with replacement, the same indices for
every algorithm (``resample_weights``). ``regret_lo``/``regret_hi`` is the percentile interval of an
algorithm's mean regret; ``diff_lo``/``diff_hi`` that of its mean difference from its field's
best (the lowest mean), the pairing kept.

Ties are an equivalence test (``figure key statistics``), the tie rule of ``ties`` (worded
there once, ``ties.tie_rule``), on a simultaneous interval of each cell's excess over the margin
(``excess_lo``/``excess_hi``, ``ties.excess``), which carries the uncertainty of the best and of
the margin: the sample best is judged like the others. So is the precision target
(``ties.precision_rule``; ``precision_report``: how many cells meet it and how many are decided,
and how many runs the others would need). A win is a tied-best cell. ``failure_rate`` is the share
of a cell's runs that failed (``ties.failure_rule``), what a mean and its interval hide.

Information models: an entrant is also ranked among the entrants of its own information model
(``entrants.INFORMATION``) in its comparison, with the same test (``model_tied_best``,
``model_verdict``, ``model_ratio``), so that the verdict compares like with like;
``labelled_over_conversions`` is the best learner told every outcome (in practice a QPM-D queue) over the
best that sees only conversions: how QPM-D uses the labelled outcomes, not what they are worth.

Across settings: where the figure's settings face the same draws along a paired grid axis (the
windows m of the window study, ``seeds.seed_name``), ``paired_verdict`` is the same tie rule
among the cells of one algorithm over that axis's values, the best value judged like the others
(``_paired_verdicts``)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import curves as cv
from delayed_bandits import delays, grid, seeds
from delayed_bandits.algorithms import get
from delayed_bandits.arena.entrants import (
    CONVERSIONS,
    FIELDS,
    INFORMATION,
    LABELLED,
    MATCHED,
    PUBLISHED,
    SETTLED,
)
from delayed_bandits.arena.problem import Setting
from delayed_bandits.arena.racing import combine, plan, races, stage_confidence
from delayed_bandits.arena.ties import (
    INCONCLUSIVE,
    STATISTICS,
    WORSE,
    excess,
    failed,
    precise,
    statistics,
    tied,
    verdict,
)
from delayed_bandits.errors import ConfigError

PAPER = "arena"
QUANTILES = {"q50": 0.5, "q90": 0.9, "q99": 0.99, "max": 1.0}
"""Quantiles of the per-run regret: the far tail is what a mean hides (a bimodal cell)."""
BASE_COLUMNS = [
    "horizon",
    "field",
    "setting",
    "regime",
    "regime_label",
    "delay",
    "arm_dependent",
    "censored",
    "identifiable",
    "window",
    "n_arms",
    "gap",
    "base_mean",
    "algorithm",
    "label",
    "information",
    "knows",
    "horizon_tuned",
    "exploration",
    "applicable",
    "reason",
    "regret",
    "se",
    "regret_lo",
    "regret_hi",
    *QUANTILES,
    "failure_rate",
    "n_runs",
    "diff",
    "se_diff",
    "diff_lo",
    "diff_hi",
    "margin",
    "half_width",
    "precise",
    "rank",
    "excess",
    "excess_lo",
    "excess_hi",
    "tied_best",
    "verdict",
    "ratio",
    "model_tied_best",
    "model_verdict",
    "model_ratio",
    "paired_verdict",
]
"""The columns of a board as ``build`` makes it from one batch of runs (the base runs', or a
second stage's)."""
COLUMNS = [*BASE_COLUMNS, "stage", "race_runs"]
"""The columns of the leaderboard, after racing (``race``)."""


def horizons(fig: Mapping[str, Any]) -> list[int]:
    """The rounds the leaderboard reports, in increasing order (default: T alone)."""
    return sorted(int(h) for h in fig.get("leaderboard_at", [fig["horizon"]]))


def resample_weights(n: int, resamples: int, seed: np.random.SeedSequence) -> np.ndarray:
    """w[b, r]: how often resample b draws replication r, over n, so that ``w @ runs`` holds the
    resamples' means; one matrix for every algorithm of the setting keeps the pairing."""
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    offset = (draws + n * np.arange(resamples)[:, None]).ravel()
    return np.bincount(offset, minlength=resamples * n).reshape(resamples, n) / n


def interval(boot: np.ndarray, confidence: float) -> tuple[Any, Any]:
    """The two-sided ``confidence`` percentile interval of resampled statistics (first axis)."""
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(boot, [tail, 1 - tail], axis=0)
    return lo, hi


def compare(runs: np.ndarray, w: np.ndarray, stats: Mapping[str, float]) -> dict[str, Any]:
    """The columns of the test against the best of ``runs`` (replications x the group's
    applicable algorithms), one entry per column: the paired difference from the sample best
    (lowest mean) with its percentile interval and the precision target on it, and the tie rule
    on the simultaneous interval of the excess over the margin (``ties.excess``)."""
    n = len(runs)
    mean = runs.mean(axis=0)
    best = int(np.argmin(mean))
    low = mean[best]
    paired = runs - runs[:, [best]]
    boot = w @ runs
    lo, hi = interval(boot - boot[:, [best]], stats["confidence"])
    theta, theta_lo, theta_hi = excess(runs, w, stats["tie_margin"], stage_confidence(stats))
    return {
        "diff": mean - low,
        "se_diff": paired.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros_like(mean),
        "diff_lo": lo,
        "diff_hi": hi,
        "margin": np.full_like(mean, stats["tie_margin"] * low),
        "half_width": (hi - lo) / 2,
        "precise": precise(lo, hi, low, stats["precision"]),
        "excess": theta,
        "excess_lo": theta_lo,
        "excess_hi": theta_hi,
        "tied_best": tied(theta_hi),
        "verdict": verdict(theta_lo, theta_hi),
        "ratio": mean / low if low > 0 else np.full_like(mean, np.nan),
    }


_COMPARED = (
    "diff",
    "se_diff",
    "diff_lo",
    "diff_hi",
    "margin",
    "half_width",
    "excess",
    "excess_lo",
    "excess_hi",
    "ratio",
)
"""The test's columns that are numbers, NaN where the cell does not apply."""


_BLANK = {"precise": False, "tied_best": False, "verdict": ""}
"""The test's columns of a cell that does not apply (the others are NaN)."""
_MODEL = ("tied_best", "verdict", "ratio")
"""The test's columns within an information model (named with the prefix ``model_``)."""


def _ties(
    rows: pd.DataFrame,
    regrets: pd.DataFrame,
    w: np.ndarray,
    stats: Mapping[str, float],
    columns: tuple[str, ...],
) -> dict[str, np.ndarray]:
    """The test's ``columns`` (``compare``) of ``rows`` over their applicable members, blank
    (``_BLANK``, else NaN) where a member does not apply."""
    live = rows.applicable.to_numpy(bool)
    found = compare(regrets[list(rows.algorithm[live])].to_numpy(), w, stats) if live.any() else {}
    out = {}
    for column in columns:
        blank = _BLANK.get(column, np.nan)
        out[column] = np.full(len(rows), blank, dtype=object if column == "verdict" else None)
        if live.any():
            out[column][live] = found[column]
    return out


def _field_rows(
    rows: pd.DataFrame, regrets: pd.DataFrame, w: np.ndarray, stats: Mapping[str, float]
) -> pd.DataFrame:
    """Rank, test and ratio of one (horizon, setting, field)'s rows, over the field and within
    each information model (``model_`` columns)."""
    live = rows.applicable.to_numpy(bool)
    found = _ties(rows, regrets, w, stats, tuple(_BLANK) + _COMPARED)
    within = {c: np.empty(len(rows), dtype=found[c].dtype) for c in _MODEL}
    models = rows.information.to_numpy()
    for model in pd.unique(models):
        members = models == model
        for column, values in _ties(rows[members], regrets, w, stats, _MODEL).items():
            within[column][members] = values
    return rows.assign(
        rank=rows.regret.where(live).rank(method="min"),
        **found,
        **{f"model_{c}": values for c, values in within.items()},
    )


def build(
    raw: pd.DataFrame,
    fig: Mapping[str, Any],
    seed: int,
    figure: str,
    purpose: str = "leaderboard",
) -> pd.DataFrame:
    """One row per (horizon, field, setting, algorithm of the field), fields in the order of
    ``FIELDS``, settings and algorithms in config order. ``raw`` holds the replications
    (setting, algorithm, replication, t, regret). ``regret`` and ``se`` are the mean
    pseudo-regret at ``horizon`` and its standard error, ``regret_lo``/``regret_hi`` its
    bootstrap interval (never below 0) and ``q50`` ... ``max`` quantiles of the per-run regret;
    ``failure_rate`` the share of its runs that failed (``ties.failed``, from the last checkpoint
    at or before half the horizon); ``diff`` and ``se_diff`` the mean paired difference from the
    field's best and its SE, ``excess`` with its simultaneous interval the tie rule's statistic,
    with the test of the module docstring; ``rank`` 1 is the lowest mean among the setting's
    applicable algorithms of the field (equal means share the lower rank); ``ratio`` is the
    regret over the best's. The bootstrap of a setting draws from ``seed``, ``figure``,
    ``purpose`` (the base runs' or the second stage's, ``race``) and the setting's id alone, so
    neither the order of ``raw`` nor the sharding changes a number. A
    curve missing from ``raw`` although it applies, or missing some of the setting's
    replications, is an error."""
    stats = statistics(fig)
    rounds = np.unique(raw.t.to_numpy())
    halves = {h: _half(rounds, h) for h in horizons(fig)}
    at = raw[raw.t.isin(set(horizons(fig)) | set(halves.values()))]
    wide = {
        key: group.pivot(index="replication", columns="algorithm", values="regret").sort_index()
        for key, group in at.groupby(["t", "setting"], sort=False)
    }
    fields = {a: get(PAPER, _registry_id(fig, a)).fields for a in fig["algorithms"]}
    out = []
    for horizon in horizons(fig):
        for point, raw_setting in grid.selected(fig).items():
            name = point.id
            st = Setting.from_config(raw_setting, name)
            regrets = wide.get((horizon, name), pd.DataFrame())
            late = (horizon - halves[horizon], regrets - wide.get((halves[horizon], name), 0.0))
            w = resample_weights(
                len(regrets),
                int(stats["resamples"]),
                seeds.analysis_seed(seed, PAPER, figure, f"{purpose} {name}"),
            )
            rows = pd.DataFrame(
                [
                    _row(fig, point, raw_setting, st, algorithm, regrets, late, horizon, w)
                    for algorithm in fig["algorithms"]
                ]
            )
            for field in FIELDS:
                members = rows[[field in fields[a] for a in rows.algorithm]]
                out.append(_field_rows(members.assign(field=field), regrets, w, stats))
    board = pd.concat(out, ignore_index=True)
    board["paired_verdict"] = _paired_verdicts(board, wide, fig, stats, seed, figure)
    return board[BASE_COLUMNS]


def race_plan(board: pd.DataFrame, fig: Mapping[str, Any]) -> dict[str, Any]:
    """The second stage the base ``board`` asks for (``racing``): per raced setting, its raced
    algorithms (``racing.plan``), and the replications they get, after the base runs'; no
    setting where the figure's ``statistics`` ask for no second stage."""
    stats = statistics(fig)
    runs, first = int(stats.get("race_runs", 0)), int(fig["replications"])
    settings = plan(board, CONTENDER) if races(stats) else {}
    return {"first": first, "last": first + runs - 1, "settings": settings}


def race(
    base: pd.DataFrame, raw: pd.DataFrame, fig: Mapping[str, Any], seed: int, figure: str
) -> pd.DataFrame:
    """The leaderboard after racing: the ``base`` board with each raced cell that the base runs
    left inconclusive decided by the tie rule on the second stage's runs ``raw`` alone, among
    the setting's raced algorithms (``racing.combine``); the base board where nothing was raced.
    ``raw`` must hold exactly the replications ``race_plan`` asked for."""
    asked = race_plan(base, fig)
    boards = []
    for setting, algorithms in asked["settings"].items():
        runs = raw[(raw.setting == setting) & raw.algorithm.isin(algorithms)]
        held = set(runs.replication)
        want = set(range(asked["first"], asked["last"] + 1))
        if held != want:
            raise ConfigError(
                f"{setting}: the second stage's shards hold replications "
                f"{min(held, default=None)}-{max(held, default=None)} ({len(held)}), the plan "
                f"asks for {asked['first']}-{asked['last']}"
            )
        one = {**fig, "algorithms": algorithms, "only": [setting]}
        boards.append(build(runs, one, seed, figure, purpose="race"))
    second = pd.concat(boards, ignore_index=True) if boards else base.iloc[:0]
    return combine(base, second, CONTENDER)


def _paired_verdicts(
    board: pd.DataFrame,
    wide: Mapping[tuple[int, str], pd.DataFrame],
    fig: Mapping[str, Any],
    stats: Mapping[str, float],
    seed: int,
    figure: str,
) -> np.ndarray:
    """The ``paired_verdict`` column: the tie rule (``ties.verdict`` on ``ties.excess``) of each
    cell among the cells of the same algorithm and horizon in the settings that face the same
    draws (one ``seeds.seed_name``: the values of a paired grid axis, the windows m of the window
    study), on the replications x settings matrix of its runs (paired: row r is replication r in
    each). Its resamples (``resample_weights``) draw from ``seed``, ``figure`` and the shared
    setting id. "" where the cell does not apply or fewer than two applicable settings share its
    draws."""
    out = np.full(len(board), "", dtype=object)
    live = board[board.applicable.astype(bool)]
    shared = live.setting.map(lambda s: seeds.seed_name(fig, s))
    for (horizon, name, algorithm), rows in live.groupby(
        ["horizon", shared, "algorithm"], sort=False
    ):
        settings = list(dict.fromkeys(rows.setting))
        if len(settings) < 2:
            continue
        runs = pd.concat([wide[horizon, s][algorithm] for s in settings], axis=1)
        if runs.isna().to_numpy().any():
            raise ConfigError(
                f"{algorithm} at t = {horizon}: the settings {', '.join(settings)} face the same "
                "draws but do not have the same replications (a paired comparison needs every one)"
            )
        runs = runs.to_numpy(float)
        w = resample_weights(
            len(runs),
            int(stats["resamples"]),
            seeds.analysis_seed(seed, PAPER, figure, f"paired {name}"),
        )
        _, lower, upper = excess(runs, w, stats["tie_margin"], stats["confidence"])
        found = dict(zip(settings, verdict(lower, upper)))
        out[board.index.get_indexer(rows.index)] = [found[s] for s in rows.setting]
    return out


def _half(rounds: np.ndarray, horizon: int) -> int:
    """The last checkpoint at or before half the ``horizon`` (0, the start, if there is none)."""
    early = rounds[rounds <= horizon / 2]
    return int(early.max()) if early.size else 0


def _registry_id(fig: Mapping[str, Any], curve: str) -> str:
    return cv.resolve(fig, {}, curve)[0]


def _row(
    fig: Mapping[str, Any],
    point: grid.Point,
    raw_setting: Mapping[str, Any],
    st: Setting,
    algorithm: str,
    regrets: pd.DataFrame,
    late: tuple[int, pd.DataFrame],
    horizon: int,
    w: np.ndarray,
) -> dict[str, Any]:
    """The cell's own columns; ``late`` is (rounds, the regret each run added over them) of the
    second half of the horizon, for the failure rule."""
    name = point.id
    entrant = get(PAPER, _registry_id(fig, algorithm))
    reason = entrant.applies(st)
    if not reason and algorithm not in regrets:
        raise ConfigError(
            f"{name}/{algorithm}: no replications at t = {horizon}, although the algorithm applies"
        )
    runs = regrets[algorithm].to_numpy(float) if not reason else np.array([])
    if np.isnan(runs).any():
        missing = list(regrets.index[np.isnan(runs)])
        raise ConfigError(
            f"{name}/{algorithm}: replications {missing} missing at t = {horizon}, which the "
            "setting's other algorithms have (a paired comparison needs every one)"
        )
    n = len(runs)
    gaps = st.mu.max() - st.mu
    gaps = gaps[gaps > 0]
    lo, hi = interval(w @ runs, statistics(fig)["confidence"]) if n else (np.nan, np.nan)
    return {
        "horizon": horizon,
        "setting": name,
        "regime": point.listed,
        "regime_label": raw_setting.get("label", point.listed),
        "delay": delays.describe(raw_setting["delay"])
        + (
            f"; a 0 after {delays.describe(raw_setting['zero_delay'])}"
            if st.reward_dependent
            else ""
        ),
        "arm_dependent": st.arm_dependent,
        "censored": st.censored,
        "identifiable": st.identifiable,
        "window": st.window,
        "n_arms": st.n_arms,
        "gap": float(raw_setting["gap"]),
        "base_mean": float(raw_setting["base_mean"]),
        "algorithm": algorithm,
        "label": cv.label(PAPER, fig, algorithm),
        "information": entrant.information,
        "knows": entrant.knows(st),
        "horizon_tuned": entrant.horizon_tuned,
        "exploration": entrant.bonus,
        "applicable": not reason,
        "reason": reason,
        "regret": runs.mean() if n else np.nan,
        "se": runs.std(ddof=1) / np.sqrt(n) if n > 1 else (0.0 if n else np.nan),
        # pseudo-regret is never negative; the clip holds the promise for any other metric
        "regret_lo": max(lo, 0.0),
        "regret_hi": max(hi, 0.0),
        **{q: np.quantile(runs, level) if n else np.nan for q, level in QUANTILES.items()},
        "failure_rate": failed(late[1][algorithm].to_numpy(float), late[0], gaps.min()).mean()
        if n and gaps.size
        else np.nan,
        "n_runs": n,
    }


def view(board: pd.DataFrame, horizon: int | None = None, field: str = MATCHED) -> pd.DataFrame:
    """The rows of one comparison at one horizon (default: the last)."""
    horizon = int(board.horizon.max()) if horizon is None else horizon
    return board[(board.horizon == horizon) & (board.field == field)]


def wins(board: pd.DataFrame) -> pd.DataFrame:
    """Per (horizon, field, base rate, algorithm): the tie rule's decisions counted over the
    settings where it applies (``settings``): ``wins`` (tied-best), ``worse`` and
    ``inconclusive``, ``outright`` (tied-best and nobody else is), ``model_wins`` (tied-best
    within its information model), and the median ratios to the best. A count of decisions, not
    an estimate with an interval: each win is a setting where the tie rule (``ties.tie_rule``)
    decided tied-best."""
    keys = ["horizon", "field", "setting"]
    alone = board.groupby(keys).tied_best.transform("sum") == 1
    board = board.assign(
        outright=board.tied_best & alone,
        worse=board.verdict == WORSE,
        inconclusive=board.applicable.astype(bool) & (board.verdict == INCONCLUSIVE),
    )
    groups = board.groupby(
        ["horizon", "field", "base_mean", "information", "algorithm", "label"], sort=False
    )
    table = groups.agg(
        wins=("tied_best", "sum"),
        worse=("worse", "sum"),
        inconclusive=("inconclusive", "sum"),
        outright=("outright", "sum"),
        model_wins=("model_tied_best", "sum"),
        settings=("applicable", "sum"),
        median_ratio=("ratio", "median"),
        median_model_ratio=("model_ratio", "median"),
    )
    return table.reset_index()


def labelled_over_conversions(board: pd.DataFrame) -> pd.DataFrame:
    """Per (horizon, field, base rate, setting): the lowest regret with labelled outcomes (the
    oracle), the lowest with the conversions alone (``CONVERSIONS`` or ``SETTLED``, which
    censoring at m reveals), and their ratio: how the best labelled learner (in practice a QPM-D
    queue) fares against the best of the conversions, not what labelled outcomes are worth (a
    better use of them could do more)."""
    live = board[board.applicable.astype(bool)]
    keys = ["horizon", "field", "base_mean", "setting"]
    oracle = live[live.information == LABELLED].groupby(keys, sort=False).regret.min()
    plain = live[live.information.isin([CONVERSIONS, SETTLED])]
    conv = plain.groupby(keys, sort=False).regret.min()
    out = pd.DataFrame({"oracle": oracle, "conversions": conv}).dropna()
    out["ratio"] = out.oracle / out.conversions
    return out.reset_index()


CONTENDER = 1.5
"""A contender ends within this factor of its setting's best (``ratio`` <= 1.5)."""


def precision_cells(board: pd.DataFrame, precision: float = STATISTICS["precision"]):
    """Every applicable cell but each setting's best (rank 1), with ``runs_needed``: the
    replications that would bring its half-width to ``precision`` times the best's regret, the
    half-width shrinking as 1/sqrt(n): n (half_width / (precision x best))^2; and
    ``runs_to_decide``: the runs of one stage at which the tie rule's interval of its excess would
    no longer hold 0, the same way, n (half-width / |excess|)^2 with n the runs its interval came
    from (a second stage's where it was raced and the base runs had left it open), 0 for a
    decided cell. A setting whose best has no regret (a short horizon) has no relative precision
    and is left out."""
    cells = board[board.applicable.astype(bool) & (board["rank"] > 1)]
    best = cells.regret - cells["diff"]
    cells, best = cells[best > 0].copy(), best[best > 0]
    cells["contender"] = cells.ratio <= CONTENDER
    cells["runs_needed"] = cells.n_runs * (cells.half_width / (precision * best)) ** 2
    raced = cells.race_runs if "race_runs" in cells else 0
    n = np.where(raced > 0, raced, cells.n_runs)
    half = (cells.excess_hi - cells.excess_lo) / 2
    cells["runs_to_decide"] = np.where(
        cells.verdict == INCONCLUSIVE, n * (half / cells.excess.abs()) ** 2, 0.0
    )
    return cells


def precision_report(
    board: pd.DataFrame, precision: float = STATISTICS["precision"], share: float = 0.9
) -> pd.DataFrame:
    """Per (horizon, field, base rate): of the cells of ``precision_cells``, and of the
    contenders among them, how many there are, the share that is precise, the share the tie rule
    decides (tied-best or worse), of it the share the base runs decided (``decided_first``: all
    of it on a board that was not raced), the replications at which ``share`` of them would be
    precise (the ``share`` quantile of ``runs_needed``) and those at which ``share`` of them
    would be decided (of ``runs_to_decide``)."""
    cells = precision_cells(board, precision)
    out = []
    for key, group in cells.groupby(["horizon", "field", "base_mean"], sort=False):
        row = dict(zip(["horizon", "field", "base_mean"], key))
        for name, part in (("all", group), ("contenders", group[group.contender])):
            row[f"{name}_cells"] = len(part)
            row[f"{name}_precise"] = part.precise.mean() if len(part) else np.nan
            decided = part.verdict != INCONCLUSIVE
            row[f"{name}_decided"] = decided.mean() if len(part) else np.nan
            first = decided & (part.stage == 1) if "stage" in part else decided
            row[f"{name}_decided_first"] = first.mean() if len(part) else np.nan
            # no interpolation: a cell at the margin itself needs infinitely many runs
            to_decide = (
                np.quantile(part.runs_to_decide, share, method="higher") if len(part) else np.nan
            )
            row[f"{name}_runs_to_decide"] = to_decide
            needed = np.quantile(part.runs_needed, share) if len(part) else np.nan
            row[f"{name}_runs_needed"] = needed
        out.append(row)
    return pd.DataFrame(out)


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
