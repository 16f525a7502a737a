"""Switching means, the arena's regime for the adversarial learners (``problem.Switch``,
docs/decisions/arena.md#switching): the config's reading, the draw that carries the switch in
rescaled uniforms, both arms' positions drawn per replication, the metric against each round's
best, kernel = reference on it, and the figure's claims."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from conftest import CONFIG, SMOKE_FILES
from delayed_bandits import config as cfg
from delayed_bandits import grid
from delayed_bandits.arena import claims as arena_claims
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena.problem import Setting, draw_environment, pseudo_regret
from delayed_bandits.environment import checkpoint_grid
from delayed_bandits.errors import ConfigError

SMOKE = cfg.load(SMOKE_FILES, "arena")["papers"]["arena"][arena.SWITCHING]
ENTRANTS = {a.id: a for a in arena.ALGORITHMS}
RAW = {
    "n_arms": 4,
    "gap": 0.1,
    "base_mean": 0.4,
    "delay": {"kind": "geometric", "mean": 20},
    "censored": False,
    "window": 50,
    "alpha_tilde": 0.5,
    "switch": {"at": 0.5, "early": 1, "late": 2},
}


def _setting(**switch: float) -> Setting:
    return Setting.from_config({**RAW, "switch": {**RAW["switch"], **switch}}, "s")


def test_the_late_arm_is_best_over_the_horizon_and_mu_is_each_arms_mean() -> None:
    st = _setting()
    sw = st.switch
    np.testing.assert_allclose(sw.before, [0.4, 0.4, 0.5, 0.4])
    np.testing.assert_allclose(sw.after, [0.4, 0.4, 0.4, 0.6])
    np.testing.assert_allclose(st.mu, [0.4, 0.4, 0.45, 0.5])
    assert st.best == 3 and sw.early == 2
    np.testing.assert_allclose(st.mu, sw.means(1000).mean(axis=0))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"at": 1.0}, "s.switch.at"),
        ({"early": 0.0}, "s.switch.early"),
        ({"late": 7.0}, "s.switch.late"),  # base + late gap > 1
        ({"late": 1.0}, "the late arm must be best in hindsight"),
    ],
)
def test_a_bad_switch_is_named(change: dict, named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        _setting(**change)


def test_switch_and_reward_dependent_delays_are_not_combined() -> None:
    with pytest.raises(ConfigError, match="zero_delay and switch"):
        Setting.from_config({**RAW, "zero_delay": {"kind": "geometric", "mean": 5}}, "s")


def test_the_rescaled_uniforms_convert_at_the_rounds_mean() -> None:
    """The runners compare a uniform with the arm's one mean: the draw's rescaled uniforms give,
    round by round, exactly the conversions of the original uniforms at the round's mean."""
    st, horizon = _setting(), 4000
    for seed in range(3):
        draw = draw_environment(np.random.SeedSequence(seed), horizon, st)
        plain = draw_environment(np.random.SeedSequence(seed), horizon, replace(st, switch=None))
        placed = draw.setting
        assert (
            placed.best == plain.setting.best
        )  # the same position and uniforms, then the early arm
        np.testing.assert_array_equal(draw.realisation.delays, plain.realisation.delays)
        want = plain.realisation.uniforms < placed.switch.means(horizon)
        np.testing.assert_array_equal(draw.realisation.uniforms < placed.mu, want)


def test_each_phase_converts_at_its_means() -> None:
    st, horizon = _setting(), 20_000
    draw = draw_environment(np.random.SeedSequence(11), horizon, st)
    converted = draw.realisation.uniforms < draw.setting.mu
    half = horizon // 2
    for rows, means in (
        (converted[:half], draw.setting.switch.before),
        (converted[half:], draw.setting.switch.after),
    ):
        se = np.sqrt(means * (1 - means) / half)
        assert np.all(np.abs(rows.mean(axis=0) - means) < 4 * se)


def test_both_arms_positions_are_drawn_uniformly_and_apart() -> None:
    """Every (best, early) pair of distinct positions, equally often: 12 pairs at K = 4."""
    st, runs = _setting(), 2400
    pairs = pd.Series(
        [
            (d.setting.best, d.setting.switch.early)
            for d in (draw_environment(np.random.SeedSequence(s), 10, st) for s in range(runs))
        ]
    ).value_counts()
    assert len(pairs) == 12 and all(b != e for b, e in pairs.index)
    p = 1 / 12
    se = np.sqrt(runs * p * (1 - p))
    assert np.all(np.abs(pairs.to_numpy() - runs * p) < 5 * se)


def test_regret_is_against_each_rounds_best() -> None:
    st, horizon = _setting(), 1000
    draw = draw_environment(np.random.SeedSequence(2), horizon, st)
    placed = draw.setting
    sw, cp = placed.switch, np.array([500, 700, 1000])
    late = np.full(horizon, placed.best)
    tracking = np.where(np.arange(horizon) < 500, sw.early, placed.best)
    np.testing.assert_allclose(pseudo_regret(placed, tracking, cp), 0.0)
    np.testing.assert_allclose(pseudo_regret(placed, late, cp), [50.0, 50.0, 50.0])
    # the late arm throughout is the best fixed arm at T: its regret is the offset
    assert sw.fixed_arm_offset(horizon) == pytest.approx(50.0)
    rng = np.random.default_rng(0)
    actions = rng.integers(4, size=horizon)
    means = sw.means(horizon)
    brute = np.cumsum(means.max(axis=1) - means[np.arange(horizon), actions])[cp - 1]
    np.testing.assert_allclose(pseudo_regret(placed, actions, cp), brute)


@pytest.mark.parametrize("algorithm", list(ENTRANTS))
def test_kernel_takes_the_references_actions_under_switching(algorithm: str) -> None:
    name = "geometric100_switch-K3-large"
    st = Setting.from_config(grid.settings(SMOKE)[name], name)
    algo = ENTRANTS[algorithm]
    if algo.applies(st):
        pytest.skip(algo.applies(st))
    cp = checkpoint_grid(300, 10)
    for seed in (5, 6):
        draw = arena.draw_environment(np.random.SeedSequence(seed), 300, st)
        regret, actions, _ = algo.kernel(st, draw, cp, 17)
        ref_regret, ref_actions, _ = algo.reference(st, draw, cp, 17)
        np.testing.assert_array_equal(actions, ref_actions)
        np.testing.assert_allclose(regret, ref_regret, rtol=1e-12)
        np.testing.assert_allclose(regret, pseudo_regret(draw.setting, actions, cp))


def test_linear_learners_do_not_apply_under_switching() -> None:
    st = _setting()
    for algorithm in ("otflinucb", "otflints"):
        assert "per-arm switching means" in ENTRANTS[algorithm].applies(st)
        assert not ENTRANTS[algorithm].applies(replace(st, switch=None))


def test_switching_settings_are_reported_apart() -> None:
    config = cfg.load([CONFIG], "arena")
    figures = config["papers"]["arena"]
    regret = figures["regret"]
    moved = {**regret, "settings": {**regret["settings"], "x": {**RAW}}}
    with pytest.raises(ConfigError, match="papers.arena.regret.settings.x.switch: switching"):
        arena.check_figure(moved, "papers.arena.regret")
    switching = figures[arena.SWITCHING]
    plain = {k: v for k, v in RAW.items() if k != "switch"}
    missing = {**switching, "settings": {**switching["settings"], "x": plain}}
    with pytest.raises(ConfigError, match="settings.x.switch: every setting"):
        arena.check_figure(missing, f"papers.arena.{arena.SWITCHING}")


def _board(ts: tuple[float, float, float], dew: tuple[float, float, float]) -> pd.DataFrame:
    """A leaderboard at T of one switching setting: TS the best (its interval ``ts``: mean, lo,
    hi), DEW's paired difference from it in ``dew`` (mean, diff_lo, diff_hi)."""
    common = {
        "horizon": SMOKE["horizon"],
        "setting": "geometric100_switch-K3-large",
        "field": "matched",
        "ratio": 1.0,
        "tied_best": False,
        "identifiable": True,
        "applicable": True,
        "base_mean": 0.4,
        "censored": False,
        "arm_dependent": False,
    }
    return pd.DataFrame(
        [
            {
                **common,
                "algorithm": "ts",
                "regret": ts[0],
                "regret_lo": ts[1],
                "regret_hi": ts[2],
                "se": 1.0,
                "rank": 1,
                "diff_lo": 0.0,
                "diff_hi": 0.0,
            },
            {
                **common,
                "algorithm": "dew",
                "regret": dew[0],
                "regret_lo": dew[0] - 5,
                "regret_hi": dew[0] + 5,
                "se": 1.0,
                "rank": 2,
                "diff_lo": dew[1],
                "diff_hi": dew[2],
            },
        ]
    )


@pytest.mark.parametrize(
    ("ts", "dew", "vs_ts", "vs_fixed"),
    [
        ((100.0, 90.0, 110.0), (300.0, 150.0, 250.0), False, True),  # T = 2000: offset 200
        ((250.0, 220.0, 280.0), (255.0, -5.0, 15.0), True, False),
        ((200.0, 150.0, 250.0), (260.0, -10.0, 110.0), None, None),
    ],
)
def test_the_switching_claims_can_hold_fail_or_stay_open(
    ts: tuple[float, float, float], dew: tuple[float, float, float], vs_ts, vs_fixed
) -> None:
    fig = {
        **SMOKE,
        "algorithms": ["ts", "dew"],
        "grid": [
            {"key": "n_arms", "values": [3], "names": ["K3"]},
            {"key": ["base_mean", "gap"], "values": [[0.4, 0.2]], "names": ["large"]},
        ],
        "settings": {"geometric100_switch": SMOKE["settings"]["geometric100_switch"]},
    }
    found = {c.id: c for c in arena_claims.switching({"leaderboard": _board(ts, dew)}, fig)}
    assert set(found) == {"dew-no-worse-than-ts-switching", "ts-beats-best-fixed-arm"}
    assert found["dew-no-worse-than-ts-switching"].holds is vs_ts
    assert found["ts-beats-best-fixed-arm"].holds is vs_fixed
    assert "geometric100_switch-K3-large 200" in found["ts-beats-best-fixed-arm"].measured
