"""The observation layer (``arena.observe``): what a learner of each information model may see of
a replication, and when, on a hand-made realisation; and that every runner of the arena (plug-in
policies, QPM-D, DEW, Skipper, Doubling, the windowed methods) reads it, not a rule of its own
(docs/decisions/arena.md#information-models)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from delayed_bandits import delays
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena import observe
from delayed_bandits.arena.entrants import CONVERSIONS, LABELLED, SETTLED, from_policy
from delayed_bandits.arena.problem import UNCENSORED_COVERAGE, Draw, Setting, quantile
from delayed_bandits.environment import Realisation
from delayed_bandits.papers.pikeburke2018 import policies as ppb
from delayed_bandits.papers.thune2019 import policies as p19
from delayed_bandits.papers.vernade2017 import experiment as e17

M = 3  # the window
# arm 0's pulls, round s = 1..12: (uniform, delay); arm 0's mean is 0.5
ARM0 = [
    (0.1, 1),  # s = 1: converts within m
    (0.9, 0),  # s = 2: no conversion, short delay: its 0 must not come before m
    (0.2, 5),  # s = 3: converts later than m
    (0.7, 6),  # s = 4: no conversion, delay beyond m
    (0.3, 3),  # s = 5: converts at exactly m
    (0.9, 1),  # s = 6: no conversion
] + [(0.9, 20)] * 6  # s = 7..12: no conversion, delay beyond the horizon
HORIZON = len(ARM0)


def _draw(censored: bool) -> Draw:
    uniforms = np.array([[u, 0.95] for u, _ in ARM0])
    d = np.array([[d, 0] for _, d in ARM0], dtype=np.int64)
    st = Setting(np.array([0.5, 0.6]), delays.Geometric(2.0), M, censored, 0.5)
    return Draw(st, Realisation(uniforms, d))


class _Recorder:
    """Plays arm 0; records (round told, round pulled, value) of everything it is told."""

    last: "_Recorder"

    def __init__(self, problem: Any, rng: np.random.Generator) -> None:
        self.seen: list[tuple[int, int, float]] = []
        self.t = 0
        type(self).last = self

    def choose(self, t: int) -> int:
        self.t = t
        return 0

    def played(self, t: int, arm: int) -> None:
        pass

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.seen.append((self.t + 1, s, 1.0))

    def observe_outcome(self, s: int, arm: int, reward: float, delay: int) -> None:
        self.seen.append((self.t + 1, s, reward))


class _Converted(_Recorder):
    observe_outcome = None  # type: ignore[assignment]  # a policy of the conversions model


class _Outcomes(_Recorder):
    observe = None  # type: ignore[assignment]  # a policy of an outcome model


def _told(information: str, censored: bool) -> list[tuple[int, int, float]]:
    policy = _Converted if information == CONVERSIONS else _Outcomes
    entrant = from_policy("rec", "Rec", "records", policy, information=information)
    entrant.reference(None, _draw(censored), np.array([HORIZON]), 0)
    return sorted(policy.last.seen)


# (round told, round pulled, value), by hand from the rules of ``observe``'s docstring
EXPECTED = {
    (CONVERSIONS, False): [(3, 1, 1.0), (9, 3, 1.0), (9, 5, 1.0)],
    (CONVERSIONS, True): [(3, 1, 1.0), (9, 5, 1.0)],
    # a conversion within m at s + D + 1; every other pull a 0 at s + m + 1, never earlier
    (SETTLED, False): [
        (3, 1, 1.0), (6, 2, 0.0), (7, 3, 0.0), (8, 4, 0.0), (9, 5, 1.0), (10, 6, 0.0),
        (11, 7, 0.0), (12, 8, 0.0),
    ],
    # every outcome at s + D + 1
    (LABELLED, False): [
        (3, 1, 1.0), (3, 2, 0.0), (8, 6, 0.0), (9, 3, 1.0), (9, 5, 1.0), (11, 4, 0.0),
    ],
    # every outcome at s + min(D, m) + 1; the conversion later than m a 0 at m
    (LABELLED, True): [
        (3, 1, 1.0), (3, 2, 0.0), (7, 3, 0.0), (8, 4, 0.0), (8, 6, 0.0), (9, 5, 1.0),
        (11, 7, 0.0), (12, 8, 0.0),
    ],
}  # fmt: skip
EXPECTED[SETTLED, True] = EXPECTED[SETTLED, False]  # censoring at m reveals what settling does


@pytest.mark.parametrize("censored", [False, True])
def test_conversions_deliver_the_ones_only(censored: bool) -> None:
    seen = _told(CONVERSIONS, censored)
    assert seen == EXPECTED[CONVERSIONS, censored]
    assert all(value == 1.0 for _, _, value in seen)  # a 0 is never delivered


@pytest.mark.parametrize("censored", [False, True])
def test_settled_delivers_a_zero_exactly_when_the_window_closes(censored: bool) -> None:
    """The plug-in SETTLED policy: no 0 before s + m + 1, censored or not."""
    seen = _told(SETTLED, censored)
    assert seen == EXPECTED[SETTLED, censored]
    assert all(told == s + M + 1 for told, s, value in seen if value == 0.0)


@pytest.mark.parametrize("censored", [False, True])
def test_labelled_delivers_every_outcome_after_its_delay(censored: bool) -> None:
    seen = _told(LABELLED, censored)
    assert seen == EXPECTED[LABELLED, censored]
    if censored:  # every outcome at min(D, m), the late conversion a 0
        for told, s, value in seen:
            u, d = ARM0[s - 1]
            assert told == s + min(d, M) + 1
            assert value == float(u < 0.5 and d <= M)


def _loss_arrivals(st: Setting, env: Realisation) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(losses, the round each arrives in by the losses rule, the round the translation delivers
    it in), per (round, arm); T + 1 for any round after the game."""
    loss, d = observe.losses(st, env)
    horizon = env.uniforms.shape[0]
    t = np.arange(1, horizon + 1)[:, None]
    rule = t + 1 + np.where(st.censored & (loss == 1.0), st.window, env.delays[:, :1])
    delivered = np.broadcast_to(t + 1 + d[:, None], loss.shape)
    return loss, np.minimum(rule, horizon + 1), np.minimum(delivered, horizon + 1)


@pytest.mark.parametrize("censored", [False, True])
def test_losses_follow_the_losses_rule(censored: bool) -> None:
    """Round t's loss: uncensored at t + d_t + 1; censored, a 1 exactly at m (never before), a
    converted pull's 0 at d_t, or at m in a round that has a 1 (a 0 moves no weight)."""
    draw = _draw(censored)
    st, env = draw.setting, draw.realisation
    env = Realisation(env.uniforms, np.repeat(env.delays[:, :1], 2, axis=1))  # one d_t a round
    loss, rule, delivered = _loss_arrivals(st, env)
    converted = (env.uniforms < st.mu) & (~st.censored | (env.delays <= M))
    np.testing.assert_array_equal(loss, 1.0 - converted)
    ones = loss == 1.0
    np.testing.assert_array_equal(delivered[ones], rule[ones])
    assert (delivered >= rule).all()
    whole = (loss == 0.0).all(axis=1)
    np.testing.assert_array_equal(delivered[whole], rule[whole])
    if not censored:
        np.testing.assert_array_equal(delivered, rule)


@pytest.mark.parametrize("entrant", ["dew", "skipper", "doubling"])
def test_thune_entrants_read_the_losses_of_the_layer(monkeypatch, entrant: str) -> None:
    """DEW, Skipper and Doubling's reference plays the layer's losses, so no 1 arrives before m
    (it did at min(d_t, m))."""
    played: list[tuple[np.ndarray, np.ndarray]] = []
    run = p19.run

    def recorded(policy, losses, delays_, uniforms):
        played.append((losses.copy(), delays_.copy()))
        return run(policy, losses, delays_, uniforms)

    monkeypatch.setattr(p19, "run", recorded)
    draw = _draw(censored=True)
    algo = {a.id: a for a in arena.ALGORITHMS}[entrant]
    algo.reference(draw.setting, draw, np.array([HORIZON]), 3)
    (loss, d), expected = played[0], observe.losses(draw.setting, draw.realisation)
    np.testing.assert_array_equal(loss, expected[0])
    np.testing.assert_array_equal(d, expected[1])
    _, rule, delivered = _loss_arrivals(draw.setting, draw.realisation)
    np.testing.assert_array_equal(delivered[loss == 1.0], rule[loss == 1.0])


@pytest.mark.parametrize("entrant", ["qpm-d", "qpm-d-matched", "qpm-d-klucb", "qpm-d-ts"])
def test_qpmd_reads_labelled_outcomes(monkeypatch, entrant: str) -> None:
    """Under censoring QPM-D's queues get every outcome at s + min(D, m) + 1, the conversion
    later than m a 0 at m (it got that 0 at its delay D, after m)."""
    fed: list[tuple[np.ndarray, np.ndarray]] = []
    run = ppb.run_qpmd

    def recorded(mu, uniforms, delays_, *rest):
        fed.append((uniforms.copy(), delays_.copy()))
        return run(mu, uniforms, delays_, *rest)

    monkeypatch.setattr(ppb, "run_qpmd", recorded)
    draw = _draw(censored=True)
    algo = {a.id: a for a in arena.ALGORITHMS}[entrant]
    algo.reference(draw.setting, draw, np.array([HORIZON]), 3)
    uniforms, d = fed[0]
    assert d.max() <= M
    for s, (u, delay) in enumerate(ARM0, start=1):
        assert d[s - 1, 0] == min(delay, M)
        assert (uniforms[s - 1, 0] < 0.5) == (u < 0.5 and delay <= M)


@pytest.mark.parametrize("censored", [False, True])
@pytest.mark.parametrize("entrant", ["d-ucb", "d-klucb", "d-ts"])
def test_windowed_methods_censor_only_where_the_problem_does(
    monkeypatch, entrant: str, censored: bool
) -> None:
    """Under censoring the window is m; uncensored it is the law's UNCENSORED_COVERAGE quantile
    (it was m, so d-UCB discarded the conversions later than m the problem showed)."""
    windows: list[int | None] = []
    run = e17.run

    def recorded(policy, theta, uniforms, delays_, window, *rest):
        windows.append(window)
        return run(policy, theta, uniforms, delays_, window, *rest)

    monkeypatch.setattr(e17, "run", recorded)
    draw = _draw(censored)
    algo = {a.id: a for a in arena.ALGORITHMS}[entrant]
    algo.reference(draw.setting, draw, np.array([HORIZON]), 3)
    law = delays.Geometric(2.0)
    expected = M if censored else quantile(law, UNCENSORED_COVERAGE)
    assert windows == [expected]
    assert censored or float(law.cdf(expected)) >= UNCENSORED_COVERAGE > float(law.cdf(M))


def test_linear_methods_take_the_same_window() -> None:
    for censored in (False, True):
        st = _draw(censored).setting
        assert arena._vernade2020(st).window == arena._windowed(st).window == st.learner_window


def test_a_window_beyond_the_limit_does_not_apply() -> None:
    heavy = Setting(
        np.array([0.4, 0.6]),
        delays.from_spec({"kind": "pareto", "alpha": 0.3}, "x"),
        200,
        False,
        0.3,
    )
    algos = {a.id: a for a in arena.ALGORITHMS}
    for entrant in ("d-ucb", "d-klucb", "d-ts", "otflinucb", "otflints"):
        assert "quantile" in algos[entrant].applies(heavy)
        assert algos[entrant].applies(Setting(heavy.mu, heavy.delay, 200, True, 0.3)) == ""
