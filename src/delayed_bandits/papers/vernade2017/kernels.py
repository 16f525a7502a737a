"""Compiled kernels for Vernade et al. 2017: one replication per call.

Same policies, timing and tie-breaking as ``delayed_bandits.papers.vernade2017.policies`` (the readable
reference); the kernels differ only in how they keep the counts and search the indices: arrivals
are bucketed by the round they become usable, the censored N~ uses the m-buffer of Section 7, and
with geometric delays N~ uses the O(1) recursion (6), N~_k = N_k - O_k, O_k <- q (O_k + 1{A_t = k})
(the reference's ``geometric_step``), uncensored or windowed: there O_k sums over the pulls of the
last m rounds only, each leaving it as it turns old (docs/decisions/vernade2017.md#recursion).
The index functions are the reference's own, compiled in
(``register_jitable``); DelayedKLUCB runs ``klucb_index``'s Newton steps (``klucb_step``) for all
arms interleaved.

Cost, per round: O(1) per arrival (O(m) in a round with arrivals for the estimated censored CDF),
O(K) for the indices, and, where N~ is a weighted sum (a law other than the geometric, or the
estimated censored CDF), one addition per pull in the window, in the reference's order (s
increasing). That sum is d-UCB's floor off the geometric law: every weight tau(t-1-s) moves each
round and floating-point addition is not associative, so no arm's N~ can be carried over from the
last round and stay the reference's number (the recursion can, because the reference takes it
too). Measured when the geometric law took the sum too: at K = 10 and m = 200 (the arena's bench
setting, T = 5000) about 200 additions, 140 ns of a 245 ns round, capping d-UCB near 7M
agent-steps/s (it ran at 4.0M, against uniform play's 50-130M on the shared 2-core machine).
Each addition waits on two loads (the pull's round, then its weight): at T = 100000 and m = 200
a round costs about 165 ns at K = 2 and 215 ns at K = 10 (0.8-1 ns per pull in the window).
Adding up the sums of four rounds together, as four independent chains each in the reference's
order, was tried and measured: 10-20% faster at m = 200, no faster or slower at m = 25, so it
was not kept.

DelayedKLUCB adds K Newton searches a round (beta and every N~ change each round, so no index
carries over), each from q = 1 as the reference's, since another start would change the index's
last bits: about 5.5 steps per arm at the bench setting, each a log and two divisions. The kernel
solves last round's arm first and stops another arm at an iterate q below the best index known
when its step is >= ``KLUCB_TOLERANCE``: the next iterate is lower by at least that much and the
later ones lower still, except that the last step may be negative, but only by rounding at the
root (below 2e-16 over 10^7 random (theta_hat, N~, beta), against the 1e-6 tolerance), so that
arm's index is below q and it cannot be played. That leaves about 4 steps per arm, which the
interleaving overlaps; d-KLUCB runs at 2.1M agent-steps/s at the bench setting (1.9M through its
runner). The arm solved first is the floor: its steps are one chain (a division, a logarithm,
then two divisions, about 100 cycles each step), about 230 ns of a 400 ns round at K = 2 and
m = 200, T = 100000.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from delayed_bandits.indices import thompson_arm
from delayed_bandits.papers.vernade2017.policies import (
    KLUCB_TOLERANCE,
    geometric_step,
    klucb_index,
    klucb_step,
    leave_window,
    poisson_kl,
    ucb_index,
    usable,
    young_weight,
)
from delayed_bandits.queues import arrival_lists, enqueue, record


@njit(cache=True)
def _play(
    t: int,
    arm: int,
    theta: np.ndarray,
    best: float,
    pulls: np.ndarray,
    actions: np.ndarray,
    regret: float,
    checkpoints: np.ndarray,
    out: np.ndarray,
    ci: int,
) -> tuple[float, int]:
    """Play round t's arm A_t, the argmax of Algorithm 1's indices (of Section 6's for the
    Discarding policies): the pull counts in N_{A_t}, and the pseudo-regret
    sum_{s <= t} (max theta - theta_{A_s}) gains A_t's gap, stored in ``out`` when t is a
    checkpoint. Returns the regret and the next checkpoint's index."""
    actions[t - 1] = arm
    pulls[arm] += 1.0
    regret += best - theta[arm]
    return regret, record(t, regret, checkpoints, out, ci)


@njit(cache=True)
def delayed_index(
    theta: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    tau: np.ndarray,
    window: int,
    censored: bool,
    kl: bool,
    estimate_cdf: bool,
    q: float,
    gamma: float,
    epsilon: float,
    checkpoints: np.ndarray,
    actions: np.ndarray,
    ts: bool,
    rng: np.random.Generator,
    wait: int = 0,
    lag: int = 1,
) -> np.ndarray:
    """DelayedUCB / DelayedKLUCB (Algorithm 1). Fills ``actions`` and returns the pseudo-regret at
    ``checkpoints``. The first K + ``wait`` rounds cycle through the arms (``wait`` = 0: each arm
    once, Algorithm 1; ``wait`` = m: the D-UCB of Manegueu et al. 2020, Section 8.2).

    ``tau[d]`` = P(D <= d) for d = 0..window (censored) or 0..T (uncensored). ``q >= 0`` (the
    law is geometric, tau(d) = 1 - q^(d+1)) uses the recursion (6) with that q (known CDF,
    censored or not) or, uncensored with ``estimate_cdf``, with q = mu_hat/(mu_hat+1) (Appendix
    D); ``q < 0``, and the estimated censored CDF, fall back to the weighted sum. With ``ts``
    the index is a draw from Beta(1 + S_k, 1 + max(N~_k - S_k, 0)) from ``rng`` (the reference's
    ``rng``; not in the paper). ``lag`` is the arrival convention's (``policies.ARRIVALS``): a
    conversion is usable from round ``usable(s, D, lag)``, and N~ weighs the pull at s by
    tau(min(t - lag - s, m))."""
    horizon, n_arms = uniforms.shape
    best = theta.max()
    successes = np.zeros(n_arms)
    pulls = np.zeros(n_arms)
    old = np.zeros(n_arms)  # censored: pulls at s <= t-1-m, weight tau_m
    o = np.zeros(n_arms)  # recursion state O_k(t), over the window's pulls when censored
    n_tilde = np.zeros(n_arms)
    # KL: the arms' estimates, their Newton iterates (then indices), and which still search
    theta_hats = np.zeros(n_arms)
    value = np.zeros(n_arms)
    active = np.zeros(n_arms, dtype=np.bool_)
    head, tail, link = arrival_lists(horizon)
    n_obs = 0
    mu_hat = 0.0  # Appendix D, uncensored: the delays' mean by stochastic approximation
    # Appendix D, censored: the weight of age d is #{observed delays <= d} / n_obs, recomputed
    # only in rounds with arrivals (the counts are integers, so any order sums them exactly).
    estimated = estimate_cdf and censored
    recursion = q >= 0.0 and not estimated
    # windowed recursion: O_k's term of a pull turning old, q^(m + L) (math.pow, as the reference)
    leaving = math.pow(q, float(window + lag)) if recursion and censored else 0.0
    # The weighted sum's pulls of arm k, oldest first: rounds[k, first[k]:last[k]], so that each
    # arm's sum runs in a register, adding the weights in increasing s as the reference does.
    rounds = np.empty((n_arms, 0 if recursion else horizon), dtype=np.int64)
    first = np.zeros(n_arms, dtype=np.int64)
    last = np.zeros(n_arms, dtype=np.int64)
    observed = np.zeros(window + 1 if estimated else 1)
    weights = np.ones(window + 1) if estimated else tau
    out = np.zeros(checkpoints.shape[0])
    regret = 0.0
    ci = 0
    for t in range(1, horizon + 1):
        s = head[t]
        arrived = s > 0
        while s > 0:
            a = actions[s - 1]
            successes[a] += 1.0
            d = delays[s - 1, a]
            n_obs += 1
            if estimated:
                observed[d] += 1.0
            if recursion and estimate_cdf:
                step = n_obs ** (-gamma)
                mu_hat = (1.0 - step) * mu_hat + step * d
            s = link[s]
        if estimated and arrived:
            below = 0.0
            for j in range(window + 1):
                below += observed[j]
                weights[j] = below / n_obs
        if t <= n_arms + wait:
            arm = (t - 1) % n_arms
        else:
            if recursion:
                # O_k sums q^(t-s); the same-round convention's weights need q^(t-s+1)
                carry = 1.0
                if lag == 0:
                    carry = mu_hat / (mu_hat + 1.0) if estimate_cdf else q
                for k in range(n_arms):
                    n_tilde[k] = young_weight(pulls[k] - old[k], o[k], carry)
                    if censored:
                        n_tilde[k] = old[k] * tau[window] + n_tilde[k]
            else:
                tau_old = 1.0 if estimate_cdf else tau[window if censored else 0]
                for k in range(n_arms):
                    total = old[k] * tau_old if censored else 0.0
                    for i in range(first[k], last[k]):
                        total += weights[t - lag - rounds[k, i]]
                    n_tilde[k] = total
            b = (1.0 + epsilon) * math.log(t)
            arm = 0
            best_index = -math.inf
            if ts:
                arm = thompson_arm(successes, n_tilde, rng, clip=True)
            elif kl:
                # klucb_index's Newton search for all arms at once, one step of each in turn: an
                # arm's steps are a chain of dependent divisions and logs, and interleaving the
                # arms lets the chains overlap. Last round's arm is solved first (its index is
                # usually the largest); another arm stops as soon as its iterate q is below the
                # best index known, ``bar``, with a step >= KLUCB_TOLERANCE still to take: its
                # index will be below q (module docstring, Cost), so it cannot be played. The
                # arms reaching the maximum are computed in full, so the argmax and its tie-break
                # are the reference's.
                for k in range(n_arms):
                    theta_hats[k] = successes[k] / n_tilde[k] if n_tilde[k] > 0.0 else 0.0
                c = actions[t - 2]
                value[c] = klucb_index(theta_hats[c], n_tilde[c], b)
                active[c] = False
                bar = value[c]
                searching = 0
                for k in range(n_arms):
                    if k == c:
                        continue
                    # where klucb_index searches; elsewhere it returns at once
                    active[k] = (
                        n_tilde[k] > 0.0
                        and theta_hats[k] < 1.0
                        and n_tilde[k] * poisson_kl(theta_hats[k], 1.0) > b
                    )
                    if active[k]:
                        value[k] = 1.0
                        searching += 1
                    else:
                        value[k] = klucb_index(theta_hats[k], n_tilde[k], b)
                        bar = max(bar, value[k])
                while searching > 0:
                    for k in range(n_arms):
                        if active[k]:
                            step = klucb_step(theta_hats[k], n_tilde[k], b, value[k])
                            if value[k] < bar and step >= KLUCB_TOLERANCE:
                                active[k] = False
                                searching -= 1
                            else:
                                value[k] -= step
                                if step < KLUCB_TOLERANCE:
                                    active[k] = False
                                    searching -= 1
                                    bar = max(bar, value[k])
                for k in range(n_arms):
                    if value[k] > best_index:
                        best_index = value[k]
                        arm = k
            else:
                for k in range(n_arms):
                    theta_hat = successes[k] / n_tilde[k] if n_tilde[k] > 0.0 else 0.0
                    index = ucb_index(theta_hat, pulls[k], n_tilde[k], b)
                    if index > best_index:
                        best_index = index
                        arm = k
        regret, ci = _play(t, arm, theta, best, pulls, actions, regret, checkpoints, out, ci)
        aged = t + 1 - lag - window  # censored: this pull weighs tau_m from round t + 1 on
        if recursion:
            q_now = mu_hat / (mu_hat + 1.0) if estimate_cdf else q
            for k in range(n_arms):
                o[k] = geometric_step(o[k], k == arm, q_now)
            if censored and aged >= 1:
                a = actions[aged - 1]
                old[a] += 1.0
                o[a] = leave_window(o[a], leaving, pulls[a] - old[a])
        else:
            rounds[arm, last[arm]] = t
            last[arm] += 1
            if censored and aged >= 1:
                a = actions[aged - 1]
                old[a] += 1.0
                first[a] += 1
        d = delays[t - 1, arm]
        if uniforms[t - 1, arm] < theta[arm] and (not censored or d <= window):
            due = usable(t, d, lag)
            if due <= horizon:
                enqueue(head, tail, link, due, t)
    return out


@njit(cache=True)
def discarding(
    theta: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    tau_m: float,
    window: int,
    kl: bool,
    epsilon: float,
    checkpoints: np.ndarray,
    actions: np.ndarray,
    ts: bool,
    rng: np.random.Generator,
    lag: int = 1,
) -> np.ndarray:
    """DiscardingUCB / DiscardingKLUCB (Section 6) on pulls older than the window; round robin on
    the least-pulled arm while some arm has none. Returns the pseudo-regret at ``checkpoints``.
    With ``ts``, Beta(1 + S_old, 1 + N_old - S_old) draws from ``rng`` (not in the paper).
    ``lag`` is the arrival convention's (``policies.ARRIVALS``): the pull at s is complete from
    round s + m + lag on."""
    horizon, n_arms = uniforms.shape
    best = theta.max()
    pulls = np.zeros(n_arms)
    n_old = np.zeros(n_arms)
    s_old = np.zeros(n_arms)
    out = np.zeros(checkpoints.shape[0])
    regret = 0.0
    ci = 0
    for t in range(1, horizon + 1):
        s = t - lag - window  # this pull's censored outcome became fully known at round t
        if s >= 1:
            a = actions[s - 1]
            n_old[a] += 1.0
            if uniforms[s - 1, a] < theta[a] and delays[s - 1, a] <= window:
                s_old[a] += 1.0
        if n_old.min() == 0.0:
            arm = int(np.argmin(pulls))
        elif ts:
            arm = thompson_arm(s_old, n_old, rng)
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
        regret, ci = _play(t, arm, theta, best, pulls, actions, regret, checkpoints, out, ci)
    return out
