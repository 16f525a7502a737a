"""Count nothing twice: in a reward-dependent setting, an entrant not told the 0s runs
exactly as in the twin whose draws it shares, so a comparison of such entrants there is the
twin's and is counted once (``arena.claims.once``); a comparison with an entrant told every
outcome differs and is counted in both."""

from __future__ import annotations

import pandas as pd

from delayed_bandits import config, curves
from delayed_bandits.arena import claims
from delayed_bandits.arena.entrants import CONVERSIONS, LABELLED

FIG = curves.figure(config.load(["config/config.yaml"], "arena", [], "regret"), "arena", "regret")
SETTINGS = ["geometric100-K10-small", "reward_dependent-K10-small", "uniform-K10-small"]
BOARD = pd.DataFrame(
    [
        (s, a, info)
        for s in SETTINGS
        for a, info in (("ts", CONVERSIONS), ("d-ts", CONVERSIONS), ("qpm-d-ts", LABELLED))
    ],
    columns=["setting", "algorithm", "information"],
)


def test_a_comparison_of_entrants_blind_to_the_zeros_counts_the_twin_once() -> None:
    assert claims.once(BOARD, FIG, SETTINGS, "d-ts", "ts") == [SETTINGS[0], SETTINGS[2]]


def test_a_comparison_with_an_entrant_told_the_zeros_counts_both() -> None:
    assert claims.once(BOARD, FIG, SETTINGS, "qpm-d-ts", "ts") == SETTINGS


def test_without_its_twin_a_reward_dependent_setting_counts() -> None:
    alone = [SETTINGS[1], SETTINGS[2]]
    assert claims.once(BOARD, FIG, alone, "d-ts", "ts") == alone
