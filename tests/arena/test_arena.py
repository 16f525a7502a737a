"""The arena: its problem (the best arm's position drawn per replication), its translations of
each paper's model, kernel = reference for every entrant, its settings grid, the paired,
tie-aware leaderboard at two horizons and the claims computed from it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import CONFIG, FULL_FILES, ROOT, SMOKE_FILES
from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits import grid, provenance, seeds
from delayed_bandits.arena import claims as arena_claims
from delayed_bandits.arena import digest, leaderboard
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena.entrants import (
    FIELDS,
    LABELLED,
    LOSSES,
    MATCHED,
    PUBLISHED,
    same_as_twin,
)
from delayed_bandits.arena.observe import conversions, losses
from delayed_bandits.environment import checkpoint_grid
from delayed_bandits.errors import ConfigError

SMOKE = cfg.load(SMOKE_FILES, "arena")["papers"]["arena"]["regret"]
FULL = cfg.load(FULL_FILES, "arena")["papers"]["arena"]["regret"]
ENTRANTS = {a.id: a for a in arena.ALGORITHMS}


def _setting(name: str) -> arena.Setting:
    return arena.Setting.from_config(grid.settings(SMOKE)[name], name)


@pytest.mark.parametrize(
    "regime", ["uniform_censored", "pareto03", "pareto_arm_censored", "criteo", "geometric1000"]
)
@pytest.mark.parametrize("algorithm", list(ENTRANTS))
def test_kernel_takes_the_references_actions(regime: str, algorithm: str) -> None:
    st = _setting(f"{regime}-K3-large")
    algo = ENTRANTS[algorithm]
    if algo.applies(st):
        pytest.skip(algo.applies(st))
    cp = checkpoint_grid(300, 10)
    for seed in (5, 6):  # two positions of the best arm
        draw = arena.draw_environment(np.random.SeedSequence(seed), 300, st)
        regret, actions, _ = algo.kernel(st, draw, cp, 17)
        ref_regret, ref_actions, _ = algo.reference(st, draw, cp, 17)
        np.testing.assert_array_equal(actions, ref_actions)
        np.testing.assert_allclose(regret, ref_regret, rtol=1e-12)
        # the metric is pseudo-regret of the replication's arms, whatever the paper's kernel says
        mu = draw.setting.mu
        np.testing.assert_allclose(regret, np.cumsum(mu.max() - mu[actions])[cp - 1])


def test_best_arm_position_is_drawn_per_replication_uniformly() -> None:
    st = _setting("pareto_arm-K3-large")
    positions = [
        arena.draw_environment(np.random.SeedSequence(s), 50, st).setting.best for s in range(3000)
    ]
    counts = np.bincount(positions, minlength=3)
    # each count is Binomial(3000, 1/3): SD 25.8; 4 SD either side
    assert np.all(np.abs(counts - 1000) < 4 * math.sqrt(3000 * (1 / 3) * (2 / 3))), counts
    again = arena.draw_environment(np.random.SeedSequence(7), 50, st)
    once = arena.draw_environment(np.random.SeedSequence(7), 50, st)
    assert again.setting.best == once.setting.best
    np.testing.assert_array_equal(again.realisation.delays, once.realisation.delays)


def test_with_best_moves_the_mean_and_the_law_together() -> None:
    st = _setting("pareto_arm-K3-large")
    assert st.best == 2 and [law.alpha for law in st.delay.arms] == [1.0, 1.0, 0.3]
    moved = st.with_best(0)
    np.testing.assert_array_equal(moved.mu, st.mu[[2, 1, 0]])
    assert [law.alpha for law in moved.delay.arms] == [0.3, 1.0, 1.0]
    np.testing.assert_array_equal(st.with_best(2).mu, st.mu)


def test_block_scheduled_methods_no_longer_depend_on_the_arm_order() -> None:
    """ODAAF plays the active arms in index order, n_m pulls each; at K = 10 and a small gap its
    first block outlasts T = 2000, so its regret is set by where the best arm is: 0 when first,
    gap x T otherwise. With the best arm always last every replication had gap x T, SE 0; drawn
    per replication, the cell's mean is gap x T x (K - 1) / K in expectation."""
    raw = {**grid.settings(SMOKE)["geometric100-K3-large"], "n_arms": 10, "gap": 0.05}
    st = arena.Setting.from_config(raw, "x")
    cp = np.array([2000])
    draws = [arena.draw_environment(np.random.SeedSequence(s), 2000, st) for s in range(40)]
    first = [d for d in draws if d.setting.best == 0]
    assert first and len(first) < len(draws)
    regret = {id(d): ENTRANTS["odaaf"].kernel(st, d, cp, 0)[0][0] for d in draws}
    assert all(regret[id(d)] < 0.5 * 0.05 * 2000 for d in first)
    assert all(regret[id(d)] == pytest.approx(0.05 * 2000) for d in draws if d.setting.best == 9)


def test_grid_expands_every_regime_in_order() -> None:
    names = list(grid.settings(FULL))
    # K in {2, 10} x (base rate, gap), and K = 50 on one law at the two large gaps
    cells = 2 * len(FULL["grid"][1]["values"])
    assert len(names) == len(FULL["settings"]) * cells + 2
    assert names[:5] == [
        "uniform-K2-small",
        "uniform-K2-large",
        "uniform-K2-low_small",
        "uniform-K2-low_large",
        "uniform-K10-small",
    ]
    assert grid.point(FULL, "pareto_arm_censored-K10-small") == grid.Point(
        "pareto_arm_censored", names=("K10", "small")
    )
    assert seeds.seed_name(FULL, "uniform-K2-small") == "uniform-K2-small"  # own draws per cell
    st = arena.Setting.from_config(grid.settings(FULL)["uniform-K10-small"], "x")
    assert st.n_arms == 10 and st.mu[-1] == pytest.approx(0.45) and st.mu[:-1].max() == 0.4


WINDOW_CONFIG = cfg.load(CONFIG, "arena")
WINDOW = WINDOW_CONFIG["papers"]["arena"]["window"]


def test_the_window_study_pairs_its_draws_across_m() -> None:
    axis = next(a for a in WINDOW["grid"] if a["key"] == "window")
    assert axis["paired"] is True
    first = f"criteo-K10_small-{axis['names'][0]}"
    at = {m: f"criteo-K10_small-{m}" for m in axis["names"]}
    assert {seeds.seed_name(WINDOW, s) for s in at.values()} == {first}
    # the other axis and the law keep draws of their own
    assert seeds.seed_name(WINDOW, "criteo-K2_low_small-m800") == "criteo-K2_low_small-m50"
    assert seeds.seed_name(WINDOW, "pareto1-K10_small-m800") == "pareto1-K10_small-m50"

    def env_state(setting: str, r: int = 3) -> list[int]:
        env, _ = seeds.setting_seeds(WINDOW_CONFIG, "arena", "window", setting, r)
        return env.generate_state(4).tolist()

    assert len({tuple(env_state(s)) for s in at.values()}) == 1
    assert env_state(at["m50"]) != env_state("criteo-K2_low_small-m50")
    assert env_state(at["m50"]) != env_state("geometric100-K10_small-m50")
    assert env_state(at["m50"]) != env_state(at["m50"], r=4)
    # the same uncensored draws at every m: only the censoring differs
    draws = {}
    for m, setting in at.items():
        st = arena.Setting.from_config(grid.settings(WINDOW)[setting], setting)
        env, _ = seeds.setting_seeds(WINDOW_CONFIG, "arena", "window", setting, 0)
        draws[m] = arena.draw_environment(env, 500, st)
    for m, draw in draws.items():
        assert draw.setting.best == draws["m50"].setting.best
        np.testing.assert_array_equal(draw.realisation.uniforms, draws["m50"].realisation.uniforms)
        np.testing.assert_array_equal(draw.realisation.delays, draws["m50"].realisation.delays)
    # the provenance's record derives the same entropy as the simulation
    record = provenance.seed_record(WINDOW_CONFIG, "arena", "window", list(at.values()))
    assert {e["seed_setting"] for e in record["settings"].values()} == {first}


def test_a_paired_grid_axis_is_declared_in_the_config() -> None:
    unpaired = {
        **WINDOW,
        "grid": [{k: v for k, v in a.items() if k != "paired"} for a in WINDOW["grid"]],
    }
    assert seeds.seed_name(unpaired, "criteo-K10_small-m800") == "criteo-K10_small-m800"
    assert seeds.seed_name(WINDOW, "criteo-K10_small-m800") == "criteo-K10_small-m50"


def test_per_arm_law_puts_the_first_entry_on_the_best_arm() -> None:
    raw = {
        **grid.settings(SMOKE)["pareto_arm-K3-large"],
        "delay": {"kind": "per_arm", "arms": [{"kind": "pareto", "alpha": 0.3}] * 3},
    }
    with pytest.raises(ConfigError, match="two entries"):
        arena.Setting.from_config(raw, "bad")
    with pytest.raises(ConfigError, match="gap"):
        arena.Setting.from_config({**raw, "gap": 0.7}, "bad")


def test_censoring_removes_late_conversions_only() -> None:
    st = _setting("geometric100_censored-K3-large")
    env = arena.draw_environment(np.random.SeedSequence(1), 2000, st).realisation
    seen = conversions(st, env)
    late = env.delays > st.window
    assert late.any() and (~late).any()
    assert np.all(seen.uniforms[late] == 1.0)  # never below a mean: never converts
    np.testing.assert_array_equal(seen.uniforms[~late], env.uniforms[~late])
    assert conversions(_setting("geometric100-K3-large"), env) is env


def test_per_round_losses_settle_at_the_window() -> None:
    st = _setting("geometric1000_censored-K3-large")
    env = arena.draw_environment(np.random.SeedSequence(2), 3000, st).realisation
    loss, d = losses(st, env)
    first = env.delays[:, 0]
    assert d.max() <= st.window
    converted = (env.uniforms < st.mu) & (first <= st.window)[:, None]
    np.testing.assert_array_equal(loss, 1.0 - converted)
    # a round with a 1 settles at m; a round of 0s only at its delay d_t <= m
    np.testing.assert_array_equal(d, np.where(converted.all(axis=1), first, st.window))
    loss, d = losses(_setting("pareto03-K3-large"), env)
    assert d.max() <= 3000  # capped at T: the total delay Skipper is told stays finite


def test_what_does_not_apply_and_why() -> None:
    heavy, per_arm = _setting("pareto03-K3-large"), _setting("pareto_arm_censored-K3-large")
    assert "E[τ]" in ENTRANTS["odaaf"].applies(heavy)
    assert ENTRANTS["odaaf"].applies(_setting("pareto03_censored-K3-large")) == ""  # min(D, m)
    for name in ("dew", "skipper", "doubling", "otflinucb", "otflints"):
        assert "depend on the arm" in ENTRANTS[name].applies(per_arm)
    for name in ("dew", "skipper", "doubling"):
        assert ENTRANTS[name].applies(heavy) == ""
    for name in ("otflinucb", "otflints", "d-ucb", "d-klucb", "d-ts"):
        # uncensored, the window is the law's 0.99 quantile, 4.6e6 rounds for Pareto(0.3)
        assert "quantile" in ENTRANTS[name].applies(heavy)
    assert all(
        ENTRANTS[name].applies(per_arm) == ""
        for name in ("d-ucb", "patient", "qpm-d", "odaaf", "ts", "klucb")
    )


def test_what_each_is_told() -> None:
    st = _setting("geometric100_censored-K3-large")
    q = 100 / 101
    # E[min(D, m)] = sum_{d < m} P(D > d) = q (1 - q^m) / (1 - q)
    assert st.observable.mean == pytest.approx(q * (1 - q**200) / (1 - q), rel=1e-12)
    assert "E[τ] of min(D, m = 200) = 86.33" in ENTRANTS["odaaf"].knows(st)
    assert ENTRANTS["patient"].knows(_setting("pareto03-K3-large")) == "T and α̃ = 0.3"
    assert "in flight" in ENTRANTS["ts"].knows(st) and ENTRANTS["qpm-d"].knows(st) == "nothing"
    pooled = _setting("pareto_arm-K3-large").pooled
    assert float(pooled.cdf(5)) == pytest.approx((2 * (1 - 6**-1.0) + (1 - 6**-0.3)) / 3)
    assert math.isinf(pooled.variance)


def test_every_index_method_has_a_matched_row_and_each_field_one_of_each() -> None:
    """The matched comparison has every algorithm once, the published one too; a method whose
    paper's constant differs from the common one has two rows, one in each."""
    for field in FIELDS:
        ids = [a.id for a in arena.ALGORITHMS if field in a.fields]
        bases = [i.removesuffix("-matched") for i in ids]
        assert len(bases) == len(set(bases)), (field, ids)
    twins = {a.id.removesuffix("-matched") for a in arena.ALGORITHMS if a.id.endswith("-matched")}
    assert twins == {"qpm-d", "ucb1", "klucb"}
    for base in twins:
        assert ENTRANTS[base].fields == (PUBLISHED,)
        assert ENTRANTS[f"{base}-matched"].fields == (MATCHED,)
    assert all(ENTRANTS[a].fields == FIELDS for a in ("d-ucb", "d-klucb", "discarding-ucb"))
    assert all(ENTRANTS[a].bonus for a in ("d-ucb", "qpm-d", "ucb1", "klucb-matched"))


def test_qpmd_matched_base_explores_a_quarter_as_much() -> None:
    """QPM-D's base bonus sqrt(c log n / N): c = 2 (UCB1) published, 1/2 (f = log n) matched; on
    an easy problem with no delays the matched base pulls the worse arm less."""
    raw = {
        **grid.settings(SMOKE)["uniform-K3-large"],
        "delay": {"kind": "uniform", "low": 0, "high": 0},
    }
    st = arena.Setting.from_config(raw, "x")
    worse = {}
    for name in ("qpm-d", "qpm-d-matched"):
        draws = [arena.draw_environment(np.random.SeedSequence(s), 3000, st) for s in range(4)]
        worse[name] = np.mean(
            [
                np.sum(ENTRANTS[name].kernel(st, d, np.array([3000]), 0)[1] != d.setting.best)
                for d in draws
            ]
        )
    assert worse["qpm-d-matched"] < 0.6 * worse["qpm-d"], worse


TINY = {
    "horizon": 100,
    "replications": 40,
    "checkpoints": 2,
    "leaderboard_at": [50, 100],
    "algorithms": ["d-ucb", "patient", "odaaf", "qpm-d", "qpm-d-matched", "uniform"],
    "grid": [
        {"key": "n_arms", "values": [2], "names": ["K2"]},
        {"key": "gap", "values": [0.2], "names": ["large"]},
    ],
    "settings": {
        "heavy": {
            # infinite mean, so ODAAF does not apply; a 0.99 quantile (99) d-UCB's window can take
            "delay": {"kind": "pareto", "alpha": 1.0},
            "censored": False,
            "window": 20,
            "base_mean": 0.4,
            "alpha_tilde": 0.5,
        },
        "arm": {
            # the best arm's law the lighter: identifiable (tests/arena/test_identifiable.py has
            # the other way round, where the claims leave the setting out)
            "delay": {
                "kind": "per_arm",
                "arms": [{"kind": "pareto", "alpha": 1.0}, {"kind": "pareto", "alpha": 0.3}],
            },
            "censored": True,
            "window": 20,
            "base_mean": 0.4,
            "alpha_tilde": 0.3,
        },
    },
}
# per replication: four values ten times over, enough runs for the tie rule's simultaneous
# intervals to decide (four runs leave every close cell inconclusive)
BASE = np.tile([10.0, 12.0, 14.0, 16.0], 10)


def _raw(regrets: dict[tuple[str, str], np.ndarray]) -> pd.DataFrame:
    """Replications at t = 50 (half the regret) and t = 100."""
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "setting": s,
                    "algorithm": a,
                    "replication": range(len(BASE)),
                    "t": t,
                    "regret": r * t / 100,
                }
            )
            for (s, a), r in regrets.items()
            for t in (50, 100)
        ],
        ignore_index=True,
    )


RAW = _raw(
    {
        ("heavy-K2-large", "d-ucb"): BASE + 20,
        ("heavy-K2-large", "patient"): BASE,
        # two more per replication: above the best by 2 in every resample, beyond the margin
        # (0.1 x 13); unpaired, its SE (1.3) would have hidden it
        ("heavy-K2-large", "qpm-d-matched"): BASE + 2,
        # within 1 of the best in every resample: inside the margin
        ("heavy-K2-large", "qpm-d"): BASE + np.tile([0.0, 1.0, -1.0, 0.5], 10),
        ("heavy-K2-large", "uniform"): BASE + 40,
        ("arm-K2-large", "d-ucb"): BASE + 20,
        ("arm-K2-large", "patient"): BASE - 8,
        ("arm-K2-large", "odaaf"): BASE + 2,
        ("arm-K2-large", "qpm-d"): BASE - 6,
        ("arm-K2-large", "qpm-d-matched"): BASE - 6.5,
        ("arm-K2-large", "uniform"): BASE + 40,
    }
)


def test_leaderboard_ranks_with_paired_ties_in_each_field_at_each_horizon() -> None:
    board = leaderboard.build(RAW, TINY, 0, "regret")
    assert list(board.columns) == leaderboard.COLUMNS
    assert sorted(board.horizon.unique()) == [50, 100]
    # 2 settings x 2 horizons x (5 in the matched field + 5 in the published one)
    assert len(board) == 2 * 2 * 10
    heavy = leaderboard.view(board)[lambda b: b.setting == "heavy-K2-large"].set_index("algorithm")
    assert set(heavy.index) == {"d-ucb", "patient", "odaaf", "qpm-d-matched", "uniform"}
    assert not heavy.loc["odaaf", "applicable"] and "E[τ]" in heavy.loc["odaaf", "reason"]
    assert math.isnan(heavy.loc["odaaf", "regret"]) and math.isnan(heavy.loc["odaaf", "rank"])
    assert heavy.loc["patient", "rank"] == 1 and heavy.loc["patient", "tied_best"]
    assert heavy.loc["qpm-d-matched", "diff"] == pytest.approx(2.0)
    assert heavy.loc["qpm-d-matched", "se_diff"] == 0
    assert heavy.loc["qpm-d-matched", "verdict"] == "worse"
    assert heavy.loc["qpm-d-matched", "margin"] == pytest.approx(1.3)
    assert heavy.loc["patient", "verdict"] == "tied-best" and heavy.loc["patient", "diff_hi"] == 0
    assert heavy.loc["d-ucb", "ratio"] == pytest.approx(33.0 / 13.0)
    published = leaderboard.view(board, 100, PUBLISHED)
    tied = published[published.setting == "heavy-K2-large"].set_index("algorithm")
    assert tied.loc["qpm-d", "tied_best"] and tied.loc["qpm-d", "rank"] == 2  # within the margin
    early = leaderboard.view(board, 50)[lambda b: b.setting == "heavy-K2-large"]
    assert early.set_index("algorithm").loc["d-ucb", "regret"] == pytest.approx(33.0 / 2)
    arm = leaderboard.view(board)[lambda b: b.setting == "arm-K2-large"].set_index("algorithm")
    assert arm.loc["odaaf", "information"] == "anonymous aggregate"
    assert arm.loc["odaaf", "applicable"] and arm.loc["qpm-d-matched", "information"] == LABELLED
    # within its information model QPM-D at log n (labelled outcomes) is alone, so its own best,
    # although not tied with the best of all (Patient, which sees only conversions)
    assert heavy.loc["qpm-d-matched", "model_tied_best"]
    assert heavy.loc["qpm-d-matched", "model_ratio"] == 1.0
    assert heavy.loc["d-ucb", "model_ratio"] == heavy.loc["d-ucb", "ratio"]  # Patient's model
    worth = leaderboard.labelled_over_conversions(board).set_index(["horizon", "field", "setting"])
    at_t = worth.loc[(100, MATCHED, "heavy-K2-large")]
    assert at_t.oracle == pytest.approx(heavy.loc["qpm-d-matched", "regret"])
    assert at_t.conversions == pytest.approx(heavy.loc["patient", "regret"])
    assert at_t.ratio == pytest.approx(at_t.oracle / at_t.conversions)
    assert arm.loc["qpm-d-matched", "exploration"] == "f(n) = log n"
    # a curve that applies but has no replications is an error, not a blank cell
    with pytest.raises(ConfigError, match="arm-K2-large/qpm-d"):
        leaderboard.build(
            RAW[~((RAW.setting == "arm-K2-large") & (RAW.algorithm == "qpm-d"))],
            TINY,
            0,
            "regret",
        )

    wins = leaderboard.wins(board).set_index(["horizon", "field", "algorithm"])
    assert wins.loc[(100, MATCHED, "patient"), "wins"] == 2
    assert wins.loc[(100, PUBLISHED, "qpm-d"), "wins"] == 1  # tied in heavy only
    assert wins.loc[(100, MATCHED, "patient"), "outright"] == 2
    assert wins.loc[(100, PUBLISHED, "patient"), "outright"] == 1  # QPM-D tied in heavy

    shown = leaderboard.display(board)
    extra = shown[shown.section == PUBLISHED].set_index("setting")
    assert list(extra.algorithm.unique()) == ["qpm-d"]  # the one published-only row
    assert extra.loc["arm-K2-large", "ratio"] == pytest.approx(7.0 / 5.0)  # over patient's 5
    assert not extra.tied_best.any()

    claims = {c.id: c for c in arena_claims.regret({"leaderboard": board}, TINY)}
    assert claims["patient-robust-to-wrong-cdf"].holds  # 5 vs 33, se 0.4 each
    assert claims["odaaf-pays-for-anonymity"].holds  # 15 vs 7: 8 > 2 SE (0.6)
    uniform = [c for c in claims.values() if c.id.startswith("better-than-uniform-")]
    # one claim per algorithm that applies somewhere, uniform play itself excepted
    assert sorted(c.id for c in uniform) == [
        f"better-than-uniform-{a}" for a in sorted(TINY["algorithms"]) if a != "uniform"
    ]
    assert all(c.holds for c in uniform)
    assert "odaaf-v-pays-for-anonymity" not in claims  # not in the figure


def _window_study(paired: bool) -> dict:
    """The smoke window figure on one law, two entrants and three windows m."""
    fig = cfg.load(SMOKE_FILES, "arena")["papers"]["arena"]["window"]
    problem, windows = fig["grid"]
    windows = {**windows, "values": [5, 20, 80], "names": ["m5", "m20", "m80"]}
    if not paired:
        windows = {k: v for k, v in windows.items() if k != "paired"}
    return {
        **fig,
        "horizon": 100,
        "checkpoints": 2,
        "leaderboard_at": [100],
        "algorithms": ["d-ucb", "ts"],
        "settings": {"geometric100": fig["settings"]["geometric100"]},
        "grid": [problem, windows],
    }


WINDOW_RAW = _raw(
    {
        # paired across m: the same four values per replication at every m, so the differences
        # between windows have no noise
        ("geometric100-K3-m5", "d-ucb"): BASE + 20,
        ("geometric100-K3-m20", "d-ucb"): BASE,
        ("geometric100-K3-m80", "d-ucb"): BASE + 5,
        ("geometric100-K3-m5", "ts"): BASE + 0.5,
        ("geometric100-K3-m20", "ts"): BASE + np.tile([0.0, 1.0, -1.0, 0.5], 10),
        ("geometric100-K3-m80", "ts"): BASE,
    }
)


def test_the_window_study_ranks_the_windows_by_the_tie_rule() -> None:
    board = leaderboard.build(WINDOW_RAW, _window_study(paired=True), 0, "window")
    at_t = leaderboard.view(board).set_index(["algorithm", "window"])
    assert at_t.loc[("d-ucb", 20), "paired_verdict"] == "tied-best"
    assert at_t.loc[("d-ucb", 5), "paired_verdict"] == "worse"
    assert at_t.loc[("d-ucb", 80), "paired_verdict"] == "worse"
    assert set(at_t.loc["ts", "paired_verdict"]) == {"tied-best"}
    found = {r["algorithm"]: r for r in digest._window(board)}
    assert found["d-ucb"]["best_window"] == 20 and not found["d-ucb"]["best_at_edge"]
    assert found["d-ucb"]["windows_tied"] == [20]
    assert found["d-ucb"]["windows_worse"] == [5, 80]
    assert found["ts"]["best_window"] == 80 and found["ts"]["best_at_edge"]
    assert found["ts"]["windows_tied"] == [5, 20, 80] and not found["ts"]["windows_inconclusive"]
    text = digest._window_table(list(found.values()))
    assert "m = 20 (13)" in text and "the grid does not bracket the best m" in text
    # without a paired axis no two settings share their draws: no verdict across them
    unpaired = leaderboard.build(WINDOW_RAW, _window_study(paired=False), 0, "window")
    assert set(unpaired.paired_verdict) == {""}


def test_leaderboard_horizons_must_be_checkpoints() -> None:
    bad = {**TINY, "leaderboard_at": [30, 100]}
    with pytest.raises(ConfigError, match=r"leaderboard_at: 30 is not a checkpoint.*50, 100"):
        arena.check_figure(bad, "papers.arena.regret")
    arena.check_figure(TINY, "papers.arena.regret")


def test_full_config_is_the_stated_scale() -> None:
    assert FULL["horizon"] == 100_000 and FULL["leaderboard_at"] == [10_000, 100_000]
    # some curves do not apply: a per_curve figure would refuse them
    assert cv.simulate_jobs(FULL) == "per_figure"
    assert sorted(FULL["algorithms"]) == sorted(a.id for a in arena.BUILT_IN)
    laws = {p.listed: r["delay"]["kind"] for p, r in grid.selected(FULL).items()}
    assert sorted(set(laws.values())) == [
        "empirical",
        "geometric",
        "packet_loss",
        "pareto",
        "per_arm",
        "uniform",
    ]
    # seven laws with and without censoring, packet loss (two p) censored only, and the
    # reward-dependent regime uncensored only
    assert sum(name.endswith("_censored") for name in laws) == 9 and len(laws) == 17


def test_the_digest_states_a_subset_scale_and_a_complete_one_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = cfg.merged(CONFIG)["papers"]["arena"]["window"]
    run = tmp_path / "full"
    assert digest.run_scale(run, {"regret": FULL, "window": window}) == "full"
    monkeypatch.chdir(tmp_path)
    assert digest.run_scale(Path("."), {"regret": FULL, "window": window}) == "standard"
    subset = {**FULL, "only": ["geometric100", "pareto1", "K10"]}
    scale = digest.run_scale(run, {"regret": subset, "window": window})
    assert scale == (
        "full scale, arena regret: a subset: 8 of 138 settings (only: geometric100, pareto1, K10)"
    )
    committed = json.loads((ROOT / "docs/data/arena-full.json").read_text())
    blocks = digest.blocks(committed)
    assert committed["scale"] == "full"
    # the sentences count what the digest holds, whatever the edition
    n, runs = committed["settings"], committed["replications"]["regret"]
    assert blocks["arena-run"].startswith(f"*full scale*: {runs} paired runs of each of the {n} ")
    assert blocks["readme-arena"].startswith(f"The arena (full scale, {runs} paired runs of {n} ")
    blocks = digest.blocks({**committed, "scale": scale})  # the sentences built from it
    assert blocks["arena-run"].startswith(f"*{scale}*: {runs} paired runs")
    assert blocks["readme-arena"].startswith(f"The arena ({scale}, {runs} paired runs")


@pytest.mark.parametrize("regime", ["packet_loss25_censored", "packet_loss75_censored"])
def test_under_packet_loss_d_ucb_plays_as_ucb_that_ignores_delays(regime: str) -> None:
    """Packet loss (docs/decisions/arena.md#packet-loss): a conversion at once or never, so tau
    is 1 - p on 0..m, N~ is (1 - p) N and d-UCB's index UCB's divided by 1 - p for every arm;
    the two play the same arms. Not under a law whose tau rises over the window."""
    for name, same in ((f"{regime}-K3-large", True), ("geometric100_censored-K3-large", False)):
        st = arena.Setting.from_config(grid.settings(SMOKE)[name], name)
        assert (float(st.pooled.cdf(0)) == float(st.pooled.cdf(st.window))) == same
        draw = arena.draw_environment(np.random.SeedSequence(3), 4000, st)
        cp = np.array([4000])
        played = [ENTRANTS[a].kernel(st, draw, cp, 1)[1] for a in ("d-ucb", "ucb1-matched")]
        assert np.array_equal(*played) == same, name


def test_reward_dependent_delays_change_only_what_the_learners_told_every_outcome_see() -> None:
    """Reward-dependent delays (docs/decisions/arena.md#reward-dependent): the regime draws as its
    twin geometric100 (``draws_as``), its 0s' delays drawn last, so a pull's conversion and its
    delay are the twin's and only a non-conversion's delay differs (mean 1000, not 100). Every
    entrant that is not told the 0s plays the twin's actions; the labelled queue does not; the
    per-round-loss rows do not run."""
    horizon, cp = 2000, np.array([2000])
    name, twin = "reward_dependent-K3-large", "geometric100-K3-large"
    assert seeds.seed_name(SMOKE, name) == twin and seeds.seed_name(SMOKE, twin) == twin
    problems = {n: arena.Setting.from_config(grid.settings(SMOKE)[n], n) for n in (name, twin)}
    assert problems[name].reward_dependent and not problems[twin].reward_dependent
    draws = {
        n: arena.draw_environment(np.random.SeedSequence(7), horizon, st)
        for n, st in problems.items()
    }
    dependent, independent = draws[name].realisation, draws[twin].realisation
    converts = dependent.uniforms < draws[name].setting.mu
    np.testing.assert_array_equal(dependent.uniforms, independent.uniforms)
    np.testing.assert_array_equal(dependent.delays[converts], independent.delays[converts])
    zeros = dependent.delays[~converts]
    # geometric, mean 1000: standard deviation about 1000, so 5 SE of the mean
    assert abs(zeros.mean() - 1000) < 5 * 1000 / math.sqrt(zeros.size)
    for entrant in arena.BUILT_IN:
        if entrant.information == arena.LOSSES:
            assert entrant.applies(problems[name]) and not entrant.applies(problems[twin])
            continue
        if entrant.applies(problems[name]):
            continue
        played = [entrant.kernel(draws[n].setting, draws[n], cp, 1)[1] for n in (name, twin)]
        assert np.array_equal(*played) == same_as_twin(entrant.information), entrant.id
    assert [same_as_twin(m) for m in (LABELLED, LOSSES)] == [False, False]
    with pytest.raises(ValueError, match="unknown information model 'oracle'"):
        same_as_twin("oracle")


def test_draws_as_names_another_regime_with_the_same_law() -> None:
    listed = FULL["settings"]
    for twin, match in (
        ("nowhere", r"'nowhere' is not another listed regime .* allowed: uniform, "),
        ("reward_dependent", r"'reward_dependent' is not another listed regime"),
        ("geometric1000", r"'geometric1000' has another delay law"),
    ):
        bad = {
            **FULL,
            "settings": {
                **listed,
                "reward_dependent": {**listed["reward_dependent"], "draws_as": twin},
            },
        }
        with pytest.raises(
            ConfigError, match=r"regret\.settings\.reward_dependent\.draws_as: " + match
        ):
            arena.check_figure(bad, "papers.arena.regret")


def test_a_regime_can_draw_its_delays_from_a_file_of_samples(tmp_path: Path) -> None:
    """Your own delays: a regime whose law is a sample read from a file (one delay per line);
    its draws come from the sample, and the file is an input of the jobs that simulate it."""
    sample = tmp_path / "delays.txt"
    sample.write_text("\n".join(["0", "3", "3", "250"]) + "\n")
    raw = {
        **grid.settings(SMOKE)["geometric100_censored-K3-large"],
        "delay": {"kind": "sample", "path": str(sample)},
    }
    st = arena.Setting.from_config(raw, "mine")
    draw = arena.draw_environment(np.random.SeedSequence(0), 4000, st)
    assert set(np.unique(draw.realisation.delays)) == {0, 3, 250}
    assert st.observable.mean == pytest.approx((0 + 3 + 3 + 200) / 4)  # min(D, m = 200)
    cp = np.array([4000])
    for name in ("ts", "odaaf"):  # references that are fast at T = 4000
        algo = ENTRANTS[name]
        np.testing.assert_array_equal(
            algo.kernel(st, draw, cp, 1)[1], algo.reference(st, draw, cp, 1)[1]
        )
    sample.write_text("3\n-1\n")
    with pytest.raises(ConfigError, match=r"mine\.delay\.path: .* line 2: delay -1 is negative"):
        arena.Setting.from_config(raw, "mine")
