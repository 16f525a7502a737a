"""Compiled kernel of the arena's baselines that ignore delays: one replication per call.

Same policies, timing and tie-breaking as ``delayed_bandits.arena.policies`` (the readable
reference): UCB, Bernoulli KL-UCB and Thompson sampling on S_k / N_k, conversions in flight
counted as failures. Arrivals are bucketed by the round they become usable
(``delayed_bandits.queues``); the index functions are the reference's own, compiled in
(``register_jitable``); Thompson sampling draws from a ``numpy.random.Generator`` passed in,
whose ``beta`` gives in numba the same draws as numpy's in Python.

Index codes (the ``index`` argument of ``ignores_delays``) are ``delayed_bandits.indices``'
``INDEX_CODES``: ``UCB`` = 0, ``KLUCB`` = 1, ``TS`` = 2.

Cost: O(K) per round plus O(1) per arrival, and no allocation inside the loop. O(K) per round is
the floor for these policies: every arm's index (or posterior sample) changes each round, since
f(t) moves with t for UCB and KL-UCB and TS draws afresh. KL-UCB's Newton iteration descends
to each index from above (``klucb_start``, then ``klucb_step``): the kernel first computes the
index of the empirically best arm in full, then runs the other arms' searches interleaved, one
step of each in turn so that their chains of logarithms and divisions overlap, and stops an arm
as soon as an iterate is below the best index known (``bar``), which leaves the actions
unchanged. That floor is the best arm's own search, about 4 steps of two logarithms and two
divisions a round: at T = 100000, KL-UCB's Newton part costs about 90 ns a round at K = 2 and
200 ns at K = 10 (the interleaving took 10% off at K = 10).

Note: ``cache=True`` keys the compiled kernel on this file only; after changing an index function
in ``delayed_bandits/indices.py``, delete this module's ``__pycache__/kernels.*.nbi/nbc`` (the tests would catch
the stale kernel as a mismatch with the reference).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.indices import (
    INDEX_CODES,
    KLUCB_TOLERANCE,
    TS,
    UCB,
    exploration,
    klucb_index,
    klucb_start,
    klucb_step,
    thompson_arm,
    ucb_index,
)
from delayed_bandits.queues import arrival_lists, enqueue, record


@njit(cache=True)
def ignores_delays(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    index: int,
    coefficient: float,
    loglog: float,
    rng: np.random.Generator,
    checkpoints: np.ndarray,
    actions: np.ndarray,
) -> np.ndarray:
    """UCB (``index`` = UCB), KL-UCB (KLUCB) or Thompson sampling (TS) ignoring delays.

    Fills ``actions`` (int64, length T) and returns the pseudo-regret sum_s (max mu - mu_{A_s})
    at ``checkpoints`` (1-based rounds, increasing). f(t) = coefficient log t + loglog
    max(log log t, 0) for UCB and KL-UCB, which first play each arm once; TS draws
    Beta(1 + S_k, 1 + N_k - S_k) for k = 0..K-1 from ``rng`` every round. Ties: lowest index."""
    horizon, n_arms = uniforms.shape
    best = mu.max()
    successes = np.zeros(n_arms)
    pulls = np.zeros(n_arms)
    head, tail, link = arrival_lists(horizon)
    # KL-UCB: the arms' estimates, their Newton iterates (then indices), and which still search
    p_hat = np.zeros(n_arms)
    indices = np.zeros(n_arms)
    active = np.zeros(n_arms, dtype=np.bool_)
    out = np.zeros(checkpoints.shape[0])
    regret = 0.0
    ci = 0
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            successes[actions[s - 1]] += 1.0
            s = link[s]
        arm = 0
        if index == TS:
            arm = thompson_arm(successes, pulls, rng)
        elif t <= n_arms:
            arm = t - 1
        else:
            f = exploration(t, coefficient, loglog)
            best_index = -math.inf
            if index == UCB:
                for k in range(n_arms):
                    value = ucb_index(successes[k] / pulls[k], pulls[k], f)
                    if value > best_index:
                        best_index = value
                        arm = k
            else:
                # klucb_index's Newton search for all arms at once, one step of each in turn: an
                # arm's steps are a chain of dependent logs and divisions, and interleaving the
                # arms lets the chains overlap. The empirically best arm c is solved first; any
                # other arm stops as soon as its iterate is below the best index known (``bar``,
                # an index computed in full): the iterates only decrease, so it cannot be played.
                # The arms reaching the maximum are all computed in full, so the argmax (lowest
                # index on ties) is the reference's.
                c = 0
                for k in range(n_arms):
                    p_hat[k] = successes[k] / pulls[k]
                    if p_hat[k] > p_hat[c]:
                        c = k
                bar = klucb_index(p_hat[c], pulls[c], f)
                searching = 0
                for k in range(n_arms):
                    if k == c:
                        indices[k] = bar
                        active[k] = False
                        continue
                    indices[k], done = klucb_start(p_hat[k], pulls[k], f)
                    active[k] = not done
                    if done:
                        bar = max(bar, indices[k])
                    else:
                        searching += 1
                while searching > 0:
                    for k in range(n_arms):
                        if not active[k]:
                            continue
                        q = indices[k]
                        if q < bar:
                            active[k] = False
                            searching -= 1
                            continue
                        step = klucb_step(p_hat[k], pulls[k], f, q)
                        if step < KLUCB_TOLERANCE:  # done; at the root up to rounding if <= 0
                            indices[k] = q if step <= 0.0 else q - step
                            active[k] = False
                            searching -= 1
                            bar = max(bar, indices[k])
                        else:
                            indices[k] = q - step
                for k in range(n_arms):
                    if indices[k] > best_index:
                        best_index = indices[k]
                        arm = k
        actions[t - 1] = arm
        pulls[arm] += 1.0
        regret += best - mu[arm]
        ci = record(t, regret, checkpoints, out, ci)
        d = delays[t - 1, arm]
        if uniforms[t - 1, arm] < mu[arm] and d <= horizon - t - 1:
            enqueue(head, tail, link, t + d + 1, t)
    return out


def run_ignores_delays_kernel(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    index: str,
    coefficient: float = 1.0,
    loglog: float = 0.0,
    seed: int | np.random.SeedSequence | None = None,
    checkpoints: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``ignores_delays`` by name ("ucb", "klucb", "ts"), TS drawing from
    ``np.random.default_rng(seed)`` as the reference does; returns (regret at checkpoints,
    actions). Without checkpoints, the regret is recorded at T only."""
    if index not in INDEX_CODES:
        raise ValueError(f"index {index!r} is not one of {tuple(INDEX_CODES)}")
    if coefficient < 0.0 or loglog < 0.0:
        raise ValueError("the exploration coefficients must be >= 0")
    uniforms = np.ascontiguousarray(uniforms, dtype=np.float64)
    delays = np.ascontiguousarray(delays, dtype=np.int64)
    horizon = uniforms.shape[0]
    checkpoints = np.array([horizon] if checkpoints is None else checkpoints, dtype=np.int64)
    actions = np.empty(horizon, dtype=np.int64)
    regret = ignores_delays(
        np.asarray(mu, dtype=np.float64),
        uniforms,
        delays,
        INDEX_CODES[index],
        float(coefficient),
        float(loglog),
        np.random.default_rng(seed),
        checkpoints,
        actions,
    )
    return regret, actions
