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

Screen, then contend (``screening``; docs/decisions/arena.md#screening): where the figure's
``statistics.screen_runs`` ask for it, the tie rule's groups (a setting's comparison, and each
information model within it) are screened on the first ``screen_runs`` replications at the last
horizon (``screen_plan``): an entrant the screen shows worse in a group stops there, and one
stopped in every group it belongs to has only the screen's runs (``n_runs``). Each group's tie
family is then its members not stopped in it, all of which have every run, at the final look's
confidence (``screening.final_confidence``); a member stopped in it is ``worse`` (``stage`` 1,
``stopped``), the contenders are decided at ``stage`` 2. A replication's draws depend on its
setting and index alone, so the pooled runs of the two stages are a one-stage run's, and a
board built from a one-stage run (every entrant every replication) is the same board: the runs
a stopped entrant would not have had are left out.

Across settings: where the figure's settings face the same draws along a paired grid axis (the
windows m of the window study, ``seeds.seed_name``), ``paired_verdict`` is the same tie rule
among the cells of one algorithm over that axis's values, the best value judged like the others
(``_paired_verdicts``)."""

from __future__ import annotations

from typing import Any, Collection, Mapping, NamedTuple

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
from delayed_bandits.arena.screening import final_confidence, screen, spend
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
COLUMNS = [
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
    "stage",
    "stopped",
]
"""The columns of the leaderboard (``build``)."""


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


def compare(
    runs: np.ndarray, w: np.ndarray, stats: Mapping[str, float], confidence: float
) -> dict[str, Any]:
    """The columns of the test against the best of ``runs`` (replications x the group's tie
    family), one entry per column: the paired difference from the sample best (lowest mean)
    with its percentile interval and the precision target on it, and the tie rule on the
    simultaneous interval of the excess over the margin (``ties.excess``) at ``confidence``
    (the final look's, ``screening.final_confidence``: the figure's own in one stage)."""
    n = len(runs)
    mean = runs.mean(axis=0)
    best = int(np.argmin(mean))
    low = mean[best]
    paired = runs - runs[:, [best]]
    boot = w @ runs
    lo, hi = interval(boot - boot[:, [best]], stats["confidence"])
    theta, theta_lo, theta_hi = excess(runs, w, stats["tie_margin"], confidence)
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

Group = tuple[str, ...]
"""A comparison group of a setting, where the tie rule decides: (field,) for a comparison,
(field, information model) for a model within it."""


class _Looks(NamedTuple):
    """What the tie rule of one (horizon, setting) reads besides its runs: ``w`` the resamples of
    every replication, ``w_screen`` those of the screen's alone (for an entrant that has only
    those), ``confidence`` the final look's (``screening.final_confidence``), ``stopped`` per
    group the members its screen stopped at the last horizon (the group's tie family is the
    others), ``worse`` per group those the screen shows worse at this horizon, and ``contest``
    whether the figure has a second stage."""

    w: np.ndarray
    w_screen: np.ndarray
    confidence: float
    stopped: Mapping[Group, set[str]]
    worse: Mapping[Group, set[str]]
    contest: bool

    def weights(self, n: int) -> np.ndarray:
        """The resamples of a cell of ``n`` runs: every replication, or the screen's."""
        return self.w if n == self.w.shape[1] else self.w_screen


def _stopped(
    regrets: pd.DataFrame,
    algorithms: list[str],
    best: str,
    stats: Mapping[str, float],
    looks: _Looks,
    group: Group,
) -> dict[str, np.ndarray]:
    """The test's columns (``compare``'s) of a group's members the screen stopped in it, against
    the ``best`` of its tie family: the difference from the best's mean, with the paired
    interval and SE over the runs the member has (the screen's, where it stopped in every
    group), and the verdict ``worse`` where the screen shows it worse at this horizon (always at
    the last, where it was stopped), else inconclusive; no excess (the tie rule's family is the
    contenders')."""
    low = float(regrets[best].mean())
    out: dict[str, list[Any]] = {c: [] for c in (*_BLANK, *_COMPARED)}
    for algorithm in algorithms:
        runs = regrets[algorithm].dropna()
        paired = (runs - regrets[best][runs.index]).to_numpy(float)
        n = len(paired)
        lo, hi = interval(looks.weights(n) @ paired, stats["confidence"])
        mean = float(runs.mean())
        row = {
            "diff": mean - low,
            "se_diff": paired.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0,
            "diff_lo": lo,
            "diff_hi": hi,
            "margin": stats["tie_margin"] * low,
            "half_width": (hi - lo) / 2,
            "precise": precise(lo, hi, low, stats["precision"]),
            "excess": np.nan,
            "excess_lo": np.nan,
            "excess_hi": np.nan,
            "tied_best": False,
            "verdict": WORSE if algorithm in looks.worse.get(group, ()) else INCONCLUSIVE,
            "ratio": mean / low if low > 0 else np.nan,
        }
        for column, value in row.items():
            out[column].append(value)
    return {column: np.array(values) for column, values in out.items()}


def _ties(
    rows: pd.DataFrame,
    regrets: pd.DataFrame,
    stats: Mapping[str, float],
    looks: _Looks,
    group: Group,
    columns: tuple[str, ...],
) -> dict[str, np.ndarray]:
    """The test's ``columns`` of ``rows``, the applicable members of ``group``: ``compare`` over
    its tie family (those the screen did not stop in it), ``_stopped`` for the others, blank
    (``_BLANK``, else NaN) where a member does not apply."""
    live = rows.applicable.to_numpy(bool)
    cut = live & rows.algorithm.isin(looks.stopped.get(group, set())).to_numpy()
    family = live & ~cut
    out = {}
    for column in columns:
        blank = _BLANK.get(column, np.nan)
        out[column] = np.full(len(rows), blank, dtype=object if column == "verdict" else None)
    if not family.any():
        return out
    members = list(rows.algorithm[family])
    runs = regrets[members].to_numpy(float)
    parts = [(family, compare(runs, looks.w, stats, looks.confidence))]
    if cut.any():
        best = members[int(np.argmin(runs.mean(axis=0)))]
        parts.append((cut, _stopped(regrets, list(rows.algorithm[cut]), best, stats, looks, group)))
    for where, found in parts:
        for column in columns:
            out[column][where] = found[column]
    return out


def _field_rows(
    rows: pd.DataFrame, regrets: pd.DataFrame, stats: Mapping[str, float], looks: _Looks
) -> pd.DataFrame:
    """Rank, test and ratio of one (horizon, setting, field)'s rows, over the field and within
    each information model (``model_`` columns); ``stopped`` and ``stage`` say whether the
    screen stopped the cell in the field's comparison (decided at stage 1) or the contest
    decided it (stage 2; 1 for every cell of a figure of one stage)."""
    field = rows.field.iloc[0]
    live = rows.applicable.to_numpy(bool)
    found = _ties(rows, regrets, stats, looks, (field,), tuple(_BLANK) + _COMPARED)
    within = {c: np.empty(len(rows), dtype=found[c].dtype) for c in _MODEL}
    models = rows.information.to_numpy()
    for model in pd.unique(models):
        members = models == model
        for column, values in _ties(
            rows[members], regrets, stats, looks, (field, model), _MODEL
        ).items():
            within[column][members] = values
    stopped = live & rows.algorithm.isin(looks.stopped.get((field,), set())).to_numpy()
    return rows.assign(
        rank=rows.regret.where(live).rank(method="min"),
        **found,
        **{f"model_{c}": values for c, values in within.items()},
        stage=np.where(live & ~stopped & looks.contest, 2, 1),
        stopped=stopped,
    )


def _groups(fig: Mapping[str, Any], st: Setting) -> dict[Group, list[str]]:
    """A setting's comparison groups (``Group``), each with its applicable members in config
    order: the groups the tie rule decides in (``_field_rows``), and the screen too."""
    out: dict[Group, list[str]] = {}
    for algorithm in fig["algorithms"]:
        entrant = get(PAPER, _registry_id(fig, algorithm))
        if entrant.applies(st):  # a reason why not
            continue
        for field in FIELDS:
            if field in entrant.fields:
                out.setdefault((field,), []).append(algorithm)
                out.setdefault((field, entrant.information), []).append(algorithm)
    return out


def _stops(
    regrets: pd.DataFrame,
    groups: Mapping[Group, list[str]],
    stats: Mapping[str, float],
    keep: Collection[str],
    first: int,
    alpha_1: float,
    where: str,
) -> dict[Group, set[str]]:
    """Per group, the members the screen (``screening.screen`` on the replications 0 to
    ``first`` - 1 of ``regrets``, at ``alpha_1``) stops there; those of ``keep`` never stop. A
    member missing one of those runs is an error naming it (``where``: setting and round)."""
    out = {}
    for group, members in groups.items():
        runs = regrets.reindex(index=range(first), columns=members)
        missing = [a for a in members if runs[a].isna().any()]
        if missing:
            raise ConfigError(
                f"{where}: the screen's replications 0-{first - 1} of {', '.join(missing)} are "
                "missing (every entrant runs the screen)"
            )
        kept = [i for i, a in enumerate(members) if a in keep]
        go = screen(runs.to_numpy(float), stats["tie_margin"], alpha_1, kept)
        out[group] = {a for a, g in zip(members, go) if not g}
    return out


def _contenders(
    fig: Mapping[str, Any], groups: Mapping[Group, list[str]], stopped: Mapping[Group, set[str]]
) -> list[str]:
    """The setting's entrants that go on to the contest, in config order: those not stopped in
    at least one group they belong to (one stopped in every group is worse in each)."""
    going = {a for group, members in groups.items() for a in members if a not in stopped[group]}
    return [a for a in fig["algorithms"] if a in going]


def screen_plan(
    raw: pd.DataFrame, fig: Mapping[str, Any], keep: Collection[str] = ()
) -> dict[str, Any]:
    """The contest the screen's runs ``raw`` ask for (``screening``): its replications
    ``first`` to ``last`` and, per setting, the contenders that run them (``_contenders``, of
    the screen in each group at the last horizon); no setting where the figure has one stage.
    The entrants of ``keep`` never stop: the workflow's commands pass those a named claim
    compares (``claims.KEPT``, which reads this module)."""
    stats = statistics(fig)
    first, total = cv.stages(stats, int(fig["replications"]))
    settings: dict[str, list[str]] = {}
    if first < total:
        horizon = horizons(fig)[-1]
        alpha_1 = spend(stats["confidence"], first, total)[0]
        at = raw[(raw.t == horizon) & (raw.replication < first)]
        for point, raw_setting in grid.selected(fig).items():
            groups = _groups(fig, Setting.from_config(raw_setting, point.id))
            regrets = at[at.setting == point.id].pivot(
                index="replication", columns="algorithm", values="regret"
            )
            where = f"{point.id} at t = {horizon}"
            stopped = _stops(regrets, groups, stats, keep, first, alpha_1, where)
            settings[point.id] = _contenders(fig, groups, stopped)
    return {"first": first, "last": total - 1, "settings": settings}


def _held(
    regrets: pd.DataFrame,
    name: str,
    t: int,
    everywhere: set[str],
    members: Collection[str],
    first: int,
    total: int,
) -> pd.DataFrame:
    """A setting's runs at one round as the two stages hold them: every replication of a
    contender, the screen's alone of an entrant stopped in ``everywhere`` group (any later run
    given, as a one-stage run has them, left out). A member missing one of the runs it must
    have, or a figure of two stages whose runs do not reach ``total`` (the contest's shards not
    given), is an error naming it."""
    if first < total and list(regrets.index) != list(range(total)):
        raise ConfigError(
            f"{name} at t = {t}: the runs hold replications {regrets.index.min()}-{regrets.index.max()} "
            f"({len(regrets)}); the figure's two stages have 0-{total - 1} (the screen's "
            f"0-{first - 1}, the contest's {first}-{total - 1}): give the contest's runs too"
        )
    out = regrets.copy()
    for algorithm in members:
        want = out.index[out.index < first] if algorithm in everywhere else out.index
        held = out[algorithm].dropna().index if algorithm in out else out.index[:0]
        missing = list(want.difference(held))
        if missing:
            raise ConfigError(
                f"{name}/{algorithm}: replications {missing} missing at t = {t}, which the "
                "setting's other algorithms have (a paired comparison needs every one)"
            )
        if algorithm in everywhere:
            out.loc[out.index >= first, algorithm] = np.nan
    return out


def build(
    raw: pd.DataFrame,
    fig: Mapping[str, Any],
    seed: int,
    figure: str,
    keep: Collection[str] = (),
) -> pd.DataFrame:
    """One row per (horizon, field, setting, algorithm of the field), fields in the order of
    ``FIELDS``, settings and algorithms in config order. ``raw`` holds the replications
    (setting, algorithm, replication, t, regret): a one-stage run, or the two stages' runs
    pooled (module docstring; ``keep`` as for ``screen_plan``). ``regret`` and ``se`` are the
    mean pseudo-regret at ``horizon`` over the cell's ``n_runs`` and its standard error,
    ``regret_lo``/``regret_hi`` its bootstrap interval (never below 0) and ``q50`` ... ``max``
    quantiles of the per-run regret; ``failure_rate`` the share of its runs that failed
    (``ties.failed``, from the last checkpoint at or before half the horizon); ``diff`` and
    ``se_diff`` the mean paired difference from the best of its comparison's tie family and its
    SE, ``excess`` with its simultaneous interval the tie rule's statistic, with the test of the
    module docstring; ``rank`` 1 is the lowest mean among the setting's applicable algorithms of
    the field (equal means share the lower rank); ``ratio`` is the regret over the best's. The
    bootstrap of a setting draws from ``seed``, ``figure`` and the setting's id alone, so neither
    the order of ``raw`` nor the sharding changes a number. A curve missing from ``raw``
    although it applies, or missing some of the replications it must have, is an error."""
    stats = statistics(fig)
    first, total = cv.stages(stats, int(fig["replications"]))
    alpha_1 = spend(stats["confidence"], first, total)[0]
    confidence = final_confidence(stats["confidence"], first, total)
    last = horizons(fig)[-1]
    rounds = np.unique(raw.t.to_numpy())
    halves = {h: _half(rounds, h) for h in horizons(fig)}
    at = raw[raw.t.isin(set(horizons(fig)) | set(halves.values()))]
    wide = {
        key: group.pivot(index="replication", columns="algorithm", values="regret").sort_index()
        for key, group in at.groupby(["t", "setting"], sort=False)
    }
    fields = {a: get(PAPER, _registry_id(fig, a)).fields for a in fig["algorithms"]}
    points = grid.selected(fig)
    screened: dict[str, tuple[dict[Group, list[str]], dict[Group, set[str]]]] = {}
    for point, raw_setting in points.items():
        groups = _groups(fig, Setting.from_config(raw_setting, point.id))
        stopped = (
            _stops(
                wide.get((last, point.id), pd.DataFrame()),
                groups,
                stats,
                keep,
                first,
                alpha_1,
                f"{point.id} at t = {last}",
            )
            if first < total
            else {group: set() for group in groups}
        )
        screened[point.id] = (groups, stopped)
        members = {a for m in groups.values() for a in m}
        everywhere = members - set(_contenders(fig, groups, stopped))
        for (t, name), regrets in wide.items():
            if name == point.id:
                wide[t, name] = _held(regrets, name, t, everywhere, members, first, total)
    out = []
    for horizon in horizons(fig):
        for point, raw_setting in points.items():
            name = point.id
            st = Setting.from_config(raw_setting, name)
            groups, stopped = screened[name]
            regrets = wide.get((horizon, name), pd.DataFrame())
            late = (horizon - halves[horizon], regrets - wide.get((halves[horizon], name), 0.0))
            w = resample_weights(
                len(regrets),
                int(stats["resamples"]),
                seeds.analysis_seed(seed, PAPER, figure, f"leaderboard {name}"),
            )
            contest = first < total
            looks = _Looks(
                w,
                resample_weights(
                    first,
                    int(stats["resamples"]),
                    seeds.analysis_seed(seed, PAPER, figure, f"screen {name}"),
                )
                if contest
                else w,
                confidence,
                stopped,
                _stops(regrets, groups, stats, keep, first, alpha_1, f"{name} at t = {horizon}")
                if contest
                else stopped,
                contest,
            )
            rows = pd.DataFrame(
                [
                    _row(fig, point, raw_setting, st, algorithm, regrets, late, horizon, looks)
                    for algorithm in fig["algorithms"]
                ]
            )
            for field in FIELDS:
                members = rows[[field in fields[a] for a in rows.algorithm]]
                out.append(_field_rows(members.assign(field=field), regrets, stats, looks))
    board = pd.concat(out, ignore_index=True)
    board["paired_verdict"] = _paired_verdicts(board, wide, fig, stats, seed, figure)
    return board[COLUMNS]


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
    study, and a reward-dependent regime and its twin), on the replications x settings matrix of
    its runs that every one of them has (paired: row r is replication r in each; under screen,
    then contend, the screen's alone where the algorithm stopped in some of them). Its resamples (``resample_weights``) draw from ``seed``, ``figure`` and the shared
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
        # the replications every one of them has: where the screen stopped the algorithm in
        # one setting and not in another (a reward-dependent regime and its twin), the screen's
        runs = pd.concat([wide[horizon, s][algorithm] for s in settings], axis=1)
        runs = runs.dropna().to_numpy(float)
        if len(runs) < 2:
            continue
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
    looks: _Looks,
) -> dict[str, Any]:
    """The cell's own columns, over the runs it has (``_held``); ``late`` is (rounds, the regret
    each run added over them) of the second half of the horizon, for the failure rule."""
    name = point.id
    entrant = get(PAPER, _registry_id(fig, algorithm))
    reason = entrant.applies(st)
    if not reason and algorithm not in regrets:
        raise ConfigError(
            f"{name}/{algorithm}: no replications at t = {horizon}, although the algorithm applies"
        )
    runs = regrets[algorithm].dropna().to_numpy(float) if not reason else np.array([])
    n = len(runs)
    gaps = st.mu.max() - st.mu
    gaps = gaps[gaps > 0]
    lo, hi = (
        interval(looks.weights(n) @ runs, statistics(fig)["confidence"]) if n else (np.nan, np.nan)
    )
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
        "failure_rate": failed(
            late[1][algorithm].dropna().to_numpy(float), late[0], gaps.min()
        ).mean()
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
    from, 0 for a decided cell, NaN for one the screen stopped that is undecided at this horizon
    (the tie rule gave it no interval). A setting whose best has no regret (a short horizon)
    has no relative precision and is left out."""
    cells = board[board.applicable.astype(bool) & (board["rank"] > 1)]
    best = cells.regret - cells["diff"]
    cells, best = cells[best > 0].copy(), best[best > 0]
    cells["contender"] = cells.ratio <= CONTENDER
    cells["runs_needed"] = cells.n_runs * (cells.half_width / (precision * best)) ** 2
    half = (cells.excess_hi - cells.excess_lo) / 2
    cells["runs_to_decide"] = np.where(
        cells.verdict == INCONCLUSIVE, cells.n_runs * (half / cells.excess.abs()) ** 2, 0.0
    )
    return cells


def precision_report(
    board: pd.DataFrame, precision: float = STATISTICS["precision"], share: float = 0.9
) -> pd.DataFrame:
    """Per (horizon, field, base rate): of the cells of ``precision_cells``, and of the
    contenders among them, how many there are, the share that is precise, the share the tie rule
    decides (tied-best or worse), of it the share decided at stage 1 (``decided_first``: the
    screen's worse where the figure screens, all of it on a board of one stage), the
    replications at which ``share`` of them would be precise (the ``share`` quantile of
    ``runs_needed``) and those at which ``share`` of them would be decided (of
    ``runs_to_decide``, over the cells that have it)."""
    cells = precision_cells(board, precision)
    out = []
    for key, group in cells.groupby(["horizon", "field", "base_mean"], sort=False):
        row = dict(zip(["horizon", "field", "base_mean"], key))
        for name, part in (("all", group), ("contenders", group[group.contender])):
            row[f"{name}_cells"] = len(part)
            row[f"{name}_precise"] = part.precise.mean() if len(part) else np.nan
            decided = part.verdict != INCONCLUSIVE
            row[f"{name}_decided"] = decided.mean() if len(part) else np.nan
            first = decided & (part.stage == 1)
            row[f"{name}_decided_first"] = first.mean() if len(part) else np.nan
            # no interpolation: a cell at the margin itself needs infinitely many runs
            known = part.runs_to_decide.dropna()
            to_decide = np.quantile(known, share, method="higher") if len(known) else np.nan
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
