"""Manegueu, Vernade, Carpentier, Valko (ICML 2020): readable references of Patient Bandits
(Algorithm 1) and Adapt-Patient Bandits (Algorithm 2); runs use
``delayed_bandits.papers.manegueu2020.kernels``.

Observation model (Section 2, eq. 1): at round t the learner sees X_{s,t-s} = C_s 1{D_s <= t - s}
for every past pull s < t, so a conversion is usable from round s + max(D_s, 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numba.extending import register_jitable

from delayed_bandits.references import first_argmax, run


@register_jitable  # plain Python here; compiled into the kernels, same arithmetic
def patient_index(mean_hat: float, pulls: float, alpha: float, log_term: float) -> float:
    """UCB_i(t) = mu_hat_i + sqrt(2 log(2 K T^3) / T_i) + 2 T_i^-min(alpha, 1/2) (Theorem 1,
    Algorithm 1); ``log_term`` = log(2 K T^3)."""
    return mean_hat + math.sqrt(2.0 * log_term / pulls) + 2.0 * pulls ** (-min(alpha, 0.5))


@dataclass(frozen=True)
class AdaptParams:
    """Inputs of Adapt-Patient (Algorithm 2) and the constants of our reading of Section 6.3
    (docs/decisions/manegueu2020.md#adapt-patient): (alpha_low, c, mu_low) = (0.1, 0.7, 0.6) in
    Section 8.3."""

    alpha_low: float = 0.1
    c: float = 0.7
    mu_low: float = 0.6
    lcb_constant: float = 24.0  # the 24 of the lower confidence bound on alpha
    window_alpha: float = 0.1  # the alpha in d_t = floor((c/2)^(1/alpha) D_t); alpha_low by default
    # True: play the lower confidence value alpha_t that Section 6.3 defines; False: the raw
    # estimate alpha_hat_t (floored at alpha_low), the reading under which Figure 7's curve
    # approaches alpha (docs/decisions/manegueu2020.md#raw-estimate)
    lower_confidence: bool = True


@register_jitable
def alpha_estimates(
    diff: float,
    top_pulls: float,
    log_term: float,
    alpha_low: float,
    c: float,
    mu_low: float,
    lcb_constant: float,
    lower_confidence: bool,
) -> tuple[float, float]:
    """(alpha_hat_t, alpha_t) of Section 6.3, as we read the garbled extraction:
    alpha_hat = min(-log(m_{t,D} - m_{t,d}) / log(T_bar), 1) (1 when the difference is not
    positive) and the lower confidence value
    alpha_t = max(alpha_low, alpha_hat - log(lcb_constant sqrt(log(2 K T^3)) / (c mu_low)) / log(T_bar)),
    or, without ``lower_confidence``, alpha_t = max(alpha_low, alpha_hat).
    """
    log_pulls = math.log(top_pulls)
    alpha_hat = min(-math.log(diff) / log_pulls, 1.0) if diff > 0.0 else 1.0
    if not lower_confidence:
        return alpha_hat, max(alpha_low, alpha_hat)
    width = math.log(lcb_constant * math.sqrt(log_term) / (c * mu_low)) / log_pulls
    return alpha_hat, max(alpha_low, alpha_hat - width)


@register_jitable
def windows(top_pulls: int, c: float, window_alpha: float) -> tuple[int, int]:
    """(D_t, d_t): D_t = floor(T_bar / 2) and d_t = max(1, floor((c / 2)^(1 / alpha) D_t)), so that
    D_t^-alpha <= (c/2) d_t^-alpha for every alpha >= ``window_alpha`` (Section 6.3)."""
    big = top_pulls // 2
    small = max(1, int(math.floor((c / 2.0) ** (1.0 / window_alpha) * big)))
    return big, small


@dataclass
class PatientPolicy:
    """Patient Bandits (Algorithm 1) with tail parameter ``alpha_tilde``, or Adapt-Patient
    (Algorithm 2) when ``adapt`` is given, as a policy of ``references.run``: it knows a pull's
    conversion only once it has arrived (``observe``), and records (t, alpha_hat_t, alpha_t,
    m_{t,D_t} - m_{t,d_t}), the estimate used to choose the arm of round t and the difference it
    came from (NaN before the first estimate), at each round of ``checkpoints``."""

    n_arms: int
    horizon: int
    alpha_tilde: float
    adapt: AdaptParams | None
    checkpoints: frozenset[int]
    actions: list[int] = field(default_factory=list)
    arrived: list[tuple[int, int, int]] = field(default_factory=list)  # (s, arm, D_s)
    trace: list[tuple[int, float, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.log_term = math.log(2.0 * self.n_arms * float(self.horizon) ** 3)
        self.alpha_hat = self.alpha_t = self.alpha_tilde
        self.difference = math.nan

    def _estimate_alpha(self, t: int, pulls: list[int]) -> None:
        """Section 6.3 on the most-pulled arm: m_{t,B} counts its conversions with D <= B among
        its pulls s <= t - D_t, all of which have arrived by round t."""
        adapt = self.adapt
        top = first_argmax([float(p) for p in pulls])
        if pulls[top] < 2:
            return
        big, small = windows(pulls[top], adapt.c, adapt.window_alpha)
        known = [d for s, k, d in self.arrived if k == top and s <= t - big]
        count_big = sum(1 for d in known if d <= big)
        count_small = sum(1 for d in known if d <= small)
        self.difference = (count_big - count_small) / pulls[top]
        self.alpha_hat, self.alpha_t = alpha_estimates(
            self.difference,
            float(pulls[top]),
            self.log_term,
            adapt.alpha_low,
            adapt.c,
            adapt.mu_low,
            adapt.lcb_constant,
            adapt.lower_confidence,
        )

    def choose(self, t: int) -> int:
        pulls = [self.actions.count(k) for k in range(self.n_arms)]
        if self.adapt is not None:
            self._estimate_alpha(t, pulls)
            if t in self.checkpoints:
                self.trace.append((t, self.alpha_hat, self.alpha_t, self.difference))
        initial = self.n_arms * (2 if self.adapt is not None else 1)  # Algorithm 2: each arm twice
        if t <= initial:
            return (t - 1) % self.n_arms
        alpha = self.alpha_t if self.adapt is not None else self.alpha_tilde
        seen = [sum(1 for _, k, _ in self.arrived if k == arm) for arm in range(self.n_arms)]
        return first_argmax(
            [
                patient_index(seen[k] / pulls[k], float(pulls[k]), alpha, self.log_term)
                for k in range(self.n_arms)
            ]
        )

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.arrived.append((s, arm, delay))


def run_patient(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    alpha_tilde: float,
    adapt: AdaptParams | None,
    checkpoints: np.ndarray,
) -> tuple[np.ndarray, list[tuple[int, float, float, float]]]:
    """``PatientPolicy`` through the shared loop with this paper's timing (eq. 1: the pull of
    round s is seen from round s + max(D_s, 1)); returns the arms played and the trace."""
    horizon, n_arms = uniforms.shape
    policy = PatientPolicy(
        n_arms, horizon, alpha_tilde, adapt, frozenset(int(t) for t in checkpoints)
    )
    actions = run(policy, mu, uniforms, delays, None, usable=lambda s, d: s + max(d, 1))
    return actions, policy.trace
