"""Racing keeps the tie rule's stated error rate across its two stages (``racing``): a cell at
the margin raced on fresh runs is called tied-best at most (1 - confidence) / 2 of the time in
all, unimodal or bimodal, while the second stage decides cells the base runs could not. Seeded
tables as in test_tie_coverage.py; tolerances are 3 binomial standard errors over the tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from delayed_bandits.arena import digest, leaderboard, racing, ties

N0, RACE, TABLES, RESAMPLES = 80, 160, 300, 1000
STATS = {**ties.STATISTICS, "race_runs": RACE}
MARGIN, CONTENDER = STATS["tie_margin"], leaderboard.CONTENDER
NOMINAL = (1 - STATS["confidence"]) / 2


def _tolerance(rate: float) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / TABLES)


def _verdicts(runs: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    w = leaderboard.resample_weights(len(runs), RESAMPLES, np.random.SeedSequence(seed))
    _, lower, upper = ties.excess(runs, w, MARGIN, racing.stage_confidence(STATS))
    return ties.verdict(lower, upper), runs.mean(axis=0)


def _two_stages(draw, rng: np.random.Generator, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(base verdicts, final verdicts) of one table: ``draw(rng, n)`` gives n paired runs of
    every column; the raced columns (``racing.select``) get ``RACE`` fresh runs, and a cell the
    base runs left inconclusive takes the second stage's verdict."""
    first, means = _verdicts(draw(rng, N0), seed)
    raced = racing.select(first, means / means.min(), CONTENDER)
    final = first.copy()
    if raced.any():
        second, _ = _verdicts(draw(rng, RACE)[:, raced], seed + 1)
        redo = raced & (first == ties.INCONCLUSIVE)
        final[redo] = second[redo[raced]]
    return first, final


def _at_margin(bimodal: bool):
    """The best (mean 100), a cell exactly at the margin (110) and a near one (103), all
    noisy enough that 80 runs rarely decide them, and one clearly worse (200)."""

    def draw(rng: np.random.Generator, n: int) -> np.ndarray:
        shared = rng.gamma(2.0, 50.0, n)  # mean 100
        best = shared + rng.normal(0.0, 30.0, n)
        if bimodal:
            stuck = rng.random(n) < 0.1
            edge = np.where(stuck, 8.0, 1.0) * (110.0 / 1.7) * rng.gamma(50.0, 1 / 50.0, n)
        else:
            edge = 1.1 * shared + rng.normal(0.0, 30.0, n)
        near = 1.03 * shared + rng.normal(0.0, 30.0, n)
        worse = 2 * shared + rng.normal(0.0, 30.0, n)
        return np.column_stack([best, edge, near, worse])

    return draw


def _rates(draw, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    tables = [_two_stages(draw, rng, 1000 * seed + i) for i in range(TABLES)]
    return {
        "false_tie": np.mean([final[1] == ties.TIED for _, final in tables]),
        "near_decided_first": np.mean([first[2] == ties.TIED for first, _ in tables]),
        "near_decided": np.mean([final[2] == ties.TIED for _, final in tables]),
    }


def test_racing_keeps_the_rate_of_a_false_tie() -> None:
    rates = _rates(_at_margin(bimodal=False), seed=21)
    assert rates["false_tie"] <= NOMINAL + _tolerance(NOMINAL), rates


def test_racing_keeps_the_rate_under_bimodal_runs() -> None:
    rates = _rates(_at_margin(bimodal=True), seed=22)
    assert rates["false_tie"] <= NOMINAL + _tolerance(NOMINAL), rates


def test_the_second_stage_decides_what_the_first_could_not() -> None:
    """The cell 3 % above the best: tied-best after the second stage in more tables than after
    the base runs, by more than 3 standard errors of the difference of the two shares."""
    rates = _rates(_at_margin(bimodal=False), seed=23)
    gain = rates["near_decided"] - rates["near_decided_first"]
    spread = math.sqrt(2 * 0.25 / TABLES)
    assert gain > 3 * spread, rates


def test_nothing_is_raced_where_every_contender_is_decided() -> None:
    verdict = np.array([ties.TIED, ties.WORSE, ties.INCONCLUSIVE])
    assert not racing.select(verdict, np.array([1.0, 1.2, 3.0]), CONTENDER).any()
    raced = racing.select(verdict, np.array([1.0, 1.2, 1.4]), CONTENDER)
    assert list(raced) == [True, False, True]


def _board(verdicts: dict[str, str], runs: int = N0, **cells) -> pd.DataFrame:
    """One comparison's cells at the last horizon, all in one information model, each (verdict,
    ratio to the best) from ``verdicts`` (a bare verdict: ratio 1.2); ``cells`` overrides
    columns of every row."""
    rows = []
    for a, given in verdicts.items():
        v, ratio = (given, 1.2) if isinstance(given, str) else given
        rows.append(
            {
                "horizon": 100,
                "field": "matched",
                "setting": "s",
                "algorithm": a,
                "information": "conversions",
                "applicable": True,
                "n_runs": runs,
                "excess": 0.0,
                "excess_lo": -1.0,
                "excess_hi": 1.0,
                "tied_best": v == ties.TIED,
                "verdict": v,
                "ratio": ratio,
                "model_tied_best": v == ties.TIED,
                "model_verdict": v,
                "model_ratio": ratio,
                **cells,
            }
        )
    return pd.DataFrame(rows)


def test_combine_takes_the_second_stage_only_where_the_base_runs_left_it_open() -> None:
    base = _board({"a": ties.TIED, "b": ties.INCONCLUSIVE, "c": ties.WORSE})
    second = _board({"a": ties.WORSE, "b": ties.TIED}, runs=RACE)
    out = racing.combine(base, second, CONTENDER).set_index("algorithm")
    assert list(out.verdict) == [ties.TIED, ties.TIED, ties.WORSE]
    assert list(out.stage) == [1, 2, 1] and list(out.race_runs) == [RACE, RACE, 0]
    assert out.loc["b", "tied_best"] and out.loc["b", "model_verdict"] == ties.TIED


def test_a_cell_raced_for_another_comparison_keeps_its_verdict_where_its_best_was_not_raced():
    """b is raced for the matched comparison, where a contender is open. In the published one
    no contender is open (b is 1.8 times its best c), so c is not raced: there the second
    stage's b has no best beside it and would be its own best, tied by construction; and at
    T/10 the raced algorithms were chosen at T, not there. Both keep the base verdict."""
    matched = _board({"a": (ties.TIED, 1.0), "b": (ties.INCONCLUSIVE, 1.2)})
    published = _board({"c": (ties.TIED, 1.0), "b": (ties.INCONCLUSIVE, 1.8)}, field="published")
    early = _board({"a": (ties.TIED, 1.0), "b": (ties.INCONCLUSIVE, 1.2)}, horizon=10)
    base = pd.concat([early, matched, published], ignore_index=True)
    assert racing.plan(base, CONTENDER) == {"s": ["a", "b"]}
    second = pd.concat(
        [
            _board({"a": ties.WORSE, "b": ties.TIED}, runs=RACE),
            _board({"b": ties.TIED}, runs=RACE, field="published"),
            _board({"a": ties.WORSE, "b": ties.TIED}, runs=RACE, horizon=10),
        ],
        ignore_index=True,
    )
    out = racing.combine(base, second, CONTENDER).set_index(["horizon", "field", "algorithm"])
    assert out.loc[(100, "matched", "b"), "verdict"] == ties.TIED
    assert out.loc[(100, "matched", "b"), "stage"] == 2
    assert out.loc[(100, "published", "b"), "verdict"] == ties.INCONCLUSIVE
    assert out.loc[(100, "published", "b"), "model_verdict"] == ties.INCONCLUSIVE
    assert out.loc[(10, "matched", "b"), "verdict"] == ties.INCONCLUSIVE
    assert (out.loc[[(10, "matched", "b"), (100, "published", "b")], "stage"] == 1).all()


def test_the_digest_counts_what_the_second_stage_raced_and_decided() -> None:
    """The digest's racing record: every raced curve (race_runs > 0, at any horizon), and per
    base rate only the matched comparison's cells at T whose verdict the second stage made."""
    base = pd.concat(
        [
            _board({"a": (ties.TIED, 1.0), "b": (ties.INCONCLUSIVE, 1.2)}, base_mean=0.4),
            _board(
                {"a": (ties.TIED, 1.0), "b": (ties.INCONCLUSIVE, 1.2)},
                base_mean=0.4,
                field="published",
            ),
            _board({"c": (ties.TIED, 1.0), "d": (ties.WORSE, 3.0)}, base_mean=0.02, setting="t"),
        ],
        ignore_index=True,
    )
    second = pd.concat(
        [
            _board({"a": ties.TIED, "b": ties.WORSE}, runs=RACE, base_mean=0.4),
            _board({"a": ties.TIED, "b": ties.WORSE}, runs=RACE, base_mean=0.4, field="published"),
        ],
        ignore_index=True,
    )
    record = digest._racing(racing.combine(base, second, CONTENDER))
    assert record == {
        "settings": 1,
        "curves": 2,
        "decided": [{"base_mean": 0.4, "tied_best": 0, "worse": 1}],
    }
    assert digest._racing(base)["settings"] == 0 and "race_runs" not in base
