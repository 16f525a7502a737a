"""Identifiability: a setting whose conversions within m point at another arm than the best is
flagged once (``Setting.identifiable``), carried by the leaderboard, and left out of the claims'
verdicts, which name it apart; a claim about every algorithm is one claim per algorithm."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from conftest import FULL_FILES
from delayed_bandits import config as cfg
from delayed_bandits import grid
from delayed_bandits.arena import claims as arena_claims
from delayed_bandits.arena import identifiability, leaderboard
from delayed_bandits.arena.problem import Setting

FULL = cfg.load(FULL_FILES, "arena")["papers"]["arena"]


def _setting(figure: str, name: str) -> Setting:
    return Setting.from_config(grid.settings(FULL[figure])[name], name)


def test_the_per_arm_pareto_setting_censored_at_the_small_gap_is_flagged() -> None:
    st = _setting("regret", "pareto_arm_censored-K10-small")
    tau_best, tau_other = 1 - 201**-0.3, 1 - 201**-1.0  # P(D <= 200) = 1 - 201^-alpha
    np.testing.assert_allclose(st.observed_means, [0.4 * tau_other] * 9 + [0.45 * tau_best])
    assert 0.45 * tau_best < 0.4 * tau_other and not st.identifiable
    # the same laws with the large gap, or without censoring, single out the best arm
    assert _setting("regret", "pareto_arm_censored-K10-large").identifiable
    assert _setting("regret", "pareto_arm-K10-small").identifiable


def test_one_law_for_all_arms_keeps_the_order_under_censoring() -> None:
    st = _setting("regret", "geometric1000_censored-K10-small")  # tau_m = 0.18
    assert st.censored and st.observed_means.max() < 0.1 and st.identifiable


def test_the_config_flags_exactly_the_per_arm_pareto_small_gap_settings() -> None:
    flagged = {
        (figure, name)
        for figure in ("regret", "window")
        for name, raw in grid.settings(FULL[figure]).items()
        if not Setting.from_config(raw, name).identifiable
    }
    assert flagged == {
        ("regret", "pareto_arm_censored-K2-small"),
        ("regret", "pareto_arm_censored-K10-small"),
    }


def test_a_tie_of_observed_rates_is_unidentifiable() -> None:
    mu = np.array([0.4, 0.4, 0.5])
    assert identifiability.identifiable(mu, np.array([0.3, 0.2, 0.35]))
    assert not identifiability.identifiable(mu, np.array([0.3, 0.3, 0.3]))
    assert not identifiability.identifiable(mu, np.array([0.3, 0.36, 0.35]))


LAW = {"kind": "geometric", "mean": 10}
FIG = {
    "horizon": 100,
    "replications": 4,
    "checkpoints": 2,
    "algorithms": ["d-ucb", "patient", "uniform"],
    "grid": [
        {"key": "n_arms", "values": [2], "names": ["K2"]},
        {"key": "gap", "values": [0.2], "names": ["large"]},
    ],
    "settings": {
        "one": {"delay": LAW, "censored": True, "window": 20},
        "two": {"delay": LAW, "censored": False, "window": 20},
        # the best arm's conversions the latest: 0.6 x 0.60 below 0.4 x 0.95 within m = 20
        "arm": {
            "delay": {
                "kind": "per_arm",
                "arms": [{"kind": "pareto", "alpha": 0.3}, {"kind": "pareto", "alpha": 1.0}],
            },
            "censored": True,
            "window": 20,
        },
    },
}
for _raw_setting in FIG["settings"].values():
    _raw_setting.update(base_mean=0.4, alpha_tilde=0.5)
BASE = np.array([10.0, 12.0, 14.0, 16.0])
REGRETS = {  # uniform play 40 above; d-UCB fails only where no learner can find the best arm
    ("one", "d-ucb"): BASE,
    ("two", "d-ucb"): BASE,
    ("arm", "d-ucb"): BASE + 80,
    ("one", "patient"): BASE + 60,  # fails in an identifiable setting
    ("two", "patient"): BASE,
    ("arm", "patient"): BASE,
    **{(s, "uniform"): BASE + 40 for s in ("one", "two", "arm")},
}


@pytest.fixture(scope="module")
def board() -> pd.DataFrame:
    raw = pd.DataFrame(
        [
            {"setting": f"{s}-K2-large", "algorithm": a, "replication": r, "t": 100, "regret": x}
            for (s, a), runs in REGRETS.items()
            for r, x in enumerate(runs)
        ]
    )
    return leaderboard.build(raw, FIG, 0, "regret")


def test_the_leaderboard_carries_the_flag(board: pd.DataFrame) -> None:
    assert "identifiable" in leaderboard.COLUMNS
    assert list(board.columns) == leaderboard.COLUMNS
    flags = board.groupby("setting").identifiable.agg(["min", "max"])
    assert flags.to_dict("index") == {
        "one-K2-large": {"min": True, "max": True},
        "two-K2-large": {"min": True, "max": True},
        "arm-K2-large": {"min": False, "max": False},
    }


def test_claims_leave_an_unidentifiable_setting_out_and_name_it_apart(
    board: pd.DataFrame,
) -> None:
    claims = {c.id: c for c in arena_claims.regret({"leaderboard": board}, FIG)}
    ducb = claims["better-than-uniform-d-ucb"]
    # fails in arm-K2-large, which decides nothing: it holds on the identifiable two
    assert ducb.holds is True
    assert ducb.measured == (
        "holds in 2 of 2 settings, fails in 0, inconclusive in 0; regret over uniform play's "
        "from 0.25 to 0.25; 1 unidentifiable settings left out"
    )
    assert ducb.note == (
        f"Left out, {identifiability.UNIDENTIFIABLE}: fails in arm-K2-large: d-ucb 93, "
        "uniform 53 (± 2 SE)."
    )
    # a claim per algorithm: Patient's failure in an identifiable setting is its own
    patient = claims["better-than-uniform-patient"]
    assert patient.holds is False and patient.note.startswith("fails in one-K2-large")
    assert "Left out" in patient.note and "holds in arm-K2-large" in patient.note
    assert "better-than-uniform-uniform" not in claims
    # a claim whose every setting is unidentifiable is inconclusive, with the setting named
    robust = claims["patient-robust-to-wrong-cdf"]
    assert robust.holds is None and robust.measured.startswith("holds in 0 of 0 settings")
    assert "arm-K2-large" in robust.note


def _never_learning_board(fig: dict) -> pd.DataFrame:
    """d-UCB's runs replaced by uniform play's own (an entrant that never learns: an elimination
    that drops no arm by T plays as uniform play does), in the two identifiable settings."""
    raw = pd.DataFrame(
        [
            {"setting": f"{s}-K2-large", "algorithm": a, "replication": r, "t": 100, "regret": x}
            for s in ("one", "two")
            for a, runs in (("d-ucb", BASE + 40), ("patient", BASE), ("uniform", BASE + 40))
            for r, x in enumerate(runs)
        ]
    )
    return leaderboard.build(raw, fig, 0, "regret")


def test_an_entrant_that_never_learns_is_not_better_than_uniform_play() -> None:
    """At a ratio of exactly 1 to uniform play the claim fails: the interval of the difference
    (0 ± 2 SE) lies above -learning_margin x uniform's regret; Patient, 4 times below, holds. The
    margin is the config's: at a tenth of it the same runs no longer decide."""
    fig = {**FIG, "settings": {k: v for k, v in FIG["settings"].items() if k != "arm"}}
    claims = {
        c.id: c for c in arena_claims.regret({"leaderboard": _never_learning_board(fig)}, fig)
    }
    never = claims["better-than-uniform-d-ucb"]
    assert never.holds is False and "from 1.00 to 1.00" in never.measured
    assert "interval below 0.9 x uniform's regret" in never.expected
    assert claims["better-than-uniform-patient"].holds is True
    loose = {**fig, "statistics": {"learning_margin": 0.01}}
    board = _never_learning_board(loose)
    claims = {c.id: c for c in arena_claims.regret({"leaderboard": board}, loose)}
    assert claims["better-than-uniform-d-ucb"].holds is None
