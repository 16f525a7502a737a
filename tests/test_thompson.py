"""``indices.thompson_arm``, the Thompson-sampling step every sampling kernel compiles in (the
arena's baseline, Vernade et al.'s d-TS and Discarding TS, QPM-D's TS base): compiled, it makes
the references' draws, in their order and number, and takes the first arm of the largest."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from delayed_bandits.indices import thompson_arm

SUCCESSES = np.array([3.0, 0.0, 7.0, 2.0, 1.0])
# arm 2's N~ is below its S, as a delay-weighted count can be: only there does ``clip`` matter
TRIALS = np.array([5.0, 4.0, 6.5, 2.0, 9.0])


@njit
def _compiled(successes, trials, rng, clip):
    return thompson_arm(successes, trials, rng, clip)


class _Draws:
    """A generator whose Beta draws are given, so that the tie-break alone picks the arm."""

    def __init__(self, draws: list[float]) -> None:
        self.draws = iter(draws)

    def beta(self, a: float, b: float) -> float:
        return next(self.draws)


@pytest.mark.parametrize("clip", [False, True])
def test_the_compiled_draws_are_the_references(clip: bool) -> None:
    for seed in range(20):
        reference = np.random.default_rng(seed)
        draws = []
        for s, n in zip(SUCCESSES, TRIALS, strict=True):
            # the references' own expressions (vernade2017.policies, arena.policies)
            b = 1.0 + max(n - s, 0.0) if clip else 1.0 + n - s
            draws.append(reference.beta(1.0 + s, b))
        rng = np.random.default_rng(seed)
        assert _compiled(SUCCESSES, TRIALS, rng, clip) == int(np.argmax(draws))
        # as many draws as the reference: the stream goes on from the same point
        assert rng.random() == reference.random()


def test_the_first_arm_of_the_largest_draw_is_played() -> None:
    zeros = np.zeros(3)
    assert thompson_arm(zeros, zeros, _Draws([0.2, 0.7, 0.7])) == 1
    assert thompson_arm(zeros, zeros, _Draws([0.5, 0.5, 0.5])) == 0
