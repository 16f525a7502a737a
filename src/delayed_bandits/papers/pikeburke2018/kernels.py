"""Compiled kernels for Pike-Burke et al. 2018: ODAAF (Algorithm 1) and QPM-D over
UCB, KL-UCB or Thompson sampling.

Same schedule, estimates, tie-breaking and queue mechanics as the references in
``delayed_bandits.papers.pikeburke2018.policies``; the phase lengths are the reference's own function,
compiled in."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.indices import TS, UCB, klucb_index, thompson_arm
from delayed_bandits.papers.pikeburke2018.policies import samples_required
from delayed_bandits.queues import arrival_lists, enqueue


@njit(cache=True)
def _play(
    t: int,
    arm: int,
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    aggregate: np.ndarray,
    actions: np.ndarray,
) -> None:
    actions[t - 1] = arm
    d = delays[t - 1, arm]
    if uniforms[t - 1, arm] < mu[arm] and d <= aggregate.shape[0] - 1 - t:
        aggregate[t + d] += 1.0


@njit(cache=True)
def odaaf(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    variant: int,
    mean: float,
    var: float,
    bound: float,
    constants: np.ndarray,
    bridge: bool,
    bridge_leader: bool,
    actions: np.ndarray,
    events: np.ndarray,
) -> int:
    """ODAAF / ODAAF-B / ODAAF-V. Fills ``actions`` and one row of ``events`` per completed phase
    (m, Step 1 end, bridge end or -1, active arms, eliminated bitmask); returns the row count.
    ``constants`` = (a, b, odaaf, bounded, variance, variance_weight) of ``PhaseConstants``."""
    horizon, n_arms = uniforms.shape
    aggregate = np.zeros(horizon + 1)
    active = np.ones(n_arms, dtype=np.bool_)
    n_samples = np.zeros(n_arms, dtype=np.int64)
    # T_j(m) as a list of rounds per arm; at most `horizon` rounds in all.
    rounds = np.zeros((n_arms, horizon), dtype=np.int64)
    means = np.zeros(n_arms)
    t = 0  # rounds played so far
    tolerance = 0.5
    previous = 0
    m = 1
    n_events = 0
    while t < horizon:
        needed = max(
            samples_required(
                m,
                horizon,
                variant,
                mean,
                var,
                bound,
                constants[0],
                constants[1],
                constants[2],
                constants[3],
                constants[4],
                constants[5],
            ),
            previous + 1,
        )
        for j in range(n_arms):
            if not active[j]:
                continue
            while n_samples[j] < needed and t < horizon:
                t += 1
                _play(t, j, mu, uniforms, delays, aggregate, actions)
                rounds[j, n_samples[j]] = t
                n_samples[j] += 1
        unfinished = False
        for j in range(n_arms):
            if active[j] and n_samples[j] < needed:
                unfinished = True
        if unfinished:
            break
        step1_end = t
        best = -math.inf
        for j in range(n_arms):
            if active[j]:
                total = 0.0
                for i in range(n_samples[j]):
                    total += aggregate[rounds[j, i]]
                means[j] = total / n_samples[j]
                best = max(best, means[j])
        eliminated = 0
        n_active = 0
        for j in range(n_arms):
            if active[j]:
                if means[j] + tolerance < best:
                    active[j] = False
                    eliminated |= 1 << j
                else:
                    n_active += 1
        tolerance /= 2.0
        bridge_end = -1
        if bridge:
            arm = -1
            for j in range(n_arms):
                if active[j] and (arm < 0 or (bridge_leader and means[j] > means[arm])):
                    arm = j
            for _ in range(needed - previous):
                if t >= horizon:
                    break
                t += 1
                _play(t, arm, mu, uniforms, delays, aggregate, actions)
            bridge_end = t
        if n_events < events.shape[0]:
            events[n_events, 0] = m
            events[n_events, 1] = step1_end
            events[n_events, 2] = bridge_end
            events[n_events, 3] = n_active
            events[n_events, 4] = eliminated
            n_events += 1
        previous = needed
        m += 1
    return n_events


@njit(cache=True)
def _qpmd_request(
    base: int,
    coefficient: float,
    counts: np.ndarray,
    sums: np.ndarray,
    means: np.ndarray,
    n: float,
    rng: np.random.Generator,
) -> int:
    """The base's next request (``policies.UCBBase``, ``KLUCBBase``, ``TSBase``): UCB and KL-UCB
    first take the lowest arm never updated."""
    if base == TS:
        return thompson_arm(sums, counts, rng)
    n_arms = counts.shape[0]
    arm = 0
    best = -math.inf
    for j in range(n_arms):
        if counts[j] == 0.0:
            return j
    if base == UCB:
        bonus = coefficient * math.log(n)
        for j in range(n_arms):
            index = means[j] + math.sqrt(bonus / counts[j])
            if index > best:
                best = index
                arm = j
    else:
        f = math.log(n)
        for j in range(n_arms):
            index = klucb_index(means[j], counts[j], f, best)
            if index > best:
                best = index
                arm = j
    return arm


@njit(cache=True)
def qpmd(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    actions: np.ndarray,
    coefficient: float,
    base: int,
    rng: np.random.Generator,
) -> None:
    """QPM-D over a base (``indices.INDEX_CODES``: UCB with bonus sqrt(coefficient log n / N), 2
    being UCB1's; KL-UCB at log n; Beta(1, 1) TS drawing from ``rng``): per-arm FIFO queues of
    arrived rewards feed the base on its own clock; the first request with an empty queue is
    played and stands until it is fed. Fills ``actions``. KL-UCB stops an arm's search once it
    is below the best index so far (``klucb_index``'s ``bar``), which cannot change the argmax."""
    horizon, n_arms = uniforms.shape
    head, tail, link = arrival_lists(horizon)
    queue = np.zeros((n_arms, horizon))  # FIFO of rewards per arm
    q_head = np.zeros(n_arms, dtype=np.int64)
    q_tail = np.zeros(n_arms, dtype=np.int64)
    reward_of = np.zeros(horizon + 1)
    counts = np.zeros(n_arms)
    sums = np.zeros(n_arms)
    # The base's means S_j / N_j, recomputed only for the arm that changed, and its clock n = sum
    # of N_j kept as a running total (exact: whole numbers), on the same numbers as the reference.
    means = np.zeros(n_arms)
    n = 0.0
    arm = _qpmd_request(base, coefficient, counts, sums, means, n, rng)
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            a = actions[s - 1]
            queue[a, q_tail[a]] = reward_of[s]
            q_tail[a] += 1
            s = link[s]
        while q_head[arm] < q_tail[arm]:
            counts[arm] += 1.0
            sums[arm] += queue[arm, q_head[arm]]
            means[arm] = sums[arm] / counts[arm]
            n += 1.0
            q_head[arm] += 1
            arm = _qpmd_request(base, coefficient, counts, sums, means, n, rng)
        actions[t - 1] = arm
        reward_of[t] = 1.0 if uniforms[t - 1, arm] < mu[arm] else 0.0
        d = delays[t - 1, arm]
        if d <= horizon - t - 1:
            enqueue(head, tail, link, t + d + 1, t)
