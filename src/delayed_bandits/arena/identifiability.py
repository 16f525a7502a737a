"""Whether a learner of the conversions can find an arena problem's best arm at all, and how the
figures and claims say it (docs/decisions/arena.md#identifiable).

Under censoring at m (Vernade et al. 2017, Section 2) a conversion later than m never arrives, so
however long it plays a learner sees arm a convert at rate mu_a tau_a(m), tau_a(m) = P(D_a <= m).
Under one delay law for all arms tau(m) scales every arm alike and keeps their order; under
arm-dependent laws it can reverse it (the best arm's conversions arriving later than the
others'), and then the conversions point at another arm for ever: only a learner told each arm's
own CDF could undo the scaling. Without censoring every conversion arrives in the end, so the
rates a patient learner sees are mu itself.

Kept apart from ``problem`` (which computes the rates, ``Setting.observed_means``) so that the
package's figure kinds can word their captions from it without importing the papers."""

from __future__ import annotations

import numpy as np

MARK = "§"
"""Marks a regime on the heatmap where its setting is not identifiable."""
UNIDENTIFIABLE = (
    "unidentifiable from the conversions within m: another arm's observed rate μ τ(m) is at "
    "least the best arm's, so no learner that is not told each arm's own delay CDF can find the "
    "best arm"
)
"""What a setting that is not identifiable is, in the words of the figures and the claims."""


def identifiable(mu: np.ndarray, observed: np.ndarray) -> bool:
    """Whether every arm of highest ``observed`` rate is an arm of highest mean ``mu``: the
    conversions then point at a best arm. A tie of observed rates between a best arm and another
    counts as unidentifiable: no number of conversions separates the two."""
    best = set(np.flatnonzero(mu == mu.max()))
    return set(np.flatnonzero(observed == observed.max())) <= best
