"""Compiled kernels for Vernade et al. 2017: one replication per call.

Same policies, timing and tie-breaking as ``delayed_bandits.papers.vernade2017.policies`` (the readable
reference); the kernels differ only in how they keep the counts: arrivals are bucketed by the
round they become usable, the censored N~ uses the m-buffer of Section 7, and the uncensored N~
with geometric delays uses the O(1) recursion (6), N~_k = N_k - O_k, O_k <- q (O_k + 1{A_t = k}).
The index functions are the reference's own, compiled in (``register_jitable``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.queues import arrival_lists, enqueue, record
from delayed_bandits.papers.vernade2017.policies import klucb_index, ucb_index


@njit(cache=True)
def delayed_index(theta: np.ndarray, uniforms: np.ndarray, delays: np.ndarray, tau: np.ndarray,
                  window: int, censored: bool, kl: bool, estimate_cdf: bool, q: float,
                  gamma: float, epsilon: float, checkpoints: np.ndarray,
                  actions: np.ndarray, wait: int = 0) -> np.ndarray:
    """DelayedUCB / DelayedKLUCB (Algorithm 1). Fills ``actions`` and returns the pseudo-regret at
    ``checkpoints``. The first K + ``wait`` rounds cycle through the arms (``wait`` = 0: each arm
    once, Algorithm 1; ``wait`` = m: the D-UCB of Manegueu et al. 2020, Section 8.2).

    ``tau[d]`` = P(D <= d) for d = 0..window (censored) or 0..T (uncensored). Uncensored with
    ``q >= 0`` uses the geometric recursion with that q (known CDF) or with q = mu_hat/(mu_hat+1)
    (``estimate_cdf``, Appendix D); ``q < 0`` falls back to the full weighted sum."""
    horizon, n_arms = uniforms.shape
    best = theta.max()
    successes = np.zeros(n_arms)
    pulls = np.zeros(n_arms)
    old = np.zeros(n_arms)  # censored: pulls at s <= t-1-m, weight tau_m
    o = np.zeros(n_arms)  # uncensored recursion state O_k(t)
    n_tilde = np.zeros(n_arms)
    head, tail, link = arrival_lists(horizon)
    # Appendix D estimators: cumulative counts of observed delays (censored), mean (uncensored).
    cum = np.zeros(window + 1) if censored else np.zeros(1)
    n_obs = 0
    mu_hat = 0.0
    recursion = (not censored) and q >= 0.0
    span = window if censored else horizon
    out = np.zeros(checkpoints.shape[0])
    regret = 0.0
    ci = 0
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            a = actions[s - 1]
            successes[a] += 1.0
            d = delays[s - 1, a]
            n_obs += 1
            if estimate_cdf and censored:
                for j in range(d, window + 1):
                    cum[j] += 1.0
            step = n_obs ** (-gamma)
            mu_hat = (1.0 - step) * mu_hat + step * d
            s = link[s]
        if t <= n_arms + wait:
            arm = (t - 1) % n_arms
        else:
            if recursion:
                for k in range(n_arms):
                    n_tilde[k] = pulls[k] - o[k]
            else:
                tau_old = 1.0 if estimate_cdf else tau[window if censored else 0]
                for k in range(n_arms):
                    n_tilde[k] = old[k] * tau_old if censored else 0.0
                for s in range(max(1, t - span), t):
                    age = t - 1 - s
                    if estimate_cdf:
                        w = cum[age] / n_obs if n_obs > 0 else 1.0
                    else:
                        w = tau[age]
                    n_tilde[actions[s - 1]] += w
            b = (1.0 + epsilon) * math.log(t)
            arm = 0
            best_index = -math.inf
            for k in range(n_arms):
                theta_hat = successes[k] / n_tilde[k] if n_tilde[k] > 0.0 else 0.0
                if kl:
                    index = klucb_index(theta_hat, n_tilde[k], b)
                else:
                    index = ucb_index(theta_hat, pulls[k], n_tilde[k], b)
                if index > best_index:
                    best_index = index
                    arm = k
        actions[t - 1] = arm
        pulls[arm] += 1.0
        regret += best - theta[arm]
        ci = record(t, regret, checkpoints, out, ci)
        if recursion:
            q_now = mu_hat / (mu_hat + 1.0) if estimate_cdf else q
            for k in range(n_arms):
                o[k] = q_now * (o[k] + (1.0 if k == arm else 0.0))
        if censored and t - window >= 1:
            old[actions[t - window - 1]] += 1.0
        d = delays[t - 1, arm]
        if uniforms[t - 1, arm] < theta[arm] and (not censored or d <= window) \
                and d <= horizon - t - 1:
            enqueue(head, tail, link, t + d + 1, t)
    return out


@njit(cache=True)
def discarding(theta: np.ndarray, uniforms: np.ndarray, delays: np.ndarray, tau_m: float,
               window: int, kl: bool, epsilon: float, checkpoints: np.ndarray,
               actions: np.ndarray) -> np.ndarray:
    """DiscardingUCB / DiscardingKLUCB (Section 6) on pulls older than the window; round robin on
    the least-pulled arm while some arm has none. Returns the pseudo-regret at ``checkpoints``."""
    horizon, n_arms = uniforms.shape
    best = theta.max()
    pulls = np.zeros(n_arms)
    n_old = np.zeros(n_arms)
    s_old = np.zeros(n_arms)
    out = np.zeros(checkpoints.shape[0])
    regret = 0.0
    ci = 0
    for t in range(1, horizon + 1):
        s = t - 1 - window  # this pull's censored outcome became fully known at round t
        if s >= 1:
            a = actions[s - 1]
            n_old[a] += 1.0
            if uniforms[s - 1, a] < theta[a] and delays[s - 1, a] <= window:
                s_old[a] += 1.0
        if n_old.min() == 0.0:
            arm = int(np.argmin(pulls))
        else:
            b = (1.0 + epsilon) * math.log(t)
            arm = 0
            best_index = -math.inf
            for k in range(n_arms):
                n_eff = tau_m * n_old[k]
                theta_hat = s_old[k] / n_eff
                if kl:
                    index = klucb_index(theta_hat, n_eff, b)
                else:
                    index = theta_hat + math.sqrt(b / (2.0 * n_eff))
                if index > best_index:
                    best_index = index
                    arm = k
        actions[t - 1] = arm
        pulls[arm] += 1.0
        regret += best - theta[arm]
        ci = record(t, regret, checkpoints, out, ci)
    return out
