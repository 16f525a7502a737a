"""Compiled kernels of the arena's own policies, one replication per call: the baselines that
ignore delays, Thompson sampling on the EM delay model (``em_thompson``), and bootstrap Thompson
sampling on a Kaplan-Meier EM fit (``km_bootstrap``, last).

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

from delayed_bandits.arena.policies import EM_STEPS, KM_EM_STEPS, KM_EM_TOLERANCE, REFIT_SHARE
from delayed_bandits.errors import KernelInputError
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


@njit(cache=True)
def _weight(theta: float, hazard: float, e: float) -> float:
    """``policies.EMThompson._weight``."""
    survival = math.pow(1.0 - hazard, e)
    scale = 1.0 - theta + theta * survival
    return theta * survival / scale if scale > 0.0 else 0.0


@njit(cache=True)
def _expect(
    t: int,
    actions: np.ndarray,
    converted: np.ndarray,
    weight: np.ndarray,
    theta: np.ndarray,
    imputed: np.ndarray,
    old: np.ndarray,
    settled: int,
    hazard: float,
    window: int,
    store: bool,
) -> float:
    """``policies.EMThompson._expect``: the E-step at round t (``window`` < 0: uncensored), the
    settled pulls' aggregate first, in the reference's order and arithmetic."""
    tail = (1.0 - hazard) / hazard
    total = 0.0
    imputed[:] = 0.0
    if window >= 0:
        e = float(window + 1)
        for k in range(theta.shape[0]):
            w = _weight(theta[k], hazard, e)
            imputed[k] = old[k] * w
            total += old[k] * w * (e + tail)
    for s in range(settled + 1, t):
        if converted[s - 1]:
            continue
        k = actions[s - 1]
        e = float(t - s)
        w = _weight(theta[k], hazard, e)
        imputed[k] += w
        total += w * (e + tail)
        if store:
            weight[s - 1] = w
    return total


@njit(cache=True)
def em_thompson(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    window: int,
    refit_share: int,
    em_steps: int,
    rng: np.random.Generator,
    actions: np.ndarray,
) -> None:
    """Thompson sampling on Chapelle (2014)'s delayed-feedback model fitted by EM
    (``policies.EMThompson``, whose docstring states the model and the fits): fills ``actions``.
    ``window`` is m when the problem censors, else -1. Cost: O(K) a round, O(1) an arrival, and
    per EM step of a fit O(m) under censoring (the settled pulls counted per arm) and O(t)
    without, on about ``refit_share`` ln T + ``refit_share`` rounds."""
    horizon, n_arms = uniforms.shape
    pulls = np.zeros(n_arms)
    successes = np.zeros(n_arms)
    imputed = np.zeros(n_arms)
    effective = np.zeros(n_arms)
    theta = np.full(n_arms, 0.5)
    hazard = 0.5
    seeded = False
    delay_sum = 0.0
    weight = np.zeros(horizon)
    converted = np.zeros(horizon, dtype=np.bool_)
    head, tail, link = arrival_lists(horizon)
    next_fit = 1
    settled = 0  # under censoring, pulls 1..settled are counted, pending ones per arm, in old
    old = np.zeros(n_arms)
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            arm = actions[s - 1]
            successes[arm] += 1.0
            delay_sum += delays[s - 1, arm]
            imputed[arm] -= weight[s - 1]
            weight[s - 1] = 0.0
            converted[s - 1] = True
            s = link[s]
        if t >= next_fit:
            if window >= 0:
                for s in range(settled + 1, t - window):
                    if not converted[s - 1]:
                        old[actions[s - 1]] += 1.0
                settled = max(settled, t - window - 1)
            seen = 0.0
            for k in range(n_arms):
                seen += successes[k]
            if seen > 0.0 and not seeded:
                hazard = (seen + 1.0) / (seen + delay_sum + 2.0)
                seeded = True
            for _ in range(em_steps):
                expected = _expect(
                    t,
                    actions,
                    converted,
                    weight,
                    theta,
                    imputed,
                    old,
                    settled,
                    hazard,
                    window,
                    False,
                )
                pending = 0.0
                for k in range(n_arms):
                    theta[k] = (successes[k] + imputed[k] + 1.0) / (pulls[k] + 2.0)
                    pending += imputed[k]
                if seen > 0.0:
                    hazard = (seen + pending + 1.0) / (seen + pending + delay_sum + expected + 2.0)
            _expect(
                t, actions, converted, weight, theta, imputed, old, settled, hazard, window, True
            )
            next_fit = t + max(1, t // refit_share)
        for k in range(n_arms):
            effective[k] = successes[k] + imputed[k]
        arm = thompson_arm(effective, pulls, rng, True)
        actions[t - 1] = arm
        pulls[arm] += 1.0
        weight[t - 1] = theta[arm]
        imputed[arm] += theta[arm]
        d = delays[t - 1, arm]
        if uniforms[t - 1, arm] < mu[arm] and d <= horizon - t - 1:
            enqueue(head, tail, link, t + d + 1, t)


def run_em_thompson_kernel(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    window: int | None,
    seed: int | np.random.SeedSequence | None = None,
) -> np.ndarray:
    """``em_thompson`` on one realisation, drawing from ``np.random.default_rng(seed)`` as the
    reference does (``window`` None: uncensored); returns the arms played."""
    uniforms = np.ascontiguousarray(uniforms, dtype=np.float64)
    actions = np.empty(uniforms.shape[0], dtype=np.int64)
    em_thompson(
        np.asarray(mu, dtype=np.float64),
        uniforms,
        np.ascontiguousarray(delays, dtype=np.int64),
        -1 if window is None else int(window),
        REFIT_SHARE,
        EM_STEPS,
        np.random.default_rng(seed),
        actions,
    )
    return actions


@njit(cache=True)
def _km_weight(theta: float, survival: float) -> float:
    """``policies.KaplanMeierBootstrap._weight``."""
    scale = 1.0 - theta + theta * survival
    return theta * survival / scale if scale > 0.0 else 0.0


@njit(cache=True)
def _km_step(
    t: int,
    window: int,
    actions: np.ndarray,
    converted: np.ndarray,
    settled: int,
    pulls: np.ndarray,
    successes: np.ndarray,
    deaths: np.ndarray,
    theta: np.ndarray,
    survival: np.ndarray,
    weighted: bool,
    censored: np.ndarray,
    imputed: np.ndarray,
    hazards: np.ndarray,
) -> float:
    """``policies.KaplanMeierBootstrap._step``, in the reference's order and arithmetic."""
    m = window
    censored[:] = 0.0
    imputed[:] = 0.0
    for s in range(settled + 1, t):
        if not converted[s - 1]:
            k = actions[s - 1]
            e = t - s
            w = _km_weight(theta[k], survival[e]) if weighted else 1.0
            censored[e] += w
            imputed[k] += w
    deaths_beyond = deaths[m]
    censored_beyond = 0.0
    for d in range(m - 1, -1, -1):
        deaths_beyond += deaths[d]
        censored_beyond += censored[d + 1]
        risk = deaths_beyond + censored_beyond
        hazards[d] = deaths[d] / risk if risk > 0.0 else 0.0
    for d in range(m):
        survival[d + 1] = survival[d] * (1.0 - hazards[d])
    moved = 0.0
    if weighted:
        for k in range(theta.shape[0]):
            if pulls[k] > 0:
                value = (successes[k] + imputed[k]) / pulls[k]
                moved = max(moved, abs(value - theta[k]))
                theta[k] = value
    return moved


@njit(cache=True)
def km_bootstrap(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    window: int,
    refit_share: int,
    em_steps: int,
    tolerance: float,
    rng: np.random.Generator,
    actions: np.ndarray,
) -> None:
    """Bootstrap Thompson sampling on a Kaplan-Meier EM fit under censoring at ``window`` = m
    (``policies.KaplanMeierBootstrap``, whose docstring states the model, the fits and the
    bootstrap): fills ``actions``. Cost: O(m + K) a round and per EM step of a fit, O(1) an
    arrival; the pulls in flight are bucketed by arm each round (``in_flight``)."""
    horizon, n_arms = uniforms.shape
    m = window
    pulls = np.zeros(n_arms, dtype=np.int64)
    successes = np.zeros(n_arms, dtype=np.int64)
    old = np.zeros(n_arms, dtype=np.int64)
    deaths = np.zeros(m + 1)
    converted = np.zeros(horizon, dtype=np.bool_)
    theta = np.zeros(n_arms)
    survival = np.ones(m + 1)
    censored = np.zeros(m + 1)
    imputed = np.zeros(n_arms)
    hazards = np.zeros(max(m, 1))
    in_flight = np.zeros((n_arms, m + 1))
    counts = np.zeros(n_arms, dtype=np.int64)
    samples = np.zeros(n_arms)
    tied = np.zeros(n_arms, dtype=np.int64)
    head, tail, link = arrival_lists(horizon)
    settled = 0
    next_fit = 1
    for t in range(1, horizon + 1):
        s = head[t]
        while s > 0:
            arm = actions[s - 1]
            successes[arm] += 1
            deaths[delays[s - 1, arm]] += 1.0
            converted[s - 1] = True
            s = link[s]
        for s in range(settled + 1, t - m):
            if not converted[s - 1]:
                old[actions[s - 1]] += 1
        settled = max(settled, t - m - 1)
        if t >= next_fit:
            for k in range(n_arms):
                theta[k] = successes[k] / pulls[k] if pulls[k] > 0 else 0.0
            _km_step(
                t,
                m,
                actions,
                converted,
                settled,
                pulls,
                successes,
                deaths,
                theta,
                survival,
                False,
                censored,
                imputed,
                hazards,
            )
            for _ in range(em_steps):
                moved = _km_step(
                    t,
                    m,
                    actions,
                    converted,
                    settled,
                    pulls,
                    successes,
                    deaths,
                    theta,
                    survival,
                    True,
                    censored,
                    imputed,
                    hazards,
                )
                if moved <= tolerance:
                    break
            next_fit = t + max(1, t // refit_share)
        counts[:] = 0
        for s in range(settled + 1, t):
            if not converted[s - 1]:
                k = actions[s - 1]
                in_flight[k, counts[k]] = _km_weight(theta[k], survival[t - s])
                counts[k] += 1
        best = -1.0
        for k in range(n_arms):
            coin = 1 if rng.random() < 0.5 else 0
            n = pulls[k] + 1
            conversions = successes[k] + coin
            zeros = old[k] + 1 - coin
            drawn = conversions
            if 0 < conversions < n:
                drawn = rng.binomial(n, conversions / n)
            rest = n - drawn
            if rest > 0 and 0 < zeros < n - conversions:
                rest -= rng.binomial(rest, zeros / (n - conversions))
            elif zeros == n - conversions:
                rest = 0
            total = float(drawn)
            size = counts[k]
            for _ in range(rest):
                total += in_flight[k, min(int(rng.random() * size), size - 1)]
            total /= n
            samples[k] = total
            if total > best:
                best = total
        n_tied = 0
        for k in range(n_arms):
            if samples[k] == best:
                tied[n_tied] = k
                n_tied += 1
        arm = tied[0]
        if n_tied > 1:
            arm = tied[min(int(rng.random() * n_tied), n_tied - 1)]
        actions[t - 1] = arm
        pulls[arm] += 1
        d = delays[t - 1, arm]
        if uniforms[t - 1, arm] < mu[arm] and d <= horizon - t - 1:
            enqueue(head, tail, link, t + d + 1, t)


def run_km_bootstrap_kernel(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    window: int,
    seed: int | np.random.SeedSequence | None = None,
) -> np.ndarray:
    """``km_bootstrap`` on one realisation censored at ``window``, drawing from
    ``np.random.default_rng(seed)`` as the reference does; returns the arms played. A conversion
    later than the window is refused (``KernelInputError``): the kernel counts each delay in a
    table of m + 1 cells."""
    uniforms = np.ascontiguousarray(uniforms, dtype=np.float64)
    converting = uniforms < np.asarray(mu)
    if int(window) < 0 or (converting.any() and np.asarray(delays)[converting].max() > window):
        raise KernelInputError(
            f"run_km_bootstrap_kernel: argument delays holds a conversion later than the window "
            f"m = {window}; allowed: censored delays, at most m (the arena's ts-km applies only "
            "under censoring)"
        )
    actions = np.empty(uniforms.shape[0], dtype=np.int64)
    km_bootstrap(
        np.asarray(mu, dtype=np.float64),
        uniforms,
        np.ascontiguousarray(delays, dtype=np.int64),
        int(window),
        REFIT_SHARE,
        KM_EM_STEPS,
        KM_EM_TOLERANCE,
        np.random.default_rng(seed),
        actions,
    )
    return actions
