"""The arena's statistical rules, each applied and worded once: the tie rule (a cell is
*tied-best*, *worse* or *inconclusive* against its setting's best, ``verdict``) and the precision
target (``precise``). Every caption, schema description, notebook and document that states a rule
reads or quotes its wording here (``tie_rule``, ``precision_rule``), so that changing a rule
changes this module and the blocks ``delayed-bandits quote --write`` rewrites
(``tests/docs/test_rules_said_once.py`` fails on a rule restated in other words).

Kept apart from ``leaderboard`` (which applies the rules to a run's replications) so that the
package's figure kinds can word their captions from it without importing pandas."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

STATISTICS = {"resamples": 2000, "confidence": 0.95, "tie_margin": 0.1, "precision": 0.1}
"""Defaults of the figure key ``statistics`` (schema.yaml says what each means; ``leaderboard``
and the docs read them from here)."""
TIED, WORSE, INCONCLUSIVE = "tied-best", "worse", "inconclusive"


def statistics(fig: Mapping[str, Any]) -> dict[str, float]:
    """The figure's ``statistics`` key over the defaults (``STATISTICS``)."""
    return {**STATISTICS, **fig.get("statistics", {})}


def tied(upper: Any, margin: Any) -> Any:
    """Whether a difference from the best whose interval ends at ``upper`` is shown to be within
    the equivalence ``margin``: the tie rule (``tie_rule``), with whatever interval the caller
    has (``leaderboard.compare``'s percentile interval, the normal approximation within each
    resample of ``leaderboard._tie_share``)."""
    return upper <= margin


def verdict(lower: Any, upper: Any, margin: Any) -> np.ndarray:
    """The tie rule (``tie_rule``) on a difference interval [``lower``, ``upper``]: ``TIED`` when
    it is shown within the ``margin``, ``WORSE`` when shown beyond it, else ``INCONCLUSIVE``."""
    return np.where(tied(upper, margin), TIED, np.where(lower > margin, WORSE, INCONCLUSIVE))


def precise(lower: Any, upper: Any, best: Any, precision: float) -> Any:
    """The precision target (``precision_rule``): the half-width of a difference interval
    [``lower``, ``upper``] at most ``precision`` times the ``best``'s mean regret."""
    return (upper - lower) / 2 <= precision * best


def _percent(fraction: float) -> str:
    return f"{100 * fraction:g} %"


def tie_rule(
    confidence: float = STATISTICS["confidence"], tie_margin: float = STATISTICS["tie_margin"]
) -> str:
    """The tie rule in words, at a figure's ``confidence`` and ``tie_margin`` (``statistics``)."""
    return (
        f"tied-best: the upper end of the {_percent(confidence)} paired-bootstrap interval of "
        f"its difference from the setting's lowest mean regret is within the equivalence margin, "
        f"{_percent(tie_margin)} of that lowest; worse: the lower end is above the margin; "
        "inconclusive otherwise"
    )


def precision_rule(precision: float = STATISTICS["precision"]) -> str:
    """The precision target in words, at a figure's ``precision``."""
    return (
        "precise: the half-width of the paired-bootstrap interval of its difference from the "
        f"setting's lowest mean regret is at most {_percent(precision)} of that lowest"
    )


TIE_RULE = tie_rule()
"""The tie rule at the default ``STATISTICS``."""
PRECISION_RULE = precision_rule()
"""The precision target at the default ``STATISTICS``."""


def blocks() -> dict[str, str]:
    """The rules as the docs quote them (``quoted``): one sentence each, at the defaults."""
    return {
        "arena-tie-rule": TIE_RULE[0].upper() + TIE_RULE[1:] + ".",
        "arena-precision-rule": PRECISION_RULE[0].upper() + PRECISION_RULE[1:] + ".",
    }
