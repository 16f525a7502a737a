"""Replaying one arena run (``arena/replay.py``, ``delayed-bandits replay``): the replay
rebuilds the simulation's draw (its regret is the shard's), reference and kernel take the same
actions (a kernel that does not is caught), and the trace is what Thompson sampling saw."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import betaln

from conftest import SMOKE_FILES, smoke_config
from delayed_bandits.arena import replay
from delayed_bandits.arena.observe import conversions
from delayed_bandits.arena.policies import IgnoresDelays
from delayed_bandits.cli import main
from delayed_bandits.references import run as play_reference
from delayed_bandits.tables import read_shard

SETTING = "geometric100_censored-K3-large"  # T = 2000, m = 200: conversions censored and late
CONFIG = [str(p) for p in SMOKE_FILES]
FIGURE = ["--paper", "arena", "--figure", "regret"]


def test_replay_gives_the_shards_regret(tmp_path: Path) -> None:
    shard = tmp_path / "rep0-1.parquet"
    curves = ["ts", "d-ts", "ucb1-matched"]
    assert (
        main(
            ["simulate", "--config", *CONFIG, *FIGURE, "--setting", SETTING, "--algorithm"]
            + curves
            + ["--reps", "0-1", "--out", str(shard)]
        )
        == 0
    )
    rows = read_shard(shard, None)
    config = smoke_config()
    for algorithm in curves:
        for r in (0, 1):
            run = replay.replay(config, "regret", SETTING, algorithm, r)
            expected = rows[(rows.algorithm == algorithm) & (rows.replication == r)]
            np.testing.assert_array_equal(run.regret, expected["regret"].to_numpy())
            assert run.trace["regret"].iloc[-1] == expected["regret"].iloc[-1]


@dataclass
class _Recording(IgnoresDelays):
    """Thompson sampling ignoring delays that records (S, N) of every arm when it chooses."""

    states: list = field(default_factory=list)

    def choose(self, t: int) -> int:
        self.states.append((list(self.successes), list(self.pulls)))
        return super().choose(t)


def test_the_trace_is_what_thompson_sampling_saw() -> None:
    run = replay.replay(smoke_config(), "regret", SETTING, "ts", 1)
    case, tr = run.case, run.trace
    st, env = case.draw.setting, case.draw.realisation
    policy = _Recording(st.n_arms, "ts", rng=np.random.default_rng(case.policy_seed))
    seen = conversions(st, env)
    actions = play_reference(policy, st.mu, seen.uniforms, seen.delays, None)
    np.testing.assert_array_equal(actions, run.actions)
    successes, pulls = (np.array([s[i] for s in policy.states]) for i in (0, 1))
    for k in range(st.n_arms):
        np.testing.assert_array_equal(tr[f"seen_{k}"], successes[:, k])
        np.testing.assert_array_equal(tr[f"pulls_{k}"], pulls[:, k])
        parts = tr[f"seen_{k}"] + tr[f"in_flight_{k}"] + tr[f"censored_{k}"]
        np.testing.assert_array_equal(tr[f"converted_{k}"], parts)
    # the case exercises both ways a conversion goes unseen
    assert (tr[[f"in_flight_{k}" for k in range(st.n_arms)]].to_numpy() > 0).any()
    assert (tr[[f"censored_{k}" for k in range(st.n_arms)]].to_numpy() > 0).any()


def test_a_kernel_that_leaves_its_reference_is_caught() -> None:
    case = replay.rebuild(smoke_config(), "regret", SETTING, "ts", 0)
    kernel = case.entrant.kernel

    def drifting(*args):
        regret, actions, events = kernel(*args)
        actions = actions.copy()
        actions[6] = (actions[6] + 1) % case.draw.setting.n_arms
        return regret, actions, events

    with pytest.raises(replay.Mismatch, match="at round 7"):
        replay.play(replace(case, entrant=replace(case.entrant, kernel=drifting)))


def _p_second_wins(a1: int, b1: int, a2: int, b2: int) -> float:
    """P(X2 > X1), X_i ~ Beta(a_i, b_i), a2 an integer: the closed form
    sum_{i < a2} B(a1 + i, b1 + b2) / ((b2 + i) B(1 + i, b2) B(a1, b1))."""
    return sum(
        math.exp(betaln(a1 + i, b1 + b2) - betaln(1 + i, b2) - betaln(a1, b1)) / (b2 + i)
        for i in range(a2)
    )


def test_play_probabilities() -> None:
    np.testing.assert_allclose(replay.play_probabilities([3, 3, 3], [10, 10, 10]), 1 / 3, atol=1e-6)
    for seen, pulls in [([2, 5], [10, 12]), ([28, 386], [111, 1067]), ([0, 1], [0, 3])]:
        p = replay.play_probabilities(seen, pulls)
        exact = _p_second_wins(
            1 + seen[0], 1 + pulls[0] - seen[0], 1 + seen[1], 1 + pulls[1] - seen[1]
        )
        np.testing.assert_allclose(p, [1 - exact, exact], atol=1e-6)
    assert replay.play_probabilities([1, 4, 9], [5, 9, 20]).sum() == pytest.approx(1, abs=1e-6)


def test_longest_stretch() -> None:
    mask = np.array([0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1], dtype=bool)
    assert replay._longest(mask) == (5, 3)  # the earliest of the longest
    assert replay._longest(np.zeros(4, dtype=bool)) == (0, 0)
    assert replay._longest(np.ones(4, dtype=bool)) == (1, 4)


def _replay_args(out: Path, **given: str) -> list[str]:
    args = {"setting": SETTING, "algorithm": "ts", "replication": "1", "out": str(out)}
    args.update(given)
    return ["replay", "--config", *CONFIG, *FIGURE] + [
        x for key, value in args.items() for x in (f"--{key}", value)
    ]


def test_cli_replay_prints_the_summary_and_writes_the_trace(tmp_path: Path, capsys) -> None:
    out = tmp_path / "trace.csv"
    assert main(_replay_args(out)) == 0
    printed = capsys.readouterr().out
    run = replay.replay(smoke_config(), "regret", SETTING, "ts", 1)
    assert printed.strip() == replay.describe(run, "regret")
    assert f"regret at T {run.regret[-1]:.2f}" in printed
    assert "the same action in all 2000 rounds" in printed
    written = pd.read_csv(out)
    assert list(written.columns) == list(run.trace.columns)
    np.testing.assert_array_equal(written["arm"], run.actions)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.csv"]
    assert main(_replay_args(out, at="1234")) == 0
    assert "t = 1234 (asked), regret so far" in capsys.readouterr().out


BAD_REPLAY = {
    "setting": ({"setting": "nowhere"}, ["--setting 'nowhere'", SETTING, "settings"]),
    "algorithm": ({"algorithm": "thompson"}, ["--algorithm 'thompson'", "d-ucb, d-klucb"]),
    "replication": ({"replication": "4"}, ["--replication 4", "< 4", "replications"]),
    "not-applying": (
        {"setting": "pareto_arm-K3-large", "algorithm": "dew"},
        ["--algorithm 'dew'", "pareto_arm-K3-large", "depend on the arm"],
    ),
    "paper": ({"paper": "vernade2017"}, ["--paper 'vernade2017'", "only 'arena'"]),
    "at": ({"at": "2001"}, ["--at 2001", "1..T = 2000"]),
}


@pytest.mark.parametrize("name", list(BAD_REPLAY))
def test_cli_replay_rejects_bad_arguments_and_writes_nothing(
    tmp_path: Path, capsys, name: str
) -> None:
    given, expected = BAD_REPLAY[name]
    out = tmp_path / "trace.csv"
    args = _replay_args(out, **{k: v for k, v in given.items() if k != "paper"})
    if "paper" in given:
        args[args.index("arena")] = given["paper"]
    assert main(args) == 2
    err = capsys.readouterr().err
    for part in expected:
        assert part in err, f"{part!r} not in {err!r}"
    assert list(tmp_path.iterdir()) == []
