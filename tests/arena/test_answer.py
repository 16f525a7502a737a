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
            "label": ["TS", "d-TS", "QPM-D TS"],
            "information": ["conversions", "conversions", "labelled outcomes (oracle)"],
            "complete": [True, True, True],
        }
    )
    said = answer.sentences(table)["f"]
    assert "conversions: d-TS at 0.85" in said and "15 % less regret than ts" in said
    assert "labelled outcomes (oracle): QPM-D TS at 0.95" in said and "no difference" in said
    # an entrant that applies in only some of the family's settings is not the family's best
    partial = table.assign(complete=[True, False, True])
    assert "conversions: TS at 1.00" in answer.sentences(partial)["f"]


@pytest.mark.parametrize(
    ("ratio", "lo", "hi", "said"),
    [
        (0.8549, 0.80, 0.90, "at 0.85 × [0.80, 0.90] (15 % less regret than ts)"),
        (0.8551, 0.80, 0.90, "at 0.86 × [0.80, 0.90] (14 % less regret than ts)"),
        (1.2449, 1.10, 1.40, "at 1.24 × [1.10, 1.40] (24 % more regret than ts)"),
        (148.36, 135.7, 161.0, "at 148.36 × [135.70, 161.00] (over 148 times the regret of ts)"),
        (2.6549, 2.40, 2.90, "at 2.65 × [2.40, 2.90] (over 2 times the regret of ts)"),
        (1.9996, 1.90, 2.10, "at 2.00 × [1.90, 2.10] (2 times the regret of ts)"),
    ],
)
def test_what_a_best_entrant_buys_is_its_ratio_as_printed(
    ratio: float, lo: float, hi: float, said: str
) -> None:
    table = pd.DataFrame(
        {
            "family": ["f"],
            "algorithm": ["a"],
            "ratio": [ratio],
            "lo": [lo],
            "hi": [hi],
            "label": ["A"],
            "information": ["conversions"],
            "complete": [True],
        }
    )
    assert answer.sentences(table)["f"] == f"f: conversions: A {said}."


@pytest.mark.parametrize("overlay", [[], ["config/arena-full.yaml"]])
def test_every_setting_of_the_arena_has_its_declared_family(overlay: list[str]) -> None:
    from delayed_bandits import config, curves

    made = config.load(["config/config.yaml", *overlay], "arena", [], "regret")
    named = answer.families(curves.figure(made, "arena", "regret"))
    assert set(named) and all(name.startswith(answer.REGIMES) for name in named.values())
    by_regime = {s.split("-")[0]: f.rsplit(", μ", 1)[0] for s, f in named.items()}
    assert by_regime["geometric100"] == "short delays, uncensored"
    assert by_regime["geometric1000_censored"] == "long delays, censored"  # tau_m = 0.18
    assert by_regime["criteo"] == "long delays, uncensored"
    assert by_regime["pareto1_censored"] == "heavy tail, censored"
    assert by_regime["pareto_arm"] == "arm-dependent tails, uncensored"
    assert by_regime["packet_loss75_censored"] == "packet loss"
    assert by_regime["reward_dependent"] == "reward-dependent"
    # every family in reading order once, base rates high to low
    ordered = answer.order(named)
    assert sorted(ordered) == sorted(set(named.values()))
    assert ordered[0] == "short delays, uncensored, μ = 0.4"


def test_the_table_pairs_each_setting_with_the_reference_and_marks_partial_families() -> None:
    from delayed_bandits import config, curves

    made = config.load(["config/config.yaml"], "arena", [], "regret")
    fig = curves.figure(made, "arena", "regret")
    fig = {**fig, "algorithms": ["ts", "d-ts", "ud-ts"]}
    rng = np.random.default_rng(3)
    rows = []
    for setting in answer.families(fig):
        for r in range(4):
            base = rng.gamma(4.0, 25.0)
            rows.append((setting, "ts", r, fig["horizon"], base))
            rows.append((setting, "d-ts", r, fig["horizon"], 0.5 * base))
            if setting.startswith("geometric100-"):  # ud-ts in one setting of its family alone
                rows.append((setting, "ud-ts", r, fig["horizon"], 0.8 * base))
    raw = pd.DataFrame(rows, columns=["setting", "algorithm", "replication", "t", "regret"])
    table = answer.table(raw, fig)
    assert list(table.columns) == answer.COLUMNS
    d_ts = table[table.algorithm == "d-ts"]
    assert np.allclose(d_ts.ratio, 0.5) and np.allclose(d_ts.se, 0.0) and d_ts.complete.all()
    ud = table[table.algorithm == "ud-ts"].iloc[0]
    assert ud.family == "short delays, uncensored, μ = 0.4" and not ud.complete
    assert ud.settings == 1 and ud.n_runs == 4


def test_the_reference_is_never_stopped_by_the_screen() -> None:
    """Every ratio is to the reference's runs: the screen keeps all of them (``claims.KEPT``)."""
    from delayed_bandits.arena.claims import KEPT

    assert answer.REFERENCE in KEPT
