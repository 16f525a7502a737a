"""Screen, then contend: the arena's two-stage design (docs/decisions/arena.md#screening).

Stage 1, the screen: the first ``screen_runs`` replications of every entrant in a setting. An
entrant stops there when the screen shows it *worse* (beyond the tie margin of some other
entrant, ``screen``): a one-sided paired t-test of g_ab = mu_a - (1 + tie_margin) mu_b > 0
against every other entrant b, each at alpha_1 / (k - 1) (Bonferroni over a's k - 1
comparators), so that a cell tied-best in the tie rule's sense is stopped with probability at most
alpha_1 (each of its g_ab is at most 0). The entrants a named claim compares (``keep``) are never
stopped.

Stage 2, the contest: the contenders (those not stopped) run the replications ``screen_runs``
.. ``replications`` - 1 of the same seeds, so that a run of stage 2 is bit for bit the same
replication of a one-stage run (a replication's draws depend on its setting and index alone,
``seeds``), and the tie rule (``ties.excess``) decides on all their runs pooled, stage 1's
included, among the contenders alone (the family is the contender set, not every entrant), at
the one-sided level alpha_2 (``final_confidence``).

The boundary is fixed before the run (``spend``): of the one-sided error alpha = (1 -
confidence) / 2 that the tie rule states, the screen spends alpha_1 = alpha ln(1 + (e - 1) t),
Lan and DeMets's (1983) Pocock-type spending function at the information fraction t =
screen_runs / replications, and the final look the rest, alpha_2 = alpha - alpha_1. A wrong
verdict needs a screen error (a tied-best cell stopped, or the true best stopped so that
the contest's best is not the setting's) or a final-look error, so the two add up to at most
alpha (Bonferroni over the looks; conservative, as the looks share the first-stage runs). At
10 of 80 runs alpha_1 = 0.0049 and alpha_2 = 0.0201 at confidence 0.95: the screen only has to
stop the entrants many times the best, and the final look keeps almost the whole error for the
close calls; at the citable run's 10 of 30, alpha_1 = 0.0113 and alpha_2 = 0.0137. The
contest's intervals are computed for the contender set the screen chose from the same runs, so
their level is not exact; ``tests/arena/test_screening.py``
measures the whole procedure's false-tie rate and power in simulation.
"""

from __future__ import annotations

import math
from typing import Collection

import numpy as np
from scipy import stats as sps

from delayed_bandits.arena.ties import WORSE, excess, verdict


def spend(confidence: float, first: int, total: int) -> tuple[float, float]:
    """(alpha_1, alpha_2): the one-sided error (1 - confidence) / 2 split over the screen at
    ``first`` of ``total`` runs and the final look, by the Pocock-type spending function
    alpha ln(1 + (e - 1) t) at t = first / total (Lan and DeMets 1983); (0, alpha) when there
    is no screen (first = total)."""
    alpha = (1 - confidence) / 2
    if first >= total:
        return 0.0, alpha
    alpha_1 = alpha * math.log(1 + (math.e - 1) * first / total)
    return alpha_1, alpha - alpha_1


def final_confidence(confidence: float, first: int, total: int) -> float:
    """The two-sided confidence of the final look's simultaneous interval, whose each end keeps
    alpha_2 (``spend``)."""
    return 1 - 2 * spend(confidence, first, total)[1]


def screen(
    runs: np.ndarray, tie_margin: float, alpha_1: float, keep: Collection[int] = ()
) -> np.ndarray:
    """The contenders among the columns of ``runs`` (the screen's replications x a setting's
    applicable entrants, paired): True where the entrant goes on. Column a stops when, against
    some other column b, the one-sided paired t-test of mean(a - (1 + tie_margin) b) > 0
    rejects at ``alpha_1`` / (k - 1); the columns in ``keep`` (those a named claim compares)
    never stop. Paired differences with no spread (runs identical up to a constant) are decided
    by their sign. With fewer than two runs, or ``alpha_1`` 0, nothing stops."""
    n, k = runs.shape
    go = np.ones(k, bool)
    if n < 2 or k < 2 or alpha_1 <= 0:
        return go
    d = runs[:, :, None] - (1 + tie_margin) * runs[:, None, :]
    mean = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    scale = np.abs(d).max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(
            sd > 1e-9 * scale,
            mean / (sd / math.sqrt(n)),
            np.where(mean > 1e-9 * scale, np.inf, -np.inf),
        )
    np.fill_diagonal(t, -np.inf)
    critical = sps.t.ppf(1 - alpha_1 / (k - 1), n - 1)
    go = ~(t > critical).any(axis=1)
    go[list(keep)] = True
    return go


def contest(
    runs: np.ndarray, contenders: np.ndarray, w: np.ndarray, tie_margin: float, confidence: float
) -> dict[str, np.ndarray]:
    """The final look: the tie rule (``ties.excess``) on the pooled ``runs`` (all replications x
    the setting's entrants; only the contenders' columns are read) among the ``contenders``,
    at ``confidence`` (``final_confidence``), ``w`` the pooled runs' paired resamples. Per
    column: ``verdict`` (a stopped entrant is ``WORSE``, decided at the screen, ``stage`` 1;
    a contender's comes from the contest, ``stage`` 2), and ``excess_lo``/``excess_hi``
    (NaN for a stopped entrant)."""
    k = runs.shape[1]
    out = {
        "verdict": np.full(k, WORSE, dtype=object),
        "excess_lo": np.full(k, np.nan),
        "excess_hi": np.full(k, np.nan),
        "stage": np.ones(k, int),
    }
    idx = np.flatnonzero(contenders)
    _, lower, upper = excess(runs[:, idx], w, tie_margin, confidence)
    out["verdict"][idx] = verdict(lower, upper)
    out["excess_lo"][idx], out["excess_hi"][idx] = lower, upper
    out["stage"][idx] = 2
    return out


def two_stage(
    runs: np.ndarray,
    first: int,
    w: np.ndarray,
    tie_margin: float,
    confidence: float,
    keep: Collection[int] = (),
) -> dict[str, np.ndarray]:
    """The whole procedure on one setting's ``runs`` (replications x entrants, as a one-stage
    run would have them: the stopped entrants' later rows are never read): the screen on the
    first ``first`` rows (``screen``), the contest on all rows of the contenders (``contest``),
    at the split of ``spend``; ``w`` the resamples of all rows. Adds ``contender`` to
    ``contest``'s columns."""
    total = len(runs)
    alpha_1, _ = spend(confidence, first, total)
    go = screen(runs[:first], tie_margin, alpha_1, keep)
    out = contest(runs, go, w, tie_margin, final_confidence(confidence, first, total))
    out["contender"] = go
    return out
