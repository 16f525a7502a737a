"""Compiled kernel for Vernade et al. 2020: OTFLinUCB (Algorithm 1) and OTFLinTS (Algorithm 2),
one replication per call.

Same policies, timing, arithmetic and tie-breaking as ``delayed_bandits.papers.vernade2020.policies`` (the
readable reference, whose formula functions are compiled in with ``register_jitable``, or, for
the K actions of a round, their loops read in place: ``_quad_form``, ``_dot``); the kernel
differs only in its bookkeeping: conversions are bucketed by the round they become usable, the
window of the last m actions is read from the history of played indices, the stored scalars
live in a ring buffer, aᵀV^-1a is computed once for Sherman-Morrison and the stored scalar,
terms that are zero bit for bit are skipped (``_rank_one_update``; the diagonal shortcuts), and
the Cholesky factor of a diagonal V^-1 is updated in its one changed entry.

Cost per round: O(K d²) for the indices (K quadratic forms aᵀV^-1a), O(d²) for θ̂ = V^-1 B and
Sherman-Morrison, O(d³) for the Cholesky factor of OTFLinTS (d = 5 in the paper); on the arena's
canonical basis (d = K, one-hot actions) V^-1 stays diagonal, and these are O(K d), O(d) and
one square root. The paper width's exact window sum adds m dependent additions plus one norm
per distinct action in the window (see ``_distinct_action``).

Floors (the 2-core machine, with another run going; the kernel call alone unless said). On the
arena's bench (K = d = 10) a round still reads the K d action entries, summing all d terms of
each product in the reference's order (OTFLinUCB: a quadratic form and a dot product with θ̂
per action, and K square roots; OTFLinTS: a dot product with θ̃ per action), and takes two
logarithms (f_{t,δ}): about 155 ns for OTFLinUCB (6.5 M rounds/s, was 1.8 M) and 140 ns for
OTFLinTS (7 M/s, was 2.9 M), 20x below uniform play (120 M/s). The bench gets 2.3-2.8 M
agent-steps/s (was 1.2-1.5 M): the runner's Python around the call (the regret of the action
history, the trace's DataFrame, OTFLinTS's normals) costs 1.0-1.5 ms per replication,
200-300 ns per round at T = 5000, more than the kernel, and alone caps it at 3.4-4.8 M. The
exact window sum's m additions are one dependent chain whose order fixes the rounding, about
0.5 ns each: with m = 500 and the 31 norms of d = 5, about 700 ns per round (was 1000).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.papers.vernade2020.policies import (
    arrival_round,
    cholesky,
    code_radius,
    confidence_radius,
    dot,
    mat_vec,
    perturb,
    quad_form,
    slide,
)


@njit(cache=True)
def _push(ring: np.ndarray, n_stored: int, total: float, value: float) -> float:
    """Store the scalar of the round: the oldest of the last m leaves once m are stored."""
    slot = n_stored % ring.shape[0]
    total = slide(total, ring[slot] if n_stored >= ring.shape[0] else 0.0, value)
    ring[slot] = value
    return total


@njit(cache=True, inline="always")
def _finite(x: np.ndarray) -> bool:
    """Whether every entry of ``x`` is finite."""
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return False
    return True


@njit(cache=True)
def _diagonal(m: np.ndarray) -> bool:
    """Whether ``m`` is +0.0 off its diagonal and positive and finite on it."""
    for i in range(m.shape[0]):
        for j in range(m.shape[0]):
            if i == j:
                if not 0.0 < m[i, i] < math.inf:
                    return False
            elif m[i, j] != 0.0 or math.copysign(1.0, m[i, j]) < 0.0:
                return False
    return True


# The diagonal shortcuts below are exact. For m as ``_diagonal`` says and a finite x, each term
# m_ij x_j (j != i) of a row sum is +0.0 · x_j = ±0, and adding ±0 to a sum started at +0.0
# leaves it as it is (in round-to-nearest x + y is -0.0 only if both are, so such a sum never
# is): row i of m x is 0.0 + m_ii x_i, bit for bit. An x that is not finite makes its own term
# of the shortcut not finite (m_ii > 0), so a finite result vouches for x, and the reference's
# loops take over otherwise.
#
# Helpers marked inline="always" are inlined by numba itself: as calls, their array arguments
# would cost more than their loops at d = 5.


@njit(cache=True, inline="always")
def _quad_form(m: np.ndarray, actions: np.ndarray, k: int, diagonal: bool) -> float:
    """``quad_form(m, actions[k])`` bit for bit: the O(d) shortcut while m is diagonal (as
    ``_diagonal`` says) and its result finite, else quad_form's loops, reading the action in
    place (a view per action would cost numba two atomic reference counts, as much as the sums
    at d = 5)."""
    d = m.shape[0]
    total = 0.0
    if diagonal:
        for i in range(d):
            total += actions[k, i] * (0.0 + m[i, i] * actions[k, i])
        if math.isfinite(total):
            return total
        total = 0.0
    for i in range(d):
        row = 0.0
        for j in range(d):
            row += m[i, j] * actions[k, j]
        total += actions[k, i] * row
    return total


@njit(cache=True)
def _dot(actions: np.ndarray, k: int, y: np.ndarray) -> float:
    """``dot(actions[k], y)`` bit for bit: its loop, reading the action in place."""
    total = 0.0
    for i in range(y.shape[0]):
        total += actions[k, i] * y[i]
    return total


@njit(cache=True, inline="always")
def _diagonal_mat_vec(m: np.ndarray, x: np.ndarray, out: np.ndarray) -> bool:
    """``mat_vec(m, x, out)`` for m as ``_diagonal`` says, in O(d), if it returns true (``out``
    finite)."""
    for i in range(x.shape[0]):
        out[i] = 0.0 + m[i, i] * x[i]
    return _finite(out)


@njit(cache=True, inline="always")
def _rank_one_update(
    v_inv: np.ndarray, u: np.ndarray, denominator: float, rows: np.ndarray, no_negative_zero: bool
) -> int:
    """The update of ``sherman_morrison`` given u = V^-1 a and its denominator, bit for bit;
    returns the count of the rows ``rows[:count]`` whose entries, in those columns, it changed.

    A row with u_i = ±0 is skipped when u is finite, the denominator finite and nonzero, and
    ``no_negative_zero`` (V^-1 holds no -0.0): its terms u_i u_j / denominator are ±0, and
    v - (±0) = v unless v = -0.0. The update keeps that property, since x - y is -0.0 only for
    x = -0.0."""
    sparse = no_negative_zero and _finite(u) and math.isfinite(denominator) and denominator != 0.0
    count = 0
    for i in range(u.shape[0]):
        if not sparse or u[i] != 0.0:
            rows[count] = i
            count += 1
    for p in range(count):
        i = rows[p]
        for q in range(count):
            j = rows[q]
            v_inv[i, j] -= u[i] * u[j] / denominator
    return count


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
def otf_lin(
    action_sets: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    theta: np.ndarray,
    window: int,
    lam: float,
    delta: float,
    thompson: bool,
    code: bool,
    exact: bool,
    sigma0: float,
    normals: np.ndarray,
    checkpoints: np.ndarray,
    chosen: np.ndarray,
    trace: np.ndarray,
) -> None:
    """OTFLinUCB (``thompson`` false) or OTFLinTS, with the paper's widths or (``code``) the
    authors' code's; ``exact`` selects the exact window sum of the paper width. Fills ``chosen``
    (the index played in each round's action set) and ``trace`` (rows t, width, window sum,
    conversions observed, at ``checkpoints``). OTFLinTS draws θ̃_t from ``normals[t-1]``."""
    horizon, n_actions, d = action_sets.shape
    v_inv = np.eye(d) / lam  # V_1(λ)^-1
    no_negative_zero = not lam < 0.0  # 0/λ is -0.0 only for λ < 0
    diagonal = _diagonal(v_inv)  # kept up to date by each update, or false for good
    code_cov = np.eye(d)  # the code's OTFLinTS matrix M, from the identity
    c, c_sum = math.nan, 0.0
    b = np.zeros(d)
    theta_hat = np.zeros(d)
    sample = np.zeros(d)
    lower = np.zeros((d, d))
    # while V^-1 is diagonal, lower is its Cholesky factor but for the diagonal entry the last
    # update changed (``changed``, or -1 for none)
    lower_diagonal = False
    changed = -1
    z = np.zeros(d)
    played = np.zeros(d)
    u = np.zeros(d)
    rows = np.zeros(d, dtype=np.int64)
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
    # the exact window sum's cache: slot of each played action, each slot's norm this round, how
    # many rounds of the window hold it, the slots the window holds (a list, with each slot's
    # place in it), and how many of its rounds have no slot
    exact_sum = exact and not code
    slots = 1 << d if exact_sum and d <= MAX_PATTERN_DIMENSION else 0
    representatives = np.zeros((slots, d))
    seen = np.zeros(slots, dtype=np.bool_)
    norm = np.zeros(slots)
    in_window = np.zeros(slots, dtype=np.int64)
    present = np.zeros(slots, dtype=np.int64)
    place = np.zeros(slots, dtype=np.int64)
    n_present = 0
    uncached = 0
    slot_of = np.full(horizon, -1, dtype=np.int64)
    for t in range(1, horizon + 1):
        actions = action_sets[t - 1]
        s = head[t]
        while s > 0:
            for i in range(d):
                b[i] += action_sets[s - 1, chosen[s - 1], i]
            observed += 1
            s = link[s]
        if not (thompson and code) and not (diagonal and _diagonal_mat_vec(v_inv, b, theta_hat)):
            mat_vec(v_inv, b, theta_hat)
        if exact_sum:
            if t >= 2:  # round t - 1 enters the window
                slot = slot_of[t - 2]
                if slot < 0:
                    uncached += 1
                else:
                    if in_window[slot] == 0:
                        present[n_present] = slot
                        place[slot] = n_present
                        n_present += 1
                    in_window[slot] += 1
            if t - 1 - window >= 1:  # round t - 1 - m leaves
                slot = slot_of[t - 2 - window]
                if slot < 0:
                    uncached -= 1
                else:
                    in_window[slot] -= 1
                    if in_window[slot] == 0:
                        n_present -= 1
                        present[place[slot]] = present[n_present]
                        place[present[n_present]] = place[slot]
            for p in range(n_present):
                slot = present[p]
                norm[slot] = math.sqrt(_quad_form(v_inv, representatives, slot, diagonal))
            window_sum = 0.0
            if uncached == 0:  # the sum alone, without a branch per term: its floor
                for s in range(max(1, t - window), t):
                    window_sum += norm[slot_of[s - 1]]
            else:
                for s in range(max(1, t - window), t):
                    slot = slot_of[s - 1]
                    if slot < 0:
                        window_sum += math.sqrt(
                            _quad_form(v_inv, action_sets[s - 1], chosen[s - 1], diagonal)
                        )
                    else:
                        window_sum += norm[slot]
        else:
            window_sum = stored_total
        best = 0
        if not thompson:
            if code:
                width = code_radius(t, d, lam, delta) + window_sum
            else:
                width = 2.0 * confidence_radius(t, d, lam, delta) + window_sum
            best_index = -math.inf
            for k in range(n_actions):
                norm_sq = _quad_form(v_inv, actions, k, diagonal)
                bonus = norm_sq if code else math.sqrt(norm_sq)
                index = _dot(actions, k, theta_hat) + width * bonus
                if index > best_index:
                    best_index = index
                    best = k
        else:
            for i in range(d):
                z[i] = normals[t - 1, i]
            if code:
                width, window_sum = c, c_sum
                mat_vec(code_cov, b, theta_hat)
                cholesky(code_cov, lower)
                lower_diagonal = False
                perturb(theta_hat, lower, z, 1.0, sample)
            else:
                width = 1.0 + window_sum / confidence_radius(t, d, lam, delta)
                if diagonal:
                    # cholesky's sums are then of +0.0 · +0.0 terms: L = diag(√v_ii), +0.0
                    # elsewhere
                    if not lower_diagonal:
                        lower[:] = 0.0
                        for j in range(d):
                            lower[j, j] = math.sqrt(v_inv[j, j])
                        lower_diagonal = True
                    elif changed >= 0:
                        lower[changed, changed] = math.sqrt(v_inv[changed, changed])
                else:
                    cholesky(v_inv, lower)
                    lower_diagonal = False
                scale = math.sqrt(width)
                if lower_diagonal and _finite(z):
                    # row i of L z is then 0.0 + l_ii z_i, as in the diagonal shortcuts
                    for i in range(d):
                        sample[i] = theta_hat[i] + scale * (0.0 + lower[i, i] * z[i])
                else:
                    perturb(theta_hat, lower, z, scale, sample)
            best_value = -math.inf
            for k in range(n_actions):
                value = _dot(actions, k, sample)
                if value > best_value:
                    best_value = value
                    best = k
        chosen[t - 1] = best
        for i in range(d):
            played[i] = actions[best, i]
        if exact_sum:
            slot_of[t - 1] = _distinct_action(played, representatives, seen)
        # Sherman-Morrison, whose aᵀV^-1a = dot(a, V^-1 a) is quad_form(v_inv, a) bit for bit
        # (its rows are the entries of V^-1 a, summed against a in the same order)
        if not (diagonal and _diagonal_mat_vec(v_inv, played, u)):
            mat_vec(v_inv, played, u)
        norm_sq = dot(played, u)
        count = _rank_one_update(v_inv, u, 1.0 + norm_sq, rows, no_negative_zero)
        # only the entries in rows[:count] x rows[:count] changed: V^-1 stays diagonal if one
        # did and it stays positive and finite
        changed = rows[0] if count == 1 else -1
        diagonal = (
            diagonal and count <= 1 and (count == 0 or 0.0 < v_inv[changed, changed] < math.inf)
        )
        # the scalar stored for this round, from V_t^-1 as in the reference
        if code and not thompson:
            stored_total = _push(ring, n_stored, stored_total, norm_sq)
            n_stored += 1
        elif not code and not exact:
            stored_total = _push(ring, n_stored, stored_total, math.sqrt(norm_sq))
            n_stored += 1
        if code and thompson:
            c_sum = stored_total
            c = sigma0 + c_sum
            for i in range(d):
                for j in range(d):
                    code_cov[i, j] = v_inv[i, j] / c
            stored_total = _push(ring, n_stored, stored_total, quad_form(code_cov, played))
            n_stored += 1
        if ci < checkpoints.shape[0] and checkpoints[ci] == t:
            trace[ci, 0] = t
            trace[ci, 1] = width
            trace[ci, 2] = window_sum
            trace[ci, 3] = observed
            ci += 1
        due = arrival_round(t, delays[t - 1], window, horizon)
        if uniforms[t - 1] < dot(played, theta) and due > 0:
            if head[due] < 0:
                head[due] = t
            else:
                link[tail[due]] = t
            tail[due] = t
