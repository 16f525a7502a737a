"""Claims the arena tests across papers, computed from its leaderboards at the horizon T.

No paper states the ``regret`` figure's claims; each is a reading of what the papers' results
suggest when their methods meet outside their own settings, with the paper whose result suggests
it. The ``window`` figure's follow Vernade et al. 2017 (Theorem 3, Sections 6 and 7). The
``switching`` figure's ask whether the learners made for adversarial losses (Thune et al. 2019)
do better where the best arm changes, and whether a learner of means beats the best fixed arm.

Every comparison is three-valued with the project's rule (``delayed_bandits.claims``), on an
interval of the difference of two cells' mean regrets at T:

- where one of the two is its setting's best (matched comparison), the leaderboard's 95 %
  paired-bootstrap interval of the other's difference from it (``diff_lo``, ``diff_hi``);
- otherwise the difference ± ``Z`` standard errors of the two means taken as independent (the
  table keeps no paired statistic between two cells that are not the best; the replications
  share environments, so this only widens the interval), also across the window figure's
  settings, whose replications are paired across m (``seeds.seed_name``).

"a below b" holds when the interval lies below 0 and fails when it lies above; "a no worse than
b" is a non-inferiority test with the leaderboard's equivalence margin (``tie_margin`` times b's
regret): holds when the interval lies below the margin, fails when it lies above it. A claim over
settings holds when it holds in every one, fails when it fails in one (the note names where and
what may explain it), else is inconclusive (the note names the settings that do not decide).
Its settings are the identifiable ones (``problem.Setting.identifiable``): where the conversions
within m do not single out the best arm, no learner of them can find it, so such a setting
decides nothing about the learners; the note names it apart, with its own verdict. Comparisons
with UCB that ignores delays use it at the matched exploration scale, so that what differs is
the delay handling. A claim whose answer the base rate could change is made per base rate, and
one about every algorithm is made per algorithm, so that one algorithm does not decide it for
the others (docs/decisions/arena.md#identifiable)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping, NamedTuple

import numpy as np
import pandas as pd

from delayed_bandits import grid
from delayed_bandits.arena import experiment, leaderboard
from delayed_bandits.arena.entrants import LOSSES, MATCHED, same_as_twin
from delayed_bandits.arena.identifiability import UNIDENTIFIABLE
from delayed_bandits.arena.problem import Setting
from delayed_bandits.claims import Checker, Claim, Z, every, word
from delayed_bandits.errors import ConfigError

# Methods of the UCB family that use the delay law or correct for delays, and see conversions
# only (or the outcomes settled at m that censoring reveals).
DELAY_AWARE = ("d-ucb", "d-klucb", "discarding-ucb", "patient", "adapt-patient")
IGNORANT = "ucb1-matched"  # UCB that ignores delays, at the common exploration scale
LABELLED_QUEUE = "qpm-d"  # QPM-D over UCB1 at its paper's constant: told the outcomes, labelled
ANONYMOUS = ("odaaf", "odaaf-v")  # told only the anonymous sum, each held to LABELLED_QUEUE
ROBUST, MISSPECIFIED = "patient", "d-ucb"  # Patient against d-UCB's pooled (wrong) CDF
UNIFORM = "uniform"  # uniform play: every entrant is held to it (better-than-uniform-<entrant>)
_TABLE = experiment.crossing()


def _crossed(*handlings: experiment.Handling) -> dict[str, tuple[str, ...]]:
    """Base learner's name: the ids of its entrants under ``handlings``, in that order, for each
    base that has an entrant under every one of them (the rows of ``experiment.crossing``)."""
    return {
        base.name: tuple(_TABLE[h][base].id for h in handlings)
        for base in _TABLE.get(handlings[0], {})
        if all(base in _TABLE.get(h, {}) for h in handlings)
    }


# base learner: (ignores delays, corrects the count N~, uncensored form of N~)
CROSSED = _crossed(experiment.IGNORE, experiment.CORRECT, experiment.UNCENSORED)
# base learner: (told the CDF, the CDF estimated), both windowed
ESTIMATED = _crossed(experiment.CORRECT, experiment.ESTIMATE)
FITTED = _crossed(experiment.IGNORE, experiment.FIT)  # (ignores delays, fits by EM)
# base learner: (ignores delays, bootstraps a Kaplan-Meier EM fit)
BOOTSTRAPPED = _crossed(experiment.IGNORE, experiment.BOOTSTRAP)
ORACLE, ORACLE_BASE = "qpm-d-ts", "ts"  # QPM-D over TS (labelled outcomes) and its base alone
WINDOWED = {"d-ucb": "discarding-ucb", "d-klucb": "discarding-klucb"}
"""The window figure's delay-corrected methods of Vernade et al. 2017 and the Discarding policy
of the same learner (the paper has no Thompson sampling, so d-TS is not held to its claims)."""


class Result(NamedTuple):
    """A setting's verdict, what was measured there, and whether the setting is identifiable
    (``problem.Setting.identifiable``; a claim's verdict leaves the others out, ``_claim``)."""

    holds: bool | None
    text: str
    identifiable: bool = True


def _row(board: pd.DataFrame, setting: str, algorithm: str) -> pd.Series:
    return board[(board.setting == setting) & (board.algorithm == algorithm)].iloc[0]


def _is_best(row: pd.Series) -> bool:
    """The matched comparison's best of its setting, against which the table holds paired
    intervals (``diff_lo`` = ``diff_hi`` = 0 there)."""
    return row.get("section", MATCHED) == MATCHED and row["rank"] == 1 and row.diff_hi == 0


def _difference(a: pd.Series, b: pd.Series) -> tuple[float, float, str]:
    """(low, high, test) of an interval of a's mean regret minus b's (module docstring)."""
    if _is_best(b) and not _is_best(a):
        return float(a.diff_lo), float(a.diff_hi), "paired bootstrap"
    if _is_best(a) and not _is_best(b):
        return -float(b.diff_hi), -float(b.diff_lo), "paired bootstrap"
    return independent(a, b)


def independent(a: Any, b: Any) -> tuple[Any, Any, str]:
    """a's mean regret minus b's ± ``Z`` SE, the two means taken as independent: of two rows, or
    elementwise of two aligned tables (``digest``'s comparisons)."""
    gap, se = a.regret - b.regret, np.hypot(a.se, b.se)
    return gap - Z * se, gap + Z * se, f"± {Z:g} SE"


def _inferior(lo: float, hi: float, limit: float) -> bool | None:
    """The non-inferiority rule on an interval [lo, hi] of a difference: holds below ``limit``,
    fails above it, inconclusive across it."""
    return True if hi <= limit else (False if lo > limit else None)


def _below(board: pd.DataFrame, setting: str, low: str, high: str) -> Result:
    """Whether ``low`` ends with less regret than ``high`` in ``setting``."""
    a, b = _row(board, setting, low), _row(board, setting, high)
    lo, hi, test = _difference(a, b)
    holds = True if hi < 0 else (False if lo > 0 else None)
    text = f"{setting}: {low} {a.regret:.0f}, {high} {b.regret:.0f} ({test})"
    return Result(holds, text, bool(a.identifiable))


def _no_worse(board: pd.DataFrame, setting: str, a: str, b: str, margin: float) -> Result:
    """Whether ``a`` ends with no more regret than ``b`` in ``setting``, up to ``margin`` times
    b's regret."""
    ra, rb = _row(board, setting, a), _row(board, setting, b)
    lo, hi, test = _difference(ra, rb)
    text = f"{setting}: {a} {ra.regret:.0f}, {b} {rb.regret:.0f} ({test})"
    return Result(_inferior(lo, hi, margin * rb.regret), text, bool(ra.identifiable))


def _better(board: pd.DataFrame, setting: str, a: str, b: str, margin: float) -> Result:
    """Whether ``a`` ends with less regret than ``b`` in ``setting`` by at least ``margin`` times
    b's regret: the interval of the difference below -margin x b's regret holds, above it fails
    (an ``a`` that plays as ``b`` does, at a difference of 0, fails)."""
    ra, rb = _row(board, setting, a), _row(board, setting, b)
    lo, hi, test = _difference(ra, rb)
    text = f"{setting}: {a} {ra.regret:.0f}, {b} {rb.regret:.0f} ({test})"
    return Result(_inferior(lo, hi, -margin * rb.regret), text, bool(ra.identifiable))


def _claim(
    cid: str,
    statement: str,
    ref: str,
    results: Iterable[Result],
    expected: str,
    explain: str,
    measured: str = "",
    unit: str = "settings",
) -> Claim:
    """A claim over settings (``every``) of the identifiable ones: the note names the settings
    that fail, with ``explain`` (what may explain it), or those that do not decide, then the
    unidentifiable settings (``UNIDENTIFIABLE``), left out of the verdict, with their own."""
    results = list(results)
    kept = [r for r in results if r.identifiable]
    holds = every(r.holds for r in kept)
    counts = {w: sum(word(r.holds) == w for r in kept) for w in ("holds", "fails")}
    undecided = len(kept) - sum(counts.values())
    failed = [r.text for r in kept if r.holds is False]
    open_ = [r.text for r in kept if r.holds is None]
    if failed:
        note = f"fails in {'; '.join(failed)}. {explain}"
    elif open_:
        note = f"inconclusive in {'; '.join(open_)}"
    else:
        note = ""
    apart = [r for r in results if not r.identifiable]
    if apart:
        # a regime no learner of the conversions can solve decides nothing about the learners
        note += (" " if note else "") + (
            f"Left out, {UNIDENTIFIABLE}: "
            + "; ".join(f"{word(r.holds)} in {r.text}" for r in apart)
            + "."
        )
        measured += f"; {len(apart)} unidentifiable {unit} left out"
    return Claim(
        cid,
        statement,
        ref,
        f"holds in {counts['holds']} of {len(kept)} {unit}, fails in {counts['fails']}, "
        f"inconclusive in {undecided}{measured}",
        expected,
        holds if kept else None,
        note,
    )


def _settings(
    board: pd.DataFrame, censored: bool | None = None, arm_dependent: bool | None = None
) -> list[str]:
    rows = board.drop_duplicates("setting")
    if censored is not None:
        rows = rows[rows.censored == censored]
    if arm_dependent is not None:
        rows = rows[rows.arm_dependent == arm_dependent]
    return list(rows.setting)


def _twins(board: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> dict[str, str | None]:
    """The board's reward-dependent settings (a regime with ``zero_delay``), each with its twin
    where the board has it (the same grid point of the regime it ``draws_as``, which faces the
    same conversions), else None."""
    listed, present = fig_cfg["settings"], set(board.setting)
    twins: dict[str, str | None] = {}
    for s in _settings(board):
        p = grid.point(fig_cfg, s)
        if "zero_delay" in listed[p.listed]:
            twin = (
                "draws_as" in listed[p.listed]
                and grid.Point(listed[p.listed]["draws_as"], p.index, p.names).id
            )
            twins[s] = twin if twin in present else None
    return twins


def once(
    board: pd.DataFrame, fig_cfg: Mapping[str, Any], settings: Iterable[str], *compared: str
) -> list[str]:
    """``settings`` without each reward-dependent one whose twin (the same draws, ``_twins``) is
    among them too, where every ``compared`` entrant is one that runs there exactly as in the
    twin (``entrants.same_as_twin``): the comparison is the twin's, counted once."""
    settings = list(settings)
    info = board.drop_duplicates("algorithm").set_index("algorithm").information
    if not all(same_as_twin(info[a]) for a in compared):
        return settings
    twins = _twins(board, fig_cfg)
    return [s for s in settings if twins.get(s) not in settings]


def _best_aware(board: pd.DataFrame, setting: str) -> str:
    rows = board[(board.setting == setting) & board.algorithm.isin(DELAY_AWARE) & board.applicable]
    return str(rows.loc[rows.regret.idxmin(), "algorithm"])


def regret(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """The regret figure's claims, one per base rate of the grid."""
    board = leaderboard.display(tables["leaderboard"])  # one row per (setting, algorithm) at T
    margin = leaderboard.statistics(fig_cfg)["tie_margin"]
    rates = sorted(board.base_mean.unique(), reverse=True)
    claims = []
    for rate in rates:
        suffix = f"-rate{rate:g}" if len(rates) > 1 else ""
        where = f" (base rate {rate:g})" if len(rates) > 1 else ""
        found = _regret_claims(board[board.base_mean == rate], fig_cfg, margin)
        claims += [replace(c, id=c.id + suffix, statement=c.statement + where) for c in found]
    return claims


def _regret_claims(board: pd.DataFrame, fig_cfg: Mapping[str, Any], margin: float) -> list[Claim]:
    present = set(fig_cfg["algorithms"])
    no_worse = f"in every setting, interval below {margin:g} x its regret"
    claims = []
    if {IGNORANT, *DELAY_AWARE} <= present:
        for arm_dependent, which in (
            (False, "one delay law for all arms"),
            (True, "arm-dependent delays"),
        ):
            settings = _settings(board, censored=True, arm_dependent=arm_dependent)
            if settings:
                claims.append(
                    _claim(
                        f"aware-beats-ignorant-censored-{'per-arm' if arm_dependent else 'shared'}",
                        f"Under censoring ({which}), the best delay-aware method ({', '.join(DELAY_AWARE)})"
                        " ends with less regret than UCB that ignores delays, at the same exploration "
                        "scale",
                        "Vernade et al. 2017, Sections 5-6 (censoring biases the naive estimate by τ_m)",
                        (_below(board, s, _best_aware(board, s), IGNORANT) for s in settings),
                        "in every such setting, interval of the difference below 0",
                        "Censoring scales every arm's rate by the same τ_m under one law, which "
                        "keeps the arms' order, so ignoring the bias can still find the best arm, "
                        "while the corrections widen the confidence bounds (1/τ_m) and Discarding "
                        "waits m rounds.",
                    )
                )
    if LABELLED_QUEUE in present:
        for algorithm in ANONYMOUS:
            rows = board[(board.algorithm == algorithm) & board.applicable]
            if algorithm not in present or rows.empty:
                continue
            qpmd = board[board.algorithm == LABELLED_QUEUE].set_index("setting").regret
            factor = rows.regret.to_numpy() / qpmd[rows.setting].to_numpy()
            claims.append(
                _claim(
                    f"{algorithm}-pays-for-anonymity",
                    f"{algorithm.upper()}, which sees only the anonymous sum of arriving conversions, "
                    "ends with more regret than QPM-D, which sees them labelled",
                    "Pike-Burke et al. 2018, Section 5 and Figure 3 (ratios to QPM-D above 1)",
                    (_below(board, s, LABELLED_QUEUE, algorithm) for s in rows.setting),
                    "in every setting where it applies, interval of the difference below 0",
                    "Where QPM-D's base (UCB1 at its paper's constant) has not separated the arms "
                    "by T (its regret near linear, e.g. heavy arm-dependent delays), ODAAF's "
                    "eliminations, however late, cost less.",
                    f"; regret over QPM-D's from {factor.min():.2f} to {factor.max():.2f}",
                )
            )
    if {ROBUST, MISSPECIFIED} <= present:
        # where d-UCB runs: uncensored, its window (the law's 0.99 quantile) may be too long
        settings = [
            s
            for s in _settings(board, arm_dependent=True)
            if _row(board, s, MISSPECIFIED).applicable
        ]
        if settings:
            claims.append(
                _claim(
                    "patient-robust-to-wrong-cdf",
                    "Where delays depend on the arm, so that d-UCB's one CDF (the arms' laws pooled) is "
                    "wrong for every arm, Patient ends with less regret than d-UCB",
                    "Manegueu et al. 2020, Section 8.2 and Figure 5 (D-UCB with a misspecified CDF)",
                    (_below(board, s, ROBUST, MISSPECIFIED) for s in settings),
                    "in every arm-dependent setting, interval of the difference below 0",
                    "A pooled CDF is wrong by how far the arms' laws differ; where they differ "
                    "little, d-UCB's correction is nearly right and Patient's wider bonus "
                    "(its tail parameter) costs more.",
                )
            )
    for base, (ignores, corrected, uncensored) in CROSSED.items():
        if {ignores, corrected} <= present:
            rows = []
            compared = [a for a in (ignores, corrected, uncensored) if a in present]
            for s in once(board, fig_cfg, _settings(board), *compared):
                # the uncensored form where it runs, else the windowed one, where either runs
                rows_of = [
                    a
                    for a in (corrected, uncensored)
                    if a in present and _row(board, s, a).applicable
                ]
                if not rows_of:
                    continue
                best = min(rows_of, key=lambda a: _row(board, s, a).regret)
                rows.append(_no_worse(board, s, best, ignores, margin))
            claims.append(
                _claim(
                    f"correcting-no-worse-than-ignoring-{ignores}",
                    f"With the same base learner ({base}), correcting the count N~ with the known "
                    "CDF ends with no more regret than ignoring delays",
                    "Vernade et al. 2017, Section 5 (N~ removes the bias of conversions in flight)",
                    rows,
                    no_worse,
                    "N~ discounts the recent pulls by the CDF, which widens the corrected "
                    "learner's bounds; where the delays are short against T the bias it removes "
                    "is small and the wider bounds cost more.",
                )
            )
    for base, (known, estimated) in ESTIMATED.items():
        if {known, estimated} <= present:
            # censored only: there both run at the problem's m, so only the CDF differs
            settings = [
                s
                for s in _settings(board, censored=True)
                if _row(board, s, known).applicable and _row(board, s, estimated).applicable
            ]
            claims.append(
                _claim(
                    f"estimating-cdf-no-worse-{known}",
                    f"Under censoring, with the same base learner ({base}), estimating the delay "
                    "CDF online from the delays of the conversions seen ends with no more regret "
                    "than being told it",
                    "Vernade et al. 2017, Appendix D and Figure 3 (delay parameters estimated "
                    "on the go do not hurt the cumulated regret)",
                    (_no_worse(board, s, estimated, known, margin) for s in settings),
                    no_worse,
                    "Appendix D's censored estimate normalises by the delays seen, so it "
                    "estimates τ(d)/τ_m and the indices τ_m θ rather than θ, on bounds of that "
                    "scale; and it rests on few delays early on.",
                )
            )
    for base, (ignores, fitted) in FITTED.items():
        if {ignores, fitted} <= present:
            claims.append(
                _claim(
                    f"fitting-delays-no-worse-than-ignoring-{ignores}",
                    f"With the same base learner ({base}), fitting conversion rates and a delay "
                    "law jointly by EM, told no delay law, ends with no more regret than ignoring "
                    "delays",
                    "Chapelle 2014 (a pull not converted yet is a negative only once its elapsed "
                    "time exceeds the delays the model predicts)",
                    (
                        _no_worse(board, s, fitted, ignores, margin)
                        for s in once(board, fig_cfg, _settings(board), fitted, ignores)
                    ),
                    no_worse,
                    "The model's delay law is geometric, one for every arm: under heavy-tailed, "
                    "arm-dependent or lost conversions it misreads how long a pending pull may "
                    "still convert, and its imputed conversions then bias the arms it weighs.",
                )
            )
    for base, (ignores, bootstrapped) in BOOTSTRAPPED.items():
        if {ignores, bootstrapped} <= present:
            claims.append(
                _claim(
                    f"bootstrapping-km-no-worse-than-ignoring-{ignores}",
                    f"Under censoring, with the same base learner ({base}), bootstrapping an EM "
                    "fit of the conversion rates and a Kaplan-Meier delay law, told no delay "
                    "law, ends with no more regret than ignoring delays",
                    "Gigli and Stella 2024 (a pull in flight counts as a negative only as far "
                    "as the fitted delay law makes its conversion unlikely; the bootstrap "
                    "explores)",
                    (
                        _no_worse(board, s, bootstrapped, ignores, margin)
                        for s in _settings(board, censored=True)
                        if _row(board, s, bootstrapped).applicable
                    ),
                    no_worse,
                    "Its one delay law pools every arm's delays, and early on it rests on the "
                    "few delays seen within m: a pull in flight then weighs as a conversion "
                    "for as long as the law seen allows, which favours the arm played most; "
                    "its bootstrap explores an arm with no conversion only through the "
                    "pseudo-pull.",
                )
            )
    if {ORACLE, ORACLE_BASE} <= present:
        twins = _twins(board, fig_cfg)
        claims.append(
            _claim(
                "oracle-queue-beats-ignoring-ts",
                "Where delays do not depend on the reward, QPM-D over Thompson sampling, told "
                "every outcome (labelled, an oracle), ends with less regret than Thompson "
                "sampling that ignores delays",
                "Joulani et al. 2013 (QPM-D's regret is its base's plus an additive delay term)",
                (_below(board, s, ORACLE, ORACLE_BASE) for s in _settings(board) if s not in twins),
                "in every setting, interval of the difference below 0",
                "Thompson sampling that ignores delays reads a missing conversion as a 0, which "
                "lowers every arm alike under one law, and its posterior spreads less than the "
                "queue's, which waits for each outcome.",
            )
        )
        if twins:
            # what the 0s' lateness costs the queue, against its twin's same conversions
            cost = [
                _row(board, s, ORACLE).regret / _row(board, twin, ORACLE).regret
                for s, twin in twins.items()
                if twin is not None
            ]
            measured = (
                f"; regret over the same entrant's where the 0s come as the 1s do (the twin "
                f"setting, the same draws) from {min(cost):.2f} to {max(cost):.2f}"
                if cost
                else ""
            )
            claims.append(
                _claim(
                    "oracle-queue-beats-ignoring-ts-reward-dependent",
                    "Where a 0 comes later than a 1 (reward-dependent delays, outside QPM-D's "
                    "analysis), QPM-D over Thompson sampling, told every outcome, still ends with "
                    "less regret than Thompson sampling that ignores delays",
                    "Joulani et al. 2013 (the additive delay term, for delays independent of the "
                    "rewards); Lancewicki et al. 2021 (the reward-dependent delay setting)",
                    (_below(board, s, ORACLE, ORACLE_BASE) for s in twins),
                    "in every reward-dependent setting, interval of the difference below 0",
                    "The queue feeds its base the outcomes in the order they arrive: while an "
                    "arm's 0s are in flight its 1s are over-represented, so the arm pulled most "
                    "lately looks best, and the wait for the 0s is the slower law's.",
                    measured,
                )
            )
    if UNIFORM in present:
        learning = leaderboard.statistics(fig_cfg)["learning_margin"]
        # one claim per algorithm: an algorithm that fails does not decide it for the others
        for algorithm in fig_cfg["algorithms"]:
            settings = [
                s
                for s in once(board, fig_cfg, _settings(board), algorithm, UNIFORM)
                if algorithm != UNIFORM and _row(board, s, algorithm).applicable
            ]
            if not settings:
                continue
            # how far below uniform play, where the verdict is made: a claim that holds
            # everywhere still says by how much
            cells = [(_row(board, s, algorithm), _row(board, s, UNIFORM)) for s in settings]
            factor = [float(a.regret / u.regret) for a, u in cells if a.identifiable]
            measured = (
                f"; regret over uniform play's from {min(factor):.2f} to {max(factor):.2f}"
                if factor
                else ""
            )
            claims.append(
                _claim(
                    f"better-than-uniform-{algorithm}",
                    f"{algorithm}, where it applies, ends with less regret than uniform play, "
                    f"by at least {learning:g} of uniform play's regret",
                    "every paper's regret bound is sublinear in T; uniform play's is linear",
                    (_better(board, s, algorithm, UNIFORM, learning) for s in settings),
                    f"in every setting where it applies, interval below {1 - learning:g} x "
                    "uniform's regret (statistics.learning_margin): an entrant that never learns "
                    "ends at 1 x and fails",
                    "A bound sublinear in T says nothing at a finite T, and assumes the model: "
                    "where the best arm's conversions arrive later than the others' "
                    "(arm-dependent laws), a method that reads a conversion in flight as a 0, or "
                    "uses one CDF for every arm, can settle on a worse arm and pay as much as "
                    "uniform play or more; and a method that has not yet left its exploration "
                    "(an elimination that drops no arm by T) pays exactly uniform play's.",
                    measured,
                )
            )
    return claims


def window(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """The window figure's claims (Vernade et al. 2017), over its problems (law, K, base rate,
    gap), each run at every window m of the grid."""
    board = leaderboard.display(tables["leaderboard"])
    margin = leaderboard.statistics(fig_cfg)["tie_margin"]
    present = set(fig_cfg["algorithms"])
    points = grid.points(fig_cfg)
    board = board.assign(problem=[points[s].listed for s in board.setting])
    problems = board.drop_duplicates(["problem", "n_arms", "base_mean", "gap"])
    ref = "Vernade et al. 2017"
    claims = []
    for corrected, discarding in WINDOWED.items():
        if not {corrected, discarding} <= present:
            continue
        claims.append(
            _claim(
                f"{corrected}-no-worse-than-{discarding}",
                f"At the same window m, {corrected} ends with no more regret than {discarding}, "
                "which waits m rounds before it uses a pull",
                f"{ref}, Section 6 (Discarding) and Section 7, Figure 2",
                (_no_worse(board, s, corrected, discarding, margin) for s in _settings(board)),
                f"in every (law, problem, m), interval below {margin:g} x Discarding's regret",
                "Both are asymptotically optimal (Section 6); at m small against T Discarding's "
                "wait costs little and its plain bounds are narrower than the corrected ones.",
            )
        )
        largest = board[board.window == board.window.max()]
        claims.append(
            _claim(
                f"{corrected}-beats-{discarding}-at-large-m",
                f"At the largest window m of the grid, {corrected} ends with less regret than "
                f"{discarding}",
                f"{ref}, Section 6 ('especially true if the threshold m is large as compared to "
                "the horizon T') and Figure 2",
                (_below(largest, s, corrected, discarding) for s in _settings(largest)),
                "in every (law, problem) at the largest m, interval of the difference below 0",
                "At m small against T, Discarding's linear phase of m rounds is a small part of "
                "its regret.",
            )
        )
    if "d-ucb" in present:
        results = []
        for _, problem in problems.iterrows():
            rows = board[
                (board.problem == problem.problem)
                & (board.n_arms == problem.n_arms)
                & (board.base_mean == problem.base_mean)
                & (board.gap == problem.gap)
                & (board.algorithm == "d-ucb")
            ].sort_values("window")
            for small, large in zip(rows.iloc[:-1].itertuples(), rows.iloc[1:].itertuples()):
                results.append(_across_windows(small, large, margin))
        claims.append(
            _claim(
                "d-ucb-no-worse-at-larger-m",
                "d-UCB's regret does not grow with the window m: at each m of the grid it ends "
                "with no more regret than at the next smaller m",
                f"{ref}, Theorem 3 (the lower bound falls as τ_m grows: a larger m makes the "
                "problem easier)",
                results,
                f"for every (law, problem) and consecutive m, interval below {margin:g} x the "
                "smaller m's regret",
                "d-UCB's upper bound (Appendix C.1) has a term linear in m (it waits m + K "
                "rounds), which at a finite T can outweigh what a larger τ_m buys.",
                unit="(law, problem, m) steps",
            )
        )
    return claims


def _across_windows(small: Any, large: Any, margin: float) -> Result:
    """Whether the larger window's cell ends with no more regret than the smaller's. The two
    settings' runs are paired (every m faces the same draws, ``seeds.seed_name``), but the
    leaderboard holds each cell's mean and SE alone, so the difference is taken as independent
    (``independent``): conservative, as paired runs move together."""
    lo, hi, _ = independent(large, small)
    holds = _inferior(lo, hi, margin * small.regret)
    return Result(
        holds,
        f"{large.setting}: {large.regret:.0f} against {small.regret:.0f} at m = {small.window}",
        bool(small.identifiable and large.identifiable),
    )


ADVERSARIAL = tuple(a.id for a in experiment.ALGORITHMS if a.information == LOSSES)
"""The switching figure's learners of the per-round losses (Thune et al. 2019's adversarial
bandits: DEW, Skipper, Doubling), each held to Thompson sampling ignoring delays (``TRACKER``)."""
TRACKER = "ts"


def fixed_arm_offsets(board: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> dict[str, float]:
    """Per setting of the board, what its regret against each round's best exceeds the regret
    against the best fixed arm in hindsight by, at T (``problem.Switch.fixed_arm_offset``)."""
    horizon, wanted = int(fig_cfg["horizon"]), set(board.setting)
    out = {}
    for point, raw in grid.selected(fig_cfg).items():
        if point.id in wanted:
            switch = Setting.from_config(raw, point.id).switch
            if switch is None:
                raise ConfigError(
                    f"papers.arena.{experiment.SWITCHING}.settings.{point.listed}: no switch; "
                    "every setting of the switching figure has one (experiment.check_figure)"
                )
            out[point.id] = switch.fixed_arm_offset(horizon)
    return out


def _against_fixed(board: pd.DataFrame, setting: str, algorithm: str, offset: float) -> Result:
    """Whether ``algorithm`` ends with less regret than the best fixed arm in hindsight, whose
    regret against each round's best is ``offset``: its 95 % bootstrap interval of the mean
    (``regret_lo``, ``regret_hi``) below ``offset`` holds, above it fails."""
    row = _row(board, setting, algorithm)
    holds = True if row.regret_hi < offset else (False if row.regret_lo > offset else None)
    text = (
        f"{setting}: {algorithm} {row.regret - offset:+.0f} against the best fixed arm "
        f"(interval {row.regret_lo - offset:+.0f} to {row.regret_hi - offset:+.0f})"
    )
    return Result(holds, text, bool(row.identifiable))


def switching(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """The switching figure's claims, one per base rate of the grid: whether the learners made
    for adversarial losses do better than one made for stochastic ones where the best arm
    changes (docs/decisions/arena.md#switching)."""
    board = leaderboard.display(tables["leaderboard"])
    margin = leaderboard.statistics(fig_cfg)["tie_margin"]
    offsets = fixed_arm_offsets(board, fig_cfg)
    present = set(fig_cfg["algorithms"])
    if TRACKER not in present:  # every claim of the figure is held to it
        return []
    rates = sorted(board.base_mean.unique(), reverse=True)
    claims = []
    for rate in rates:
        suffix = f"-rate{rate:g}" if len(rates) > 1 else ""
        where = f" (base rate {rate:g})" if len(rates) > 1 else ""
        rows = board[board.base_mean == rate]
        settings = _settings(rows)
        fixed = ", ".join(f"{s} {offsets[s]:.0f}" for s in settings)
        tracked = ", ".join(
            f"{s} {_row(rows, s, TRACKER).regret - offsets[s]:+.0f}" for s in settings
        )
        for adversarial in (a for a in ADVERSARIAL if a in present):
            claims.append(
                _claim(
                    f"{adversarial}-no-worse-than-ts-switching{suffix}",
                    f"Where the best arm changes at T/2, {adversarial}, made for adversarial "
                    "losses, ends with no more regret than Thompson sampling ignoring delays"
                    + where,
                    "Thune et al. 2019, Section 2 (regret against the best fixed arm for any "
                    "oblivious loss sequence); our reading, no paper runs this regime",
                    (_no_worse(rows, s, adversarial, TRACKER, margin) for s in settings),
                    f"in every setting, interval below {margin:g} x Thompson sampling's regret",
                    "Their learning rate is tuned to the worst case (Thune et al. 2019, "
                    "Theorem 1: eta = sqrt(log K / (K T e/2 + D))), so by T/2 their weights have "
                    "moved by about eta gap T/2 in log-odds: on this problem they play near "
                    "uniformly, as in the stationary regimes at the same T (figure regret), "
                    "while Thompson sampling has found the early arm before T/2 and finds the "
                    "late one within a few of its pulls after it.",
                )
            )
        claims.append(
            _claim(
                f"ts-beats-best-fixed-arm{suffix}",
                "Where the best arm changes at T/2, Thompson sampling ignoring delays ends with "
                "less regret than the best fixed arm in hindsight (its regret against that arm, "
                "the comparator of the adversarial learners' guarantees, is negative)" + where,
                "Our reading: a learner of the arms' means follows a single switch",
                (_against_fixed(rows, s, TRACKER, offsets[s]) for s in settings),
                "in every setting, 95 % bootstrap interval below the best fixed arm's regret",
                "The late arm's two-gap lead after T/2 must be found early enough to win back "
                "what the early arm's one-gap lead was worth before it; with delays, or at a low "
                "rate where T/2 is short against the gap's 1/gap^2 pulls, it may not be.",
                f"; the best fixed arm's regret against each round's best: {fixed}; Thompson "
                f"sampling's against the best fixed arm: {tracked}",
            )
        )
    return claims


KEPT = frozenset(
    {
        IGNORANT,
        *DELAY_AWARE,
        LABELLED_QUEUE,
        *ANONYMOUS,
        ROBUST,
        MISSPECIFIED,
        UNIFORM,
        ORACLE,
        ORACLE_BASE,
        *(
            a
            for table in (CROSSED, ESTIMATED, FITTED, BOOTSTRAPPED)
            for ids in table.values()
            for a in ids
        ),
        *WINDOWED,
        *WINDOWED.values(),
        *ADVERSARIAL,
        TRACKER,
    }
)
"""The entrants a named claim compares, read from the declarations above: the screen never
stops them (``leaderboard.screen_plan``, docs/decisions/arena.md#screening), so that every claim
compares cells of all the runs. Every entrant is also held to uniform play
(better-than-uniform-<entrant>): that claim reads an entrant the screen stopped on its screen's
runs, as the table gives them (``n_runs``), against ``UNIFORM``'s, with the two means taken as
independent."""

CHECKS: dict[str, Checker] = {"regret": regret, "window": window, experiment.SWITCHING: switching}
