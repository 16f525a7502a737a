"""The arena's statistical rules, each applied and worded once: the tie rule (a cell is
*tied-best*, *worse* or *inconclusive* against its setting's best, ``excess`` and ``verdict``),
the precision target (``precise``) and the failure rule (``failed``). Every caption, schema
description, notebook and document that states a rule reads or quotes its wording here
(``tie_rule``, ``precision_rule``, ``failure_rule``), so that changing a rule changes this module
and the blocks ``delayed-bandits quote --write`` rewrites (``tests/docs/test_rules_said_once.py``
fails on a rule restated in other words).

Kept apart from ``leaderboard`` (which applies the rules to a run's replications) so that the
package's figure kinds can word their captions from it without importing pandas."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

STATISTICS = {
    "resamples": 2000,
    "confidence": 0.95,
    "tie_margin": 0.1,
    "learning_margin": 0.1,
    "precision": 0.1,
    "screen_runs": 0,
}
"""Defaults of the figure key ``statistics`` (schema.yaml says what each means; ``leaderboard``
and the docs read them from here)."""
TIED, WORSE, INCONCLUSIVE = "tied-best", "worse", "inconclusive"


def statistics(fig: Mapping[str, Any]) -> dict[str, float]:
    """The figure's ``statistics`` key over the defaults (``STATISTICS``)."""
    return {**STATISTICS, **fig.get("statistics", {})}


def excess(
    runs: np.ndarray, w: np.ndarray, tie_margin: float, confidence: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tie rule's statistic and its simultaneous interval, per column of ``runs``
    (replications x the group's algorithms, paired: row r of every column faced the same
    draws), ``w`` the paired resamples (``leaderboard.resample_weights``).

    The statistic is a's excess over the margin, theta_a = mu_a - (1 + tie_margin) min_b mu_b:
    a is within the margin of the best when theta_a <= 0. As min_b mu_b is the lowest true mean,
    theta_a = max_b g_ab with g_ab = mu_a - (1 + tie_margin) mu_b over every b, a included, so
    simultaneous intervals of every g_ab bound every theta_a at once: the uncertainty of the
    lowest mean, of the margin with it (a multiple of that mean) and of which algorithm is best
    are all carried, and the sample best gets no free interval [0, 0] against itself.

    The simultaneous intervals are a studentized paired bootstrap (a bootstrap form of Hsu's
    multiple comparisons with the best): in each paired resample, every pair's deviation from
    its sample value in units of the resample's own standard error (bootstrap-t), and per pair
    the quantile that keeps all pairs inside at once in a share (1 + confidence) / 2 of the
    resamples, for the upper ends and for the lower ends, each pair at the same marginal level
    (``_balanced``). The resample's own standard error keeps the stated rate under skewed or
    bimodal runs that the sample shows, where a percentile interval under-covers (10 % of 80
    runs stuck); the balance keeps a pair with a rare stuck run from widening every other
    pair's interval, as one critical value for the largest deviation did
    (``tests/arena/test_tie_coverage.py``). What no rule on n runs can see: a cell whose
    excess comes from failures rarer than about 1 in n runs. Where none of its n runs failed
    (a share (1 - p)^n of samples: 0.98^80 = 0.20 for p = 2 %) the cell looks as good as its
    runs without failures, and it is called tied-best that often whatever the level
    (``tests/arena/test_screening.py``; docs/decisions/arena.md#failures).

    Returns (theta_hat, lower, upper) over the columns; with fewer than two runs the interval is
    NaN (inconclusive)."""
    n, k = runs.shape
    pairs = (runs[:, :, None] - (1 + tie_margin) * runs[:, None, :]).reshape(n, k * k)
    g = pairs.mean(axis=0)
    theta = g.reshape(k, k).max(axis=1)
    if n < 2:
        return theta, np.full(k, np.nan), np.full(k, np.nan)
    se = pairs.std(axis=0, ddof=1) / np.sqrt(n)
    boot = w @ pairs
    boot_se = np.sqrt(np.maximum(w @ pairs**2 - boot**2, 0.0) / (n - 1))
    shift = boot - g
    # runs within one part in a million of each other count as equal: below that the standard
    # errors are rounding (the resamples' variance is a difference of two moments), and a pair
    # whose runs are all equal moves in no resample (deviation 0); any other resample with no
    # spread has an unbounded studentized deviation
    scale = np.abs(pairs).max(axis=0)
    spread = 1e-6 * scale / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(
            boot_se > spread,
            shift / boot_se,
            np.where(np.abs(shift) <= 1e-9 * scale, 0.0, np.inf * np.sign(shift)),
        )
        tail = 1 - (1 - confidence) / 2
        rise, fall = _balanced(t, tail), _balanced(-t, tail)
        moves = se > spread
        lower = np.where(moves, g - rise * se, g).reshape(k, k).max(axis=1)
        upper = np.where(moves, g + fall * se, g).reshape(k, k).max(axis=1)
    return theta, lower, upper


def _balanced(t: np.ndarray, level: float) -> np.ndarray:
    """Per column of ``t`` (resamples x pairs), a critical value such that every column stays at
    or below its own in a share ``level`` of the resamples at once, each column at the same
    marginal level (Beran's balanced simultaneous intervals, 1988).

    A common critical value for the maximum over pairs lets the widest-tailed pair (one with a
    rare stuck run, whose resamples without it have almost no spread) set every pair's interval;
    balancing gives each pair its own tail at one rank instead. A resample's rank in a column is
    the share of the column strictly below it, so a column that never moves ranks 0 and takes no
    part; the level is an order statistic of the resamples' largest rank (no interpolation: an
    unbounded deviation stays unbounded)."""
    b = len(t)
    order = np.sort(t, axis=0)
    k = int(np.quantile(_ranks(t).max(axis=1), level, method="higher"))
    return order[min(k, b - 1)]


def _ranks(t: np.ndarray) -> np.ndarray:
    """Per column of ``t``, each entry's count of entries strictly below it (NaNs, sorted last,
    rank at the first of them): what a ``searchsorted(..., side="left")`` of every entry in its
    sorted column gives, in one sort of the whole table instead of a search per column (the
    leaderboard's cost: about a thousand columns per group of a figure)."""
    b = len(t)
    cols = np.ascontiguousarray(t.T)
    idx = np.argsort(cols, axis=1)
    srt = np.take_along_axis(cols, idx, axis=1)
    same = (srt[:, 1:] == srt[:, :-1]) | (np.isnan(srt[:, 1:]) & np.isnan(srt[:, :-1]))
    start = np.zeros(srt.shape, dtype=np.intp)
    start[:, 1:] = np.where(same, 0, np.arange(1, b))
    ranks = np.empty_like(start)
    np.put_along_axis(ranks, idx, np.maximum.accumulate(start, axis=1), axis=1)
    return ranks.T


def tied(upper: Any) -> Any:
    """Whether an excess interval (``excess``) ending at ``upper`` shows the cell within the
    margin of the best: the tie rule (``tie_rule``)."""
    return upper <= 0


def verdict(lower: Any, upper: Any) -> np.ndarray:
    """The tie rule (``tie_rule``) on an excess interval [``lower``, ``upper``] (``excess``):
    ``TIED`` when it shows the cell within the margin, ``WORSE`` when beyond it, else
    ``INCONCLUSIVE`` (also where there is no interval, with fewer than two runs)."""
    return np.where(tied(upper), TIED, np.where(lower > 0, WORSE, INCONCLUSIVE))


def precise(lower: Any, upper: Any, best: Any, precision: float) -> Any:
    """The precision target (``precision_rule``): the half-width of a difference interval
    [``lower``, ``upper``] at most ``precision`` times the ``best``'s mean regret."""
    return (upper - lower) / 2 <= precision * best


FAILURE_SLOPE = 0.5
"""A run has failed when, over the second half of its horizon, its pseudo-regret grew by at
least this share of the smallest gap per round (``failed``)."""


def failed(late: Any, rounds: Any, smallest_gap: Any) -> Any:
    """The failure rule (``failure_rule``): whether runs whose pseudo-regret grew by ``late``
    over their last ``rounds`` rounds (from the last checkpoint at or before half the horizon to
    the horizon) still played worse arms at a linear rate, at least ``FAILURE_SLOPE`` times the
    ``smallest_gap`` per round. A learner that has found the best arm adds O(log T) there; one
    stuck on a worse arm adds a constant per round."""
    return late >= FAILURE_SLOPE * smallest_gap * rounds


def _percent(fraction: float) -> str:
    return f"{100 * fraction:g} %"


def tie_rule(
    confidence: float = STATISTICS["confidence"], tie_margin: float = STATISTICS["tie_margin"]
) -> str:
    """The tie rule in words, at a figure's ``confidence`` and ``tie_margin`` (``statistics``)."""
    return (
        f"tied-best: the upper end of the {_percent(confidence)} simultaneous interval of its mean "
        f"regret minus {1 + tie_margin:g} times the setting's lowest true mean regret (a "
        "balanced studentized paired bootstrap over every pair of algorithms, each pair at one "
        "marginal level, so that the best "
        "and the equivalence margin, "
        f"{_percent(tie_margin)} of the lowest mean, are estimated too) is at most 0; worse: the "
        "lower end is above 0; inconclusive otherwise. The sample best is judged like the others"
    )


def precision_rule(precision: float = STATISTICS["precision"]) -> str:
    """The precision target in words, at a figure's ``precision``."""
    return (
        "precise: the half-width of the paired-bootstrap interval of its difference from the "
        f"setting's lowest mean regret is at most {_percent(precision)} of that lowest"
    )


def failure_rule() -> str:
    """The failure rule in words."""
    return (
        "a run has failed when its pseudo-regret grew, from the last checkpoint at or before half "
        f"the horizon to the horizon, by at least {FAILURE_SLOPE:g} times the smallest gap per "
        "round: it still played worse arms at a linear rate"
    )


TIE_RULE = tie_rule()
"""The tie rule at the default ``STATISTICS``."""
PRECISION_RULE = precision_rule()
"""The precision target at the default ``STATISTICS``."""
FAILURE_RULE = failure_rule()
"""The failure rule."""


def blocks() -> dict[str, str]:
    """The rules as the docs quote them (``quoted``): one sentence each, at the defaults."""
    return {
        name: rule[0].upper() + rule[1:] + "."
        for name, rule in (
            ("arena-tie-rule", TIE_RULE),
            ("arena-precision-rule", PRECISION_RULE),
            ("arena-failure-rule", FAILURE_RULE),
        )
    }
