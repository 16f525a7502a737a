"""Claims the arena tests across papers, computed from its leaderboard at the horizon T.

No paper states these; each is a reading of what the papers' results suggest when their methods
meet outside their own settings, with the paper whose result suggests it. A comparison "holds"
in a setting when the difference of regrets at T exceeds 2 standard errors (treating curves as
independent, which is conservative: they share environments). Comparisons with UCB that ignores
delays use it at the matched exploration scale, so that what differs is the delay handling."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pandas as pd

from delayed_bandits.claims import Checker, Claim
from delayed_bandits.papers.arena import leaderboard

# Methods of the UCB family that use the delay law or correct for delays, and see conversions
# only (or the outcomes settled at m that censoring reveals).
DELAY_AWARE = ("d-ucb", "d-klucb", "discarding-ucb", "patient", "adapt-patient")
IGNORANT = "ucb1-matched"  # UCB that ignores delays, at the common exploration scale
CROSSED = {  # base learner: (ignores delays, corrects the count N~, uncensored form of N~)
    "UCB at log t": ("ucb1-matched", "d-ucb", "ud-ucb"),
    "KL-UCB at log t": ("klucb-matched", "d-klucb", "ud-klucb"),
    "Thompson sampling": ("ts", "d-ts", "ud-ts"),
}
ORACLE, ORACLE_BASE = "qpm-d-ts", "ts"  # QPM-D over TS (labelled outcomes) and its base alone


def _row(board: pd.DataFrame, setting: str, algorithm: str) -> pd.Series:
    return board[(board.setting == setting) & (board.algorithm == algorithm)].iloc[0]


def _beats(board: pd.DataFrame, setting: str, low: str, high: str) -> tuple[bool, str]:
    """Whether ``low`` has less regret at T than ``high`` by more than 2 SE, and the numbers."""
    a, b = _row(board, setting, low), _row(board, setting, high)
    diff, se = b.regret - a.regret, (a.se**2 + b.se**2) ** 0.5
    return bool(diff > 2 * se), f"{setting}: {low} {a.regret:.0f}, {high} {b.regret:.0f}"


def _across(results: Iterable[tuple[bool, str]]) -> tuple[int, int, list[str]]:
    """(settings where it holds, settings, the descriptions of those where it does not)."""
    results = list(results)
    failed = [text for ok, text in results if not ok]
    return len(results) - len(failed), len(results), failed


def _claim(
    cid: str,
    statement: str,
    ref: str,
    results: Iterable[tuple[bool, str]],
    expected: str,
    measured: str = "",
    unit: str = "settings",
) -> Claim:
    """A claim over settings: it holds when it holds in every one; the note lists the others."""
    held, total, failed = _across(results)
    note = "fails in " + "; ".join(failed) if failed else ""
    return Claim(
        cid,
        statement,
        ref,
        f"holds in {held} of {total} {unit}{measured}",
        expected,
        bool(total and held == total),
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


def _best_aware(board: pd.DataFrame, setting: str) -> str:
    rows = board[(board.setting == setting) & board.algorithm.isin(DELAY_AWARE) & board.applicable]
    return str(rows.loc[rows.regret.idxmin(), "algorithm"])


def regret(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    board = leaderboard.display(tables["leaderboard"])  # one row per (setting, algorithm) at T
    present = set(fig_cfg["algorithms"])
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
                        (_beats(board, s, _best_aware(board, s), IGNORANT) for s in settings),
                        "in every such setting, by > 2 SE",
                    )
                )
    if "qpm-d" in present:
        for algorithm in ("odaaf", "odaaf-v"):
            rows = board[(board.algorithm == algorithm) & board.applicable]
            if algorithm not in present or rows.empty:
                continue
            qpmd = board[board.algorithm == "qpm-d"].set_index("setting").regret
            factor = rows.regret.to_numpy() / qpmd[rows.setting].to_numpy()
            claims.append(
                _claim(
                    f"{algorithm}-pays-for-anonymity",
                    f"{algorithm.upper()}, which sees only the anonymous sum of arriving conversions, "
                    "ends with more regret than QPM-D, which sees them labelled",
                    "Pike-Burke et al. 2018, Section 5 and Figure 3 (ratios to QPM-D above 1)",
                    (_beats(board, s, "qpm-d", algorithm) for s in rows.setting),
                    "in every setting where it applies, by > 2 SE",
                    f"; regret over QPM-D's from {factor.min():.2f} to {factor.max():.2f}",
                )
            )
    if {"patient", "d-ucb"} <= present:
        settings = _settings(board, arm_dependent=True)
        if settings:
            claims.append(
                _claim(
                    "patient-robust-to-wrong-cdf",
                    "Where delays depend on the arm, so that d-UCB's one CDF (the arms' laws pooled) is "
                    "wrong for every arm, Patient ends with less regret than d-UCB",
                    "Manegueu et al. 2020, Section 8.2 and Figure 5 (D-UCB with a misspecified CDF)",
                    (_beats(board, s, "patient", "d-ucb") for s in settings),
                    "in every arm-dependent setting, by > 2 SE",
                )
            )
    for base, (ignores, corrected, uncensored) in CROSSED.items():
        if {ignores, corrected} <= present:
            rows = []
            for s in _settings(board):
                rows_of = [corrected] + [
                    a for a in (uncensored,) if a in present and _row(board, s, a).applicable
                ]
                # the uncensored form where it runs, else the windowed one
                best = min(rows_of, key=lambda a: _row(board, s, a).regret)
                worse, text = _beats(board, s, ignores, best)
                rows.append((not worse, text))
            claims.append(
                _claim(
                    f"correcting-no-worse-than-ignoring-{ignores}",
                    f"With the same base learner ({base}), correcting the count N~ with the known "
                    "CDF ends with no more regret than ignoring delays",
                    "Vernade et al. 2017, Section 5 (N~ removes the bias of conversions in flight)",
                    rows,
                    "in every setting, not above by > 2 SE",
                )
            )
    if {ORACLE, ORACLE_BASE} <= present:
        claims.append(
            _claim(
                "oracle-queue-beats-ignoring-ts",
                "QPM-D over Thompson sampling, told every outcome (labelled, an oracle), ends "
                "with less regret than Thompson sampling that ignores delays",
                "Joulani et al. 2013 (QPM-D's regret is its base's plus an additive delay term)",
                (_beats(board, s, ORACLE, ORACLE_BASE) for s in _settings(board)),
                "in every setting, by > 2 SE",
            )
        )
    if "uniform" in present:
        learners = [a for a in fig_cfg["algorithms"] if a != "uniform"]
        results = []
        for s in _settings(board):
            for algorithm in learners:
                if _row(board, s, algorithm).applicable:
                    worse, text = _beats(board, s, "uniform", algorithm)
                    results.append((not worse, text))
        claims.append(
            _claim(
                "no-worse-than-uniform",
                "Every algorithm, where it applies, ends with no more regret than uniform play",
                "every paper's regret bound is sublinear in T; uniform play's is linear",
                results,
                "no (setting, algorithm) above uniform play by > 2 SE",
                unit="(setting, algorithm) pairs",
            )
        )
    return claims


CHECKS: dict[str, Checker] = {"regret": regret}
