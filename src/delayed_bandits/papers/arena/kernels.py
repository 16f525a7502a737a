"""Compiled kernel of the arena's baselines that ignore delays: one replication per call.

Same policies, timing and tie-breaking as ``delayed_bandits.papers.arena.policies`` (the readable
reference): UCB, Bernoulli KL-UCB and Thompson sampling on S_k / N_k, conversions in flight
counted as failures. Arrivals are bucketed by the round they become usable
(``delayed_bandits.queues``); the index functions are the reference's own, compiled in
(``register_jitable``); Thompson sampling draws from a ``numpy.random.Generator`` passed in,
whose ``beta`` gives in numba the same draws as numpy's in Python.

Index codes (the ``index`` argument of ``ignores_delays``): ``UCB`` = 0, ``KLUCB`` = 1, ``TS`` = 2;
``INDEX_CODES`` maps the names "ucb", "klucb", "ts" to them.

Cost: O(K) per round plus O(1) per arrival, and no allocation inside the loop. O(K) per round is
the floor for these policies: every arm's index (or posterior sample) changes each round, since
f(t) moves with t for UCB and KL-UCB and TS draws afresh. KL-UCB's Newton iteration descends
to each index from above; the kernel first computes the index of the empirically best arm in full
and lets the others stop as soon as an iterate is below the best index known
(``klucb_index``'s ``bar``), which leaves the actions unchanged (a few Newton steps per arm).

Note: ``cache=True`` keys the compiled kernel on this file only; after changing an index function
in ``policies.py``, delete this module's ``__pycache__/kernels.*.nbi/nbc`` (the tests would catch
the stale kernel as a mismatch with the reference).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.papers.arena.policies import exploration, klucb_index, ucb_index
from delayed_bandits.queues import arrival_lists, enqueue, record

UCB = 0
KLUCB = 1
TS = 2
INDEX_CODES = {"ucb": UCB, "klucb": KLUCB, "ts": TS}


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
            best_index = -math.inf
            for k in range(n_arms):
                sample = rng.beta(1.0 + successes[k], 1.0 + pulls[k] - successes[k])
                if sample > best_index:
                    best_index = sample
                    arm = k
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
                # Compute the empirically best arm's index c first; any other arm may stop as soon
                # as its index is certainly below the best index known (``bar``): it cannot be
                # played. The arms reaching the maximum are all computed in full, so the argmax
                # (lowest index on ties) is the reference's.
                c = 0
                for k in range(1, n_arms):
                    if successes[k] / pulls[k] > successes[c] / pulls[c]:
                        c = k
                u_c = klucb_index(successes[c] / pulls[c], pulls[c], f)
                bar = u_c
                for k in range(n_arms):
                    if k == c:
                        value = u_c
                    else:
                        value = klucb_index(successes[k] / pulls[k], pulls[k], f, bar)
                    if value > best_index:
                        best_index = value
                        arm = k
                    if value > bar:
                        bar = value
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
