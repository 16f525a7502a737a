"""Compiled kernel for Vernade et al. 2020: OTFLinUCB (Algorithm 1) and OTFLinTS (Algorithm 2),
one replication per call.

Same policies, timing, arithmetic and tie-breaking as ``delayed_bandits.papers.vernade2020.policies`` (the
readable reference, whose formula functions are compiled in with ``register_jitable``); the kernel
differs only in its bookkeeping: conversions are bucketed by the round they become usable, the
window of the last m actions is read from the history of played indices, and the stored scalars
live in a ring buffer. Per round: O(K d²) for the indices, O(d²) for Sherman-Morrison, O(d³) for
the Cholesky factor of OTFLinTS (d = 5), and for the paper width's exact window sum O(m) plus
one O(d²) norm per distinct action in the window (see ``_distinct_action``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.papers.vernade2020.policies import (arrival_round, cholesky, code_radius,
                                                   confidence_radius, dot, mat_vec, perturb,
                                                   quad_form, sherman_morrison, slide)


@njit(cache=True)
def _push(ring: np.ndarray, n_stored: int, total: float, value: float) -> float:
    """Store the scalar of the round: the oldest of the last m leaves once m are stored."""
    slot = n_stored % ring.shape[0]
    total = slide(total, ring[slot] if n_stored >= ring.shape[0] else 0.0, value)
    ring[slot] = value
    return total


# Actions whose nonzero entries form one pattern share a slot in the exact window sum's cache
# only up to this dimension (2^d slots).
MAX_PATTERN_DIMENSION = 12


@njit(cache=True)
def _distinct_action(action: np.ndarray, representatives: np.ndarray, seen: np.ndarray) -> int:
    """The cache slot of ``action`` in the exact window sum, or -1 for none.

    The paper's action sets are normalised {0,1}^d vectors, so a window of m = 2000 past actions
    holds at most 2^d - 1 distinct ones: their norms ||A_s||_{V_t^-1} are computed once per round
    instead of m times. The slot is the action's pattern of nonzero entries, and it is shared only
    by actions equal to its first holder entry for entry, so every cached norm is the very number
    the reference computes and the sum (in the same order) is bit-identical."""
    if representatives.shape[0] == 0:
        return -1
    pattern = 0
    for i in range(action.shape[0]):
        if action[i] != 0.0:
            pattern |= 1 << i
    if not seen[pattern]:
        seen[pattern] = True
        representatives[pattern] = action
        return pattern
    for i in range(action.shape[0]):
        if action[i] != representatives[pattern, i]:
            return -1
    return pattern


@njit(cache=True)
def otf_lin(action_sets: np.ndarray, uniforms: np.ndarray, delays: np.ndarray,
            theta: np.ndarray, window: int, lam: float, delta: float, thompson: bool,
            code: bool, exact: bool, sigma0: float, normals: np.ndarray,
            checkpoints: np.ndarray, chosen: np.ndarray, trace: np.ndarray) -> None:
    """OTFLinUCB (``thompson`` false) or OTFLinTS, with the paper's widths or (``code``) the
    authors' code's; ``exact`` selects the exact window sum of the paper width. Fills ``chosen``
    (the index played in each round's action set) and ``trace`` (rows t, width, window sum,
    conversions observed, at ``checkpoints``). OTFLinTS draws θ̃_t from ``normals[t-1]``."""
    horizon, n_actions, d = action_sets.shape
    v_inv = np.eye(d) / lam  # V_1(λ)^-1
    code_cov = np.eye(d)  # the code's OTFLinTS matrix M, from the identity
    c, c_sum = math.nan, 0.0
    b = np.zeros(d)
    theta_hat = np.zeros(d)
    sample = np.zeros(d)
    lower = np.zeros((d, d))
    scratch = np.zeros(d)
    # stored scalars of the last m rounds: a ring buffer and its running sum
    ring = np.zeros(window)
    n_stored = 0
    stored_total = 0.0
    # conversions usable at round t form a list in play order: head[t], link[head[t]], ...
    head = np.full(horizon + 2, -1, dtype=np.int64)
    tail = np.full(horizon + 2, -1, dtype=np.int64)
    link = np.full(horizon + 1, -1, dtype=np.int64)
    observed = 0
    ci = 0
    # the exact window sum's cache: slot of each played action, and each slot's norm this round
    exact_sum = exact and not code
    slots = 1 << d if exact_sum and d <= MAX_PATTERN_DIMENSION else 0
    representatives = np.zeros((slots, d))
    seen = np.zeros(slots, dtype=np.bool_)
    norm_round = np.zeros(slots, dtype=np.int64)
    norm = np.zeros(slots)
    slot_of = np.full(horizon, -1, dtype=np.int64)
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            past = action_sets[s - 1, chosen[s - 1]]
            for i in range(d):
                b[i] += past[i]
            observed += 1
            s = link[s]
        if exact_sum:
            window_sum = 0.0
            for s in range(max(1, t - window), t):
                slot = slot_of[s - 1]
                if slot < 0:
                    window_sum += math.sqrt(quad_form(v_inv, action_sets[s - 1, chosen[s - 1]]))
                    continue
                if norm_round[slot] != t:
                    norm[slot] = math.sqrt(quad_form(v_inv, representatives[slot]))
                    norm_round[slot] = t
                window_sum += norm[slot]
        else:
            window_sum = stored_total
        best = 0
        if not thompson:
            mat_vec(v_inv, b, theta_hat)
            if code:
                width = code_radius(t, d, lam, delta) + window_sum
            else:
                width = 2.0 * confidence_radius(t, d, lam, delta) + window_sum
            best_index = -math.inf
            for k in range(n_actions):
                a = action_sets[t - 1, k]
                norm_sq = quad_form(v_inv, a)
                bonus = norm_sq if code else math.sqrt(norm_sq)
                index = dot(a, theta_hat) + width * bonus
                if index > best_index:
                    best_index = index
                    best = k
        else:
            if code:
                width, window_sum = c, c_sum
                mat_vec(code_cov, b, theta_hat)
                cholesky(code_cov, lower)
                perturb(theta_hat, lower, normals[t - 1], 1.0, sample)
            else:
                mat_vec(v_inv, b, theta_hat)
                width = 1.0 + window_sum / confidence_radius(t, d, lam, delta)
                cholesky(v_inv, lower)
                perturb(theta_hat, lower, normals[t - 1], math.sqrt(width), sample)
            best_value = -math.inf
            for k in range(n_actions):
                value = dot(action_sets[t - 1, k], sample)
                if value > best_value:
                    best_value = value
                    best = k
        chosen[t - 1] = best
        action = action_sets[t - 1, best]
        if exact_sum:
            slot_of[t - 1] = _distinct_action(action, representatives, seen)
        # the scalar stored for this round, before or after the update as in the reference
        store = False
        value = 0.0
        if code and not thompson:
            store, value = True, quad_form(v_inv, action)
        elif not code and not exact:
            store, value = True, math.sqrt(quad_form(v_inv, action))
        if store:
            stored_total = _push(ring, n_stored, stored_total, value)
            n_stored += 1
        sherman_morrison(v_inv, action, scratch)
        if code and thompson:
            c_sum = stored_total
            c = sigma0 + c_sum
            for i in range(d):
                for j in range(d):
                    code_cov[i, j] = v_inv[i, j] / c
            stored_total = _push(ring, n_stored, stored_total, quad_form(code_cov, action))
            n_stored += 1
        if ci < checkpoints.shape[0] and checkpoints[ci] == t:
            trace[ci, 0] = t
            trace[ci, 1] = width
            trace[ci, 2] = window_sum
            trace[ci, 3] = observed
            ci += 1
        due = arrival_round(t, delays[t - 1], window, horizon)
        if uniforms[t - 1] < dot(action, theta) and due > 0:
            if head[due] < 0:
                head[due] = t
            else:
                link[tail[due]] = t
            tail[due] = t
