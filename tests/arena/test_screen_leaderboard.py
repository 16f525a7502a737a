"""Screen, then contend, as the workflow runs it (``leaderboard.screen_plan``, ``leaderboard.build``
on the two stages' runs pooled; docs/decisions/arena.md#screening): the leaderboard decides as
``screening.two_stage`` does, a board of the pooled runs is the board of a one-stage run, an
entrant the screen stopped is worse in every group it belongs to, and the entrants a named claim
compares (``claims.KEPT``) never stop. Seeded synthetic runs of a small figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from delayed_bandits import seeds
from delayed_bandits.arena import claims, experiment, leaderboard, screening, ties
from delayed_bandits.arena.entrants import FIELDS, MATCHED
from delayed_bandits.errors import ConfigError

FIRST, TOTAL, SEED = 6, 20, 3
# every entrant's mean regret over the best's: two within the margin, the others far above it
FACTORS = {
    "patient": 1.0,
    "d-ucb": 1.05,
    "ts": 1.02,
    "qpm-d-matched": 1.6,
    "klucb-matched": 3.0,
    "ucb1-matched": 4.0,
    "discarding-ucb": 6.0,
    "qpm-d": 8.0,
    "uniform": 20.0,
}
FIG = {
    "horizon": 100,
    "replications": TOTAL,
    "checkpoints": 2,
    "leaderboard_at": [50, 100],
    "statistics": {"screen_runs": FIRST, "resamples": 500},
    "algorithms": list(FACTORS),
    "grid": [
        {"key": "n_arms", "values": [2], "names": ["K2"]},
        {"key": "gap", "values": [0.2], "names": ["large"]},
    ],
    "settings": {
        name: {
            "delay": {"kind": "pareto", "alpha": 0.3},
            "censored": True,
            "window": 20,
            "base_mean": 0.4,
            "alpha_tilde": 0.3,
        }
        for name in ("one", "two")
    },
}
SETTINGS = ("one-K2-large", "two-K2-large")


def _runs(seed: int = SEED) -> pd.DataFrame:
    """A one-stage run: every entrant every replication, paired (a shared environment per
    replication), the regret at T/2 half the regret at T."""
    rng = np.random.default_rng(seed)
    rows = []
    for setting in SETTINGS:
        shared = rng.gamma(8.0, 12.5, TOTAL)
        for algorithm, factor in FACTORS.items():
            at_t = factor * shared + rng.normal(0.0, 5.0 * factor, TOTAL)
            for r, x in enumerate(at_t):
                for t, share in ((50, 0.5), (100, 1.0)):
                    rows.append(
                        {
                            "setting": setting,
                            "algorithm": algorithm,
                            "replication": r,
                            "t": t,
                            "regret": share * x,
                        }
                    )
    return pd.DataFrame(rows)


def _pooled(raw: pd.DataFrame, plan: dict) -> pd.DataFrame:
    """What the workflow's two stages run: the screen's replications of every entrant, the rest
    of the contenders' alone."""
    going = {(s, a) for s, algorithms in plan["settings"].items() for a in algorithms}
    contender = [(s, a) in going for s, a in zip(raw.setting, raw.algorithm)]
    return raw[(raw.replication < plan["first"]) | np.array(contender)]


@pytest.fixture(scope="module")
def made() -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    raw = _runs()
    plan = leaderboard.screen_plan(raw[raw.replication < FIRST], FIG)
    board = leaderboard.build(_pooled(raw, plan), FIG, SEED, "regret")
    return raw, plan, board


def test_the_plan_names_the_contenders_and_the_contest_runs_the_rest(made) -> None:
    _, plan, board = made
    assert (plan["first"], plan["last"]) == (FIRST, TOTAL - 1)
    assert set(plan["settings"]) == set(SETTINGS)
    last = board[board.horizon == 100]
    for setting, contenders in plan["settings"].items():
        rows = last[last.setting == setting].drop_duplicates("algorithm").set_index("algorithm")
        assert {"patient", "d-ucb", "ts"} <= set(contenders)  # those within the margin go on
        assert "uniform" not in contenders or rows.loc["uniform", "n_runs"] == TOTAL
        live = rows[rows.applicable.astype(bool)]
        # a contender has every run, an entrant the screen stopped everywhere the screen's
        assert dict(live.n_runs) == {a: TOTAL if a in contenders else FIRST for a in live.index}
    assert (last[last.applicable].n_runs == FIRST).any()  # something stopped: the test can fail


def test_the_leaderboard_decides_as_two_stage_does(made) -> None:
    """Per setting and comparison, the verdicts, excess intervals and stages of the board are
    ``screening.two_stage``'s on the same runs (a one-stage run's, the same resamples)."""
    raw, _, board = made
    stats = leaderboard.statistics(FIG)
    at_t = raw[raw.t == 100]
    for setting in SETTINGS:
        w = leaderboard.resample_weights(
            TOTAL,
            int(stats["resamples"]),
            seeds.analysis_seed(SEED, "arena", "regret", f"leaderboard {setting}"),
        )
        for field in FIELDS:
            rows = board[
                (board.horizon == 100) & (board.setting == setting) & (board.field == field)
            ]
            rows = rows[rows.applicable.astype(bool)]
            runs = at_t[at_t.setting == setting].pivot(
                index="replication", columns="algorithm", values="regret"
            )[list(rows.algorithm)]
            got = screening.two_stage(
                runs.to_numpy(), FIRST, w, stats["tie_margin"], stats["confidence"]
            )
            assert list(rows.verdict) == list(got["verdict"]), (setting, field)
            assert list(rows.stage) == list(got["stage"])
            assert list(rows.stopped) == list(~got["contender"])
            np.testing.assert_allclose(rows.excess_lo.astype(float), got["excess_lo"])
            np.testing.assert_allclose(rows.excess_hi.astype(float), got["excess_hi"])
        assert (board[board.setting == setting].stage == 2).any()


def test_a_one_stage_run_makes_the_same_board_as_the_pooled_runs(made) -> None:
    """A replication's draws depend on its setting and index alone, so the runs a stopped
    entrant did not get are those a one-stage run has, and the board leaves them out."""
    raw, _, board = made
    pd.testing.assert_frame_equal(board, leaderboard.build(raw, FIG, SEED, "regret"))


def test_a_stopped_entrant_is_worse_in_every_group_it_belongs_to(made) -> None:
    _, _, board = made
    last = board[(board.horizon == 100) & board.applicable.astype(bool)]
    everywhere = last[last.n_runs == FIRST]
    assert not everywhere.empty
    assert (everywhere.verdict == ties.WORSE).all()
    assert (everywhere.model_verdict == ties.WORSE).all()
    assert everywhere.stopped.all() and (everywhere.stage == 1).all()
    assert everywhere.excess.isna().all() and everywhere.diff_lo.notna().all()
    # a stopped cell's difference from the best is on the runs it has, the best's same runs
    assert (everywhere["diff"] > 0).all()
    # where it was stopped, a contender of every other group is not (its verdict the contest's)
    assert (last[~last.stopped].stage == 2).all()
    # at T/2 the screen on the same runs decides the stopped cells it shows worse there too
    early = board[(board.horizon == 50) & board.stopped]
    assert set(early.verdict) <= {ties.WORSE, ties.INCONCLUSIVE}


def test_the_entrants_a_claim_compares_never_stop() -> None:
    raw = _runs()
    plan = leaderboard.screen_plan(raw[raw.replication < FIRST], FIG, claims.KEPT)
    kept = claims.KEPT & set(FACTORS)
    assert {"uniform", "d-ucb", "patient", "ucb1-matched", "qpm-d"} <= kept
    for contenders in plan["settings"].values():
        assert kept <= set(contenders)
    unkept = leaderboard.screen_plan(raw[raw.replication < FIRST], FIG)
    assert any(not kept <= set(c) for c in unkept["settings"].values())  # the keep decides it


def test_kept_is_every_entrant_a_named_claim_compares() -> None:
    """Read from the claims' declarations: each table of crossings, the oracle and its base,
    the switching figure's learners and the window figure's pairs."""
    ids = {a.id for a in experiment.ALGORITHMS}
    assert claims.KEPT <= ids
    for table in (claims.CROSSED, claims.ESTIMATED, claims.FITTED, claims.BOOTSTRAPPED):
        assert {a for pair in table.values() for a in pair} <= claims.KEPT
    assert {claims.ORACLE, claims.ORACLE_BASE, claims.TRACKER, *claims.ADVERSARIAL} <= claims.KEPT
    assert set(claims.WINDOWED) | set(claims.WINDOWED.values()) <= claims.KEPT
    assert len(claims.KEPT) < len(ids)  # the screen can stop the others


def test_a_contest_that_is_missing_is_an_error_naming_it(made) -> None:
    raw, plan, _ = made
    with pytest.raises(ConfigError, match="give the contest's runs too"):
        leaderboard.build(raw[raw.replication < FIRST], FIG, SEED, "regret")
    pooled = _pooled(raw, plan)
    setting, contenders = next(iter(plan["settings"].items()))
    cut = pooled[
        ~((pooled.setting == setting) & (pooled.algorithm == contenders[0]))
        | (pooled.replication < TOTAL - 1)
    ]
    with pytest.raises(
        ConfigError, match=rf"{setting}/{contenders[0]}: replications \[{TOTAL - 1}\] missing"
    ):
        leaderboard.build(cut, FIG, SEED, "regret")


def test_one_stage_has_no_contest_and_every_verdict_at_stage_1() -> None:
    raw = _runs()
    fig = {**FIG, "statistics": {"screen_runs": 0, "resamples": 500}}
    assert leaderboard.screen_plan(raw, fig)["settings"] == {}
    board = leaderboard.build(raw, fig, SEED, "regret")
    assert (board.stage == 1).all() and not board.stopped.any()
    assert (board[board.applicable.astype(bool)].n_runs == TOTAL).all()
    assert (board[board.field == MATCHED].verdict != "").any()


def test_twins_the_screen_split_are_paired_on_the_runs_both_have() -> None:
    """A reward-dependent regime faces its twin's draws (``draws_as``), so the paired verdict
    compares an algorithm's cells across the two. Where the screen stopped it in one of them
    only, the pairing is on the replications both have, the screen's."""
    twin = {**FIG["settings"]["one"], "zero_delay": {"kind": "geometric", "mean": 10}}
    fig = {**FIG, "settings": {"one": FIG["settings"]["one"], "two": {**twin, "draws_as": "one"}}}
    raw = _runs()
    split = "klucb-matched"  # as good as the best in one, far worse in the other
    one, two = (raw.algorithm == split) & (raw.setting == SETTINGS[0]), raw.algorithm == split
    raw.loc[one, "regret"] /= FACTORS[split]
    raw.loc[two & ~one, "regret"] += 5000.0 * raw.t / 100  # a constant excess: the t-test sees it
    plan = leaderboard.screen_plan(raw[raw.replication < FIRST], fig)
    assert split in plan["settings"][SETTINGS[0]] and split not in plan["settings"][SETTINGS[1]]
    board = leaderboard.build(_pooled(raw, plan), fig, SEED, "regret")
    cells = board[(board.algorithm == split) & (board.horizon == 100) & (board.field == MATCHED)]
    assert list(cells.n_runs) == [TOTAL, FIRST]
    stats = leaderboard.statistics(fig)
    at_t = raw[(raw.t == 100) & (raw.algorithm == split) & (raw.replication < FIRST)]
    runs = at_t.pivot(index="replication", columns="setting", values="regret")[list(SETTINGS)]
    w = leaderboard.resample_weights(
        FIRST,
        int(stats["resamples"]),
        seeds.analysis_seed(SEED, "arena", "regret", f"paired {seeds.seed_name(fig, SETTINGS[0])}"),
    )
    _, lower, upper = ties.excess(runs.to_numpy(), w, stats["tie_margin"], stats["confidence"])
    assert list(cells.paired_verdict) == list(ties.verdict(lower, upper))
