"""Compiled kernels for Thune et al. 2019: one replication per call.

Same protocol, weights, skipping and epochs as the references in
``delayed_bandits.papers.thune2019.policies``, with the reference's own formulas compiled in
(``register_jitable``): learning rates, eqs. (5)-(6), the weight sum, the inverse-CDF draw and the
multiplicative update. The kernels differ in bookkeeping only: feedback is bucketed by its arrival
round in linked lists kept in increasing order of the round that generated it, and the regret is
accumulated as the game runs (O(K) per round plus one exp per arriving non-zero loss)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.papers.thune2019.policies import (
    doubling_beta,
    doubling_condition,
    draw_arm,
    total_weight,
    truncated_rate,
    weight_factor,
)
from delayed_bandits.queues import enqueue


@njit(cache=True)
def skipper(
    losses: np.ndarray,
    delays: np.ndarray,
    uniforms: np.ndarray,
    rate: float,
    beta: float,
    checkpoints: np.ndarray,
    actions: np.ndarray,
) -> np.ndarray:
    """Skipper(beta, DEW) with DEW's truncated learning rate ``rate`` = eta' (Algorithms 1-2);
    beta = inf is DEW alone. Fills ``actions`` (0-based arms) and returns the regret against the
    best fixed arm in hindsight at ``checkpoints``."""
    return _exponential_weights(losses, delays, uniforms, rate, beta, False, checkpoints, actions)


@njit(cache=True)
def doubling(
    losses: np.ndarray,
    delays: np.ndarray,
    uniforms: np.ndarray,
    checkpoints: np.ndarray,
    actions: np.ndarray,
) -> np.ndarray:
    """Skipper(beta_m, DEW(1/(4e beta_m), beta_m)) tuned by Doubling (Section 4.1, eqs. 5-6).
    Fills ``actions`` and returns the regret at ``checkpoints``."""
    beta = doubling_beta(0, losses.shape[1])
    rate = truncated_rate(1.0 / (4.0 * math.e * beta), beta)
    return _exponential_weights(losses, delays, uniforms, rate, beta, True, checkpoints, actions)


@njit(cache=True)
def _exponential_weights(
    losses: np.ndarray,
    delays: np.ndarray,
    uniforms: np.ndarray,
    rate: float,
    beta: float,
    tuned: bool,
    checkpoints: np.ndarray,
    actions: np.ndarray,
) -> np.ndarray:
    """The game of ``skipper`` and ``doubling``: DEW's round (Algorithm 1: A_t drawn from
    p_t = w_{t-1} / W_{t-1}, each arriving loss of round s multiplying w^{A_s} by
    exp(-eta' l_s^{A_s} / p_s^{A_s})) behind Skipper's filter (Algorithm 2: the feedback of rounds
    with d_s >= beta is never used). With ``tuned``, Doubling's epochs (Section 4.1): round t
    opens epoch m + 1 whenever eq. (6) fails with it added, with a fresh DEW at beta_m of eq. (5)
    (``rate`` and ``beta`` are epoch 0's), and feedback from an earlier epoch is dropped.

    One loop for both rather than a helper for the round that each kernel calls: such a helper,
    compiled in (``register_jitable``, inlined or not), halved the speed of both kernels
    (13M against 25M agent-steps/s at K = 4), while the branch on ``tuned`` costs nothing
    measurable."""
    horizon, n_arms = losses.shape
    log_k = math.log(n_arms)
    w = np.ones(n_arms)
    prob = np.zeros(horizon + 1)  # p_s^{A_s}, by round
    epoch_of = np.zeros(horizon + 1, dtype=np.int64)  # all 0 unless ``tuned``
    arm_loss = np.zeros(n_arms)  # sum_{s <= t} l_s^a
    head = np.full(horizon + 1, -1, dtype=np.int64)
    tail = np.full(horizon + 1, -1, dtype=np.int64)
    link = np.full(horizon + 1, -1, dtype=np.int64)
    out = np.zeros(checkpoints.shape[0])
    m = 0
    omega = 2.0**m
    length = 0
    skipped = 0
    delay_sum = 0.0
    played = 0.0
    ci = 0
    for t in range(1, horizon + 1):
        d = delays[t - 1]
        if tuned:
            while True:  # eq. (6) with round t added, else the next epoch (delay at action time)
                new_skipped = skipped + (1 if d >= beta else 0)
                new_delay_sum = delay_sum + (0.0 if d >= beta else float(d))
                if doubling_condition(new_skipped, length + 1, new_delay_sum, omega, n_arms, log_k):
                    break
                m += 1
                omega = 2.0**m
                beta = doubling_beta(m, n_arms)
                rate = truncated_rate(1.0 / (4.0 * math.e * beta), beta)
                length = 0
                skipped = 0
                delay_sum = 0.0
                w[:] = 1.0
            length += 1
            skipped = new_skipped
            delay_sum = new_delay_sum
            epoch_of[t] = m
        total = total_weight(w)
        arm = draw_arm(w, total, uniforms[t - 1])
        actions[t - 1] = arm
        prob[t] = w[arm] / total
        played += losses[t - 1, arm]
        for a in range(n_arms):
            arm_loss[a] += losses[t - 1, a]
        if ci < checkpoints.shape[0] and checkpoints[ci] == t:
            out[ci] = played - arm_loss.min()
            ci += 1
        # Skipping at play time is Algorithm 2's rule (d_s >= beta) applied early: d_s is fixed.
        # Feedback due at the end of round T or later changes no action.
        if d < beta and d < horizon - t:
            enqueue(head, tail, link, t + d, t)
        s = head[t]
        while s > 0:
            a = actions[s - 1]
            # feedback from an earlier epoch would reach a restarted DEW: dropped; a zero loss
            # multiplies by exp(-0) = 1, exactly
            if epoch_of[s] == m and losses[s - 1, a] > 0.0:
                w[a] *= weight_factor(rate, losses[s - 1, a], prob[s])
            s = link[s]
    return out
