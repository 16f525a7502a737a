"""Manegueu, Vernade, Carpentier, Valko (ICML 2020): readable references of Patient Bandits
(Algorithm 1) and Adapt-Patient Bandits (Algorithm 2); runs use
``delayed_bandits.papers.manegueu2020.kernels``.

Observation model (Section 2, eq. 1): at round t the learner sees X_{s,t-s} = C_s 1{D_s <= t - s}
for every past pull s < t, so a conversion is usable from round s + max(D_s, 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba.extending import register_jitable


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def patient_index(mean_hat: float, pulls: float, alpha: float, log_term: float) -> float:
    """UCB_i(t) = mu_hat_i + sqrt(2 log(2 K T^3) / T_i) + 2 T_i^-min(alpha, 1/2) (Theorem 1,
    Algorithm 1); ``log_term`` = log(2 K T^3)."""
    return mean_hat + math.sqrt(2.0 * log_term / pulls) + 2.0 * pulls ** (-min(alpha, 0.5))


@dataclass(frozen=True)
class AdaptParams:
    """Inputs of Adapt-Patient (Algorithm 2) and the constants of our reading of Section 6.3
    (docs/decisions.md): (alpha_low, c, mu_low) = (0.1, 0.7, 0.6) in Section 8.3."""

    alpha_low: float = 0.1
    c: float = 0.7
    mu_low: float = 0.6
    lcb_constant: float = 24.0  # the 24 of the lower confidence bound on alpha
    window_alpha: float = 0.1  # the alpha in d_t = floor((c/2)^(1/alpha) D_t); alpha_low by default


@register_jitable
def alpha_estimates(diff: float, top_pulls: float, log_term: float, alpha_low: float, c: float,
                    mu_low: float, lcb_constant: float) -> tuple[float, float]:
    """(alpha_hat_t, alpha_t) of Section 6.3, as we read the garbled extraction:
    alpha_hat = min(-log(m_{t,D} - m_{t,d}) / log(T_bar), 1) (1 when the difference is not
    positive) and the lower confidence value
    alpha_t = max(alpha_low, alpha_hat - log(lcb_constant sqrt(log(2 K T^3)) / (c mu_low)) / log(T_bar)).
    """
    log_pulls = math.log(top_pulls)
    alpha_hat = min(-math.log(diff) / log_pulls, 1.0) if diff > 0.0 else 1.0
    width = math.log(lcb_constant * math.sqrt(log_term) / (c * mu_low)) / log_pulls
    return alpha_hat, max(alpha_low, alpha_hat - width)


@register_jitable
def windows(top_pulls: int, c: float, window_alpha: float) -> tuple[int, int]:
    """(D_t, d_t): D_t = floor(T_bar / 2) and d_t = max(1, floor((c / 2)^(1 / alpha) D_t)), so that
    D_t^-alpha <= (c/2) d_t^-alpha for every alpha >= ``window_alpha`` (Section 6.3)."""
    big = top_pulls // 2
    small = max(1, int(math.floor((c / 2.0) ** (1.0 / window_alpha) * big)))
    return big, small


def first_argmax(values: list[float]) -> int:
    """Index of the largest value, the lowest index on ties."""
    return max(range(len(values)), key=lambda k: (values[k], -k))


def run_patient(mu: np.ndarray, uniforms: np.ndarray, delays: np.ndarray, alpha_tilde: float,
                adapt: AdaptParams | None, checkpoints: np.ndarray
                ) -> tuple[np.ndarray, list[tuple[int, float, float]]]:
    """Patient Bandits with tail parameter ``alpha_tilde``, or Adapt-Patient when ``adapt`` is
    given. Returns the arms played and, for Adapt-Patient, (t, alpha_hat_t, alpha_t) at each
    checkpoint t (the estimate used to choose the arm of round t)."""
    horizon, n_arms = uniforms.shape
    log_term = math.log(2.0 * n_arms * float(horizon) ** 3)
    converted = uniforms < mu  # C of a pull of arm k at round t is converted[t - 1, k]
    actions: list[int] = []
    trace = []
    wanted = set(int(t) for t in checkpoints)
    alpha_hat = alpha_t = alpha_tilde
    for t in range(1, horizon + 1):
        pulls = [actions.count(k) for k in range(n_arms)]
        if adapt is not None:
            top = first_argmax([float(p) for p in pulls])
            if pulls[top] >= 2:
                big, small = windows(pulls[top], adapt.c, adapt.window_alpha)
                # X_{s,D} is known at round t for pulls s <= t - D
                seen = [(s, k) for s, k in enumerate(actions, 1) if k == top and s <= t - big]
                count_big = sum(1 for s, k in seen if converted[s - 1, k] and delays[s - 1, k] <= big)
                count_small = sum(1 for s, k in seen
                                  if converted[s - 1, k] and delays[s - 1, k] <= small)
                alpha_hat, alpha_t = alpha_estimates((count_big - count_small) / pulls[top],
                                                     float(pulls[top]), log_term, adapt.alpha_low,
                                                     adapt.c, adapt.mu_low, adapt.lcb_constant)
            if t in wanted:
                trace.append((t, alpha_hat, alpha_t))
        initial = n_arms * (2 if adapt is not None else 1)  # Algorithm 2 pulls each arm twice
        if t <= initial:
            arm = (t - 1) % n_arms
        else:
            alpha = alpha_t if adapt is not None else alpha_tilde
            indices = []
            for k in range(n_arms):
                # rewards seen by round t: pulls s < t with s + max(D_s, 1) <= t
                seen_sum = sum(1 for s, a in enumerate(actions, 1) if a == k and converted[s - 1, k]
                               and s + max(int(delays[s - 1, k]), 1) <= t)
                indices.append(patient_index(seen_sum / pulls[k], float(pulls[k]), alpha, log_term))
            arm = first_argmax(indices)
        actions.append(arm)
    return np.array(actions, dtype=np.int64), trace
