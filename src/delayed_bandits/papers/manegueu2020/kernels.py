"""Compiled kernel for Manegueu et al. 2020: Patient Bandits and Adapt-Patient, one replication.

Same choices as ``delayed_bandits.papers.manegueu2020.policies.PatientPolicy`` (index, estimates and
window functions are the reference's own, compiled in). What differs is bookkeeping: arrivals are
bucketed by the round they become usable, and the alpha estimator's counts
#{s <= t - D_t : I_s = k, C_s = 1, D_s <= B} for B in {D_t, d_t} are kept for every arm and
updated as t - D_t, D_t and d_t grow (none of them ever decreases), so no round rescans history.

Cost, per round: O(1) per arrival, the argmax over K cached indices, and an index (a sqrt and a
pow) for the played arm and each arm with an arrival only. An arm's index is a function of its
(seen, pulls) and of min(alpha, 1/2), log(2 K T^3) being fixed, so a cached one is the value the
reference recomputes; all K are recomputed when min(alpha_t, 1/2) changes, which it does not
while alpha_t stays at alpha_low (with the default lower confidence constant, 24, it stayed there
in every arena setting at T = 100000). Adapt-Patient's (D_t, d_t) are recomputed when T_bar
changes and ``alpha_estimates`` (three logs) when its inputs change: when the most pulled arm
changes, is played or gains a counted conversion. At K = 10 (the arena's bench setting,
T = 5000) the kernels run at about 13M (Patient) and 11M (Adapt-Patient) agent-steps/s; through
their runners (``delayed-bandits bench --paper arena``) at about 5.5M, most of the rest being the
runners' per-replication work (building the trace's DataFrame alone takes 0.4 ms).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.papers.manegueu2020.policies import alpha_estimates, patient_index, windows
from delayed_bandits.queues import arrival_lists, enqueue, record


@njit(cache=True)
def _raise_threshold(
    old: int,
    new: int,
    counts: np.ndarray,
    upto: int,
    by_delay: np.ndarray,
    next_same: np.ndarray,
    actions: np.ndarray,
) -> None:
    """Count the converted pulls s <= ``upto`` whose delay is in (old, new]."""
    for value in range(old + 1, new + 1):
        s = by_delay[value]
        while s > 0:
            if s <= upto:
                counts[actions[s - 1]] += 1.0
            s = next_same[s]


@njit(cache=True)
def patient(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    alpha_tilde: float,
    adaptive: bool,
    adapt: np.ndarray,
    checkpoints: np.ndarray,
    actions: np.ndarray,
    trace: np.ndarray,
) -> np.ndarray:
    """Patient Bandits (``adaptive`` False, tail parameter ``alpha_tilde``) or Adapt-Patient
    (``adapt`` = (alpha_low, c, mu_low, lcb_constant, window_alpha, lower_confidence as 1 or 0)).
    Fills ``actions`` and, for Adapt-Patient, ``trace[i] = (t, alpha_hat_t, alpha_t,
    m_{t,D_t} - m_{t,d_t})`` at each checkpoint (the difference NaN before the first estimate);
    returns the pseudo-regret at the checkpoints."""
    horizon, n_arms = uniforms.shape
    log_term = math.log(2.0 * n_arms * float(horizon) ** 3)
    best = mu.max()
    pulls = np.zeros(n_arms)
    seen = np.zeros(n_arms)
    head, tail, link = arrival_lists(horizon)
    # An arm's index is a function of (seen, pulls, min(alpha, 1/2)) only (log_term is fixed), so
    # it is cached and recomputed when one of them changes: the played arm, the arms with
    # arrivals, all arms when min(alpha_t, 1/2) moves.
    index = np.empty(n_arms)
    stale = np.ones(n_arms, dtype=np.bool_)
    exponent = -1.0  # min(alpha, 1/2) of the cached indices (all stale at first)
    # alpha estimator: converted pulls by delay value (values <= horizon can ever count)
    by_delay = np.full(horizon + 1, -1, dtype=np.int64)
    next_same = np.full(horizon + 1, -1, dtype=np.int64)
    count_big = np.zeros(n_arms)
    count_small = np.zeros(n_arms)
    upto = 0  # pulls s <= upto are in the counts
    big = 0
    small = 0
    top = 0  # the most pulled arm, lowest index on ties
    windows_of = 0  # T_bar at which (big, small) were computed
    # alpha_estimates is a function of (diff, T_bar) only: recomputed when either changes
    estimated_diff = math.nan
    estimated_pulls = 0.0
    alpha_hat = alpha_tilde
    alpha_t = alpha_tilde
    out = np.zeros(checkpoints.shape[0])
    regret = 0.0
    ci = 0
    initial = n_arms * (2 if adaptive else 1)
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            a = actions[s - 1]
            seen[a] += 1.0
            stale[a] = True
            s = link[s]
        if adaptive:
            if pulls[top] >= 2.0:
                top_pulls = int(pulls[top])
                if top_pulls != windows_of:
                    windows_of = top_pulls
                    new_big, new_small = windows(top_pulls, adapt[1], adapt[4])
                    _raise_threshold(
                        big, min(new_big, horizon), count_big, upto, by_delay, next_same, actions
                    )
                    _raise_threshold(
                        small,
                        min(new_small, horizon),
                        count_small,
                        upto,
                        by_delay,
                        next_same,
                        actions,
                    )
                    big, small = new_big, new_small
                while upto < t - big:
                    upto += 1
                    a = actions[upto - 1]
                    if uniforms[upto - 1, a] < mu[a]:
                        d = delays[upto - 1, a]
                        if d <= big:
                            count_big[a] += 1.0
                        if d <= small:
                            count_small[a] += 1.0
                diff = (count_big[top] - count_small[top]) / pulls[top]
                if diff != estimated_diff or pulls[top] != estimated_pulls:
                    estimated_diff = diff
                    estimated_pulls = pulls[top]
                    alpha_hat, alpha_t = alpha_estimates(
                        diff,
                        pulls[top],
                        log_term,
                        adapt[0],
                        adapt[1],
                        adapt[2],
                        adapt[3],
                        adapt[5] != 0.0,
                    )
            if ci < checkpoints.shape[0] and checkpoints[ci] == t:
                trace[ci, 0] = t
                trace[ci, 1] = alpha_hat
                trace[ci, 2] = alpha_t
                trace[ci, 3] = estimated_diff
        if t <= initial:
            arm = (t - 1) % n_arms
        else:
            alpha = alpha_t if adaptive else alpha_tilde
            if min(alpha, 0.5) != exponent:
                exponent = min(alpha, 0.5)
                stale[:] = True
            arm = 0
            best_index = -math.inf
            for k in range(n_arms):
                if stale[k]:
                    index[k] = patient_index(seen[k] / pulls[k], pulls[k], alpha, log_term)
                    stale[k] = False
                if index[k] > best_index:
                    best_index = index[k]
                    arm = k
        actions[t - 1] = arm
        pulls[arm] += 1.0
        stale[arm] = True
        if pulls[arm] > pulls[top] or (pulls[arm] == pulls[top] and arm < top):
            top = arm
        regret += best - mu[arm]
        ci = record(t, regret, checkpoints, out, ci)
        if uniforms[t - 1, arm] < mu[arm]:
            d = delays[t - 1, arm]
            if d <= horizon - t:  # usable from round t + max(d, 1), if that round exists
                enqueue(head, tail, link, t + max(d, 1), t)
            if d <= horizon:
                next_same[t] = by_delay[d]
                by_delay[d] = t
    return out
