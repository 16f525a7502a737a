"""The answer per regime family (``arena.answer``): the mean paired ratio to the reference over a
family's settings covers the true mean ratio at its stated rate (seeded synthetic runs,
tolerance 3 binomial SEs), a missing reference or family is refused, and the sentence names each
information model's best entrant."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from delayed_bandits.arena import answer

TABLES, N = 400, 20
TRUE = {"s1": 0.8, "s2": 0.9, "s3": 1.0}  # the entrant's true ratio per setting


def _runs(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    for setting, ratio in TRUE.items():
        shared = rng.gamma(4.0, 25.0, N)  # mean 100, paired
        ts = shared + rng.normal(0.0, 15.0, N)
        other = ratio * shared + rng.normal(0.0, 15.0, N)
        for r in range(N):
            rows += [(setting, r, "ts", ts[r]), (setting, r, "a", other[r])]
    return pd.DataFrame(rows, columns=["setting", "replication", "algorithm", "regret"])


def test_the_family_interval_covers_the_mean_ratio_at_its_rate() -> None:
    rng = np.random.default_rng(5)
    truth = np.mean(list(TRUE.values()))
    family = dict.fromkeys(TRUE, "censored")
    missed = 0
    for _ in range(TABLES):
        table = answer.family_table(answer.setting_ratios(_runs(rng)), family)
        row = table[table.algorithm == "a"].iloc[0]
        missed += not (row.lo <= truth <= row.hi)
        ref = table[table.algorithm == "ts"].iloc[0]
        assert ref.ratio == 1.0 and ref.se == 0.0
    assert missed / TABLES <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / TABLES), missed


def test_a_setting_without_the_reference_or_a_family_is_refused() -> None:
    runs = _runs(np.random.default_rng(1))
    with pytest.raises(ValueError, match="reference 'ts'"):
        answer.setting_ratios(runs[runs.algorithm != "ts"])
    with pytest.raises(ValueError, match="no family: s3"):
        answer.family_table(answer.setting_ratios(runs), {"s1": "x", "s2": "x"})


def test_the_sentence_names_the_best_of_each_information_model() -> None:
    table = pd.DataFrame(
        {
            "family": ["f"] * 3,
            "algorithm": ["ts", "a", "b"],
            "ratio": [1.0, 0.85, 0.95],
            "lo": [1.0, 0.80, 0.90],
            "hi": [1.0, 0.90, 1.02],
        }
    )
    info = {"ts": "conversions", "a": "conversions", "b": "labelled outcomes (oracle)"}
    said = answer.sentences(table, info, {"a": "d-TS"})["f"]
    assert "conversions: d-TS at 0.85" in said and "15 % less regret than ts" in said
    assert "labelled outcomes (oracle): b at 0.95" in said and "no difference" in said
