"""The arena (issue 13): its translations of each paper's model, kernel = reference for every
algorithm, its settings grid, the leaderboard and the claims computed from it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from delayed_bandits import config as cfg
from delayed_bandits import delays
from delayed_bandits.papers.arena import leaderboard
from delayed_bandits.papers.arena import claims as arena_claims
from delayed_bandits.environment import Realisation, checkpoint_grid
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.arena import experiment as arena

from conftest import SMOKE_FILES

REPO = Path(__file__).resolve().parents[1]
SMOKE = cfg.load(SMOKE_FILES, "arena")["papers"]["arena"]["regret"]
FULL = cfg.load(REPO / "config" / "config.yaml", "arena")["papers"]["arena"]["regret"]


def _setting(name: str) -> arena.Setting:
    return arena.Setting.from_config(cfg.settings(SMOKE)[name], name)


@pytest.mark.parametrize("regime", ["uniform_censored", "pareto03", "pareto_arm_censored",
                                    "criteo"])
@pytest.mark.parametrize("algorithm", [a.id for a in arena.ALGORITHMS])
def test_kernel_takes_the_references_actions(regime: str, algorithm: str) -> None:
    st = _setting(f"{regime}-K3-large")
    algo = next(a for a in arena.ALGORITHMS if a.id == algorithm)
    if algo.applies(st):
        pytest.skip(algo.applies(st))
    env = arena.draw_environment(np.random.SeedSequence(5), 300, st)
    cp = checkpoint_grid(300, 10)
    regret, actions, _ = algo.kernel(st, env, cp, 17)
    ref_regret, ref_actions, _ = algo.reference(st, env, cp, 17)
    np.testing.assert_array_equal(actions, ref_actions)
    np.testing.assert_allclose(regret, ref_regret, rtol=1e-12)
    # the metric is pseudo-regret, whatever the paper's kernel reports
    np.testing.assert_allclose(regret, np.cumsum(st.mu.max() - st.mu[actions])[cp - 1])


def test_grid_expands_every_regime_in_order() -> None:
    names = list(cfg.settings(FULL))
    assert len(names) == 14 * 4
    assert names[:4] == ["uniform-K2-small", "uniform-K2-large", "uniform-K10-small",
                         "uniform-K10-large"]
    assert cfg.listed_setting(FULL, "pareto_arm_censored-K10-small") == "pareto_arm_censored"
    assert cfg.seed_name(FULL, "uniform-K2-small") == "uniform-K2-small"  # own draws per cell
    st = arena.Setting.from_config(cfg.settings(FULL)["uniform-K10-small"], "x")
    assert st.n_arms == 10 and st.mu[-1] == pytest.approx(0.45) and st.mu[:-1].max() == 0.4


def test_per_arm_law_puts_the_first_entry_on_the_best_arm() -> None:
    st = _setting("pareto_arm-K3-large")
    assert [law.alpha for law in st.delay.arms] == [1.0, 1.0, 0.3]
    assert int(np.argmax(st.mu)) == 2
    raw = {**cfg.settings(SMOKE)["pareto_arm-K3-large"],
           "delay": {"kind": "per_arm", "arms": [{"kind": "pareto", "alpha": 0.3}] * 3}}
    with pytest.raises(ConfigError, match="two entries"):
        arena.Setting.from_config(raw, "bad")
    with pytest.raises(ConfigError, match="gap"):
        arena.Setting.from_config({**raw, "gap": 0.7}, "bad")


def test_censoring_removes_late_conversions_only() -> None:
    st = _setting("geometric100_censored-K3-large")
    env = arena.draw_environment(np.random.SeedSequence(1), 2000, st)
    seen = arena.conversions(st, env)
    late = env.delays > st.window
    assert late.any() and (~late).any()
    assert np.all(seen.uniforms[late] == 1.0)  # never below a mean: never converts
    np.testing.assert_array_equal(seen.uniforms[~late], env.uniforms[~late])
    uncensored = _setting("geometric100-K3-large")
    assert arena.conversions(uncensored, env) is env


def test_per_round_losses_settle_at_the_window() -> None:
    st = _setting("geometric1000_censored-K3-large")
    env = arena.draw_environment(np.random.SeedSequence(2), 3000, st)
    losses, d = arena.per_round(st, env)
    first = env.delays[:, 0]
    assert d.max() <= st.window
    np.testing.assert_array_equal(d, np.minimum(first, st.window))
    converted = (env.uniforms < st.mu) & (first <= st.window)[:, None]
    np.testing.assert_array_equal(losses, 1.0 - converted)
    free = _setting("pareto03-K3-large")
    losses, d = arena.per_round(free, env)
    assert d.max() <= 3000  # capped at T: the total delay Skipper is told stays finite


def test_what_does_not_apply_and_why() -> None:
    ids = {a.id: a for a in arena.ALGORITHMS}
    heavy, per_arm = _setting("pareto03-K3-large"), _setting("pareto_arm_censored-K3-large")
    assert "E[τ]" in ids["odaaf"].applies(heavy)
    assert ids["odaaf"].applies(_setting("pareto03_censored-K3-large")) == ""  # min(D, m)
    for name in ("dew", "skipper", "doubling", "otflinucb", "otflints"):
        assert "depend on the arm" in ids[name].applies(per_arm)
        assert ids[name].applies(heavy) == ""
    assert all(ids[name].applies(per_arm) == "" for name in ("d-ucb", "patient", "qpm-d", "odaaf"))


def test_odaaf_is_told_the_moments_of_the_settled_delay() -> None:
    st = _setting("geometric100_censored-K3-large")
    q = 100 / 101
    # E[min(D, m)] = sum_{d < m} P(D > d) = q (1 - q^m) / (1 - q)
    assert st.observable.mean == pytest.approx(q * (1 - q**200) / (1 - q), rel=1e-12)
    assert "E[τ] of min(D, m = 200) = 86.33" in arena.told("odaaf", st)
    pooled = _setting("pareto_arm-K3-large").pooled
    assert float(pooled.cdf(5)) == pytest.approx((2 * (1 - 6**-1.0) + (1 - 6**-0.3)) / 3)
    assert math.isinf(pooled.variance)


def test_ucb1_ignores_delays() -> None:
    """Told that every delay is 0, DelayedUCB's estimate is conversions seen over pulls: with no
    conversion ever arriving it plays round robin by the index's tie-breaking on equal pulls."""
    st = _setting("uniform-K3-large")
    env = Realisation(np.full((30, 3), 0.99), np.zeros((30, 3), dtype=np.int64))
    ucb1 = next(a for a in arena.ALGORITHMS if a.id == "ucb1")
    _, actions, _ = ucb1.kernel(st, env, np.array([30]), 0)
    assert list(actions[:9]) == [0, 1, 2] * 3


def _summary(regrets: dict[tuple[str, str], tuple[float, float]]) -> pd.DataFrame:
    return pd.DataFrame([{"setting": s, "algorithm": a, "t": 100, "mean": m, "se": se,
                          "q05": m, "q95": m, "n_runs": 30} for (s, a), (m, se) in regrets.items()])


TINY = {
    "horizon": 100, "replications": 30, "checkpoints": 1,
    "algorithms": ["d-ucb", "patient", "odaaf", "qpm-d", "uniform"],
    "grid": [{"key": "n_arms", "values": [2], "names": ["K2"]},
             {"key": "gap", "values": [0.2], "names": ["large"]}],
    "settings": {
        "heavy": {"delay": {"kind": "pareto", "alpha": 0.3}, "censored": False, "window": 20,
                  "base_mean": 0.4, "alpha_tilde": 0.3},
        "arm": {"delay": {"kind": "per_arm", "arms": [{"kind": "pareto", "alpha": 0.3},
                                                      {"kind": "pareto", "alpha": 1.0}]},
                "censored": True, "window": 20, "base_mean": 0.4, "alpha_tilde": 0.3},
    },
}


def test_leaderboard_ranks_within_a_setting_and_marks_what_does_not_apply() -> None:
    summary = _summary({("heavy-K2-large", "d-ucb"): (10.0, 1.0),
                        ("heavy-K2-large", "patient"): (5.0, 1.0),
                        ("heavy-K2-large", "qpm-d"): (5.0, 1.0),
                        ("heavy-K2-large", "uniform"): (10.0, 0.5),
                        ("arm-K2-large", "d-ucb"): (8.0, 1.0),
                        ("arm-K2-large", "patient"): (2.0, 1.0),
                        ("arm-K2-large", "odaaf"): (6.0, 1.0),
                        ("arm-K2-large", "qpm-d"): (4.0, 1.0),
                        ("arm-K2-large", "uniform"): (10.0, 0.5)})
    board = leaderboard.build(summary, TINY)
    assert list(board.columns) == leaderboard.COLUMNS
    assert len(board) == 10
    heavy = board[board.setting == "heavy-K2-large"].set_index("algorithm")
    assert not heavy.loc["odaaf", "applicable"] and "E[τ]" in heavy.loc["odaaf", "reason"]
    assert math.isnan(heavy.loc["odaaf", "regret"]) and math.isnan(heavy.loc["odaaf", "rank"])
    assert heavy["rank"].dropna().tolist() == [3.0, 1.0, 1.0, 3.0]  # ties share the lower rank
    assert heavy.loc["d-ucb", "ratio"] == 2.0
    arm = board[board.setting == "arm-K2-large"].set_index("algorithm")
    assert arm.loc["odaaf", "feedback"] == "anonymous aggregate" and arm.loc["odaaf", "applicable"]
    assert arm.loc["patient", "knows"] == "T and α̃ = 0.3"
    # a curve that applies but has no results is an error, not a blank cell
    with pytest.raises(KeyError, match="arm-K2-large/qpm-d"):
        leaderboard.build(summary[~((summary.setting == "arm-K2-large")
                                    & (summary.algorithm == "qpm-d"))], TINY)

    claims = {c.id: c for c in arena_claims.regret({"summary": summary}, TINY)}
    assert claims["patient-robust-to-wrong-cdf"].holds  # 2 vs 8, se 1.4
    assert claims["odaaf-pays-for-anonymity"].holds is False  # 6 vs 4: 2 < 2 SE (2.8)
    assert "1.50 to 1.50" in claims["odaaf-pays-for-anonymity"].measured
    assert claims["no-worse-than-uniform"].holds
    assert "odaaf-v-pays-for-anonymity" not in claims  # not in the figure


def test_full_config_is_the_stated_scale() -> None:
    assert FULL["horizon"] == 100_000
    # some curves do not apply: a per_curve figure would refuse them
    assert cfg.simulate_jobs(FULL) == "per_figure"
    assert len(FULL["algorithms"]) == 15
    laws = {cfg.listed_setting(FULL, s): r["delay"]["kind"] for s, r in cfg.settings(FULL).items()}
    assert sorted(set(laws.values())) == ["empirical", "geometric", "pareto", "per_arm", "uniform"]
    assert sum(name.endswith("_censored") for name in laws) == 7
