"""Asymptotic regret lower bounds of Vernade et al. 2017 (Section 4): R(T) >~ c log T.

Theorem 3's R(T) in the censored setting is the regret of eq. (3), where a pull older than m costs
τ_m Δ_k; the figures plot pseudo-regret, where it costs Δ_k. ``censored_constant`` is the theorem's
constant; ``censored_pseudo_constant`` is the same bound on the plotted scale."""

from __future__ import annotations

import math

import numpy as np


def bernoulli_kl(p: float, q: float) -> float:
    """d(p, q), the Kullback-Leibler divergence between Bernoulli(p) and Bernoulli(q)."""

    def term(a: float, b: float) -> float:
        return a * math.log(a / b) if a > 0 else 0.0

    return term(p, q) + term(1 - p, 1 - q)


def censored_constant(theta: np.ndarray, tau_m: float) -> float:
    """Theorem 3: sum_{k != *} tau_m (theta* - theta_k) / d(tau_m theta_k, tau_m theta*)."""
    best = float(theta.max())
    return sum(
        tau_m * (best - th) / bernoulli_kl(tau_m * th, tau_m * best) for th in theta if th < best
    )


def censored_pseudo_constant(theta: np.ndarray, tau_m: float) -> float:
    """Theorem 3 on the pseudo-regret scale: sum_{k != *} (theta* - theta_k) /
    d(tau_m theta_k, tau_m theta*). The proof bounds E[N_k(T)] by log T / d(tau_m theta_k,
    tau_m theta*); eq. (3) weighs each of those pulls by tau_m Delta_k, pseudo-regret by Delta_k,
    hence Theorem 3's constant divided by tau_m."""
    return censored_constant(theta, tau_m) / tau_m


def uncensored_constant(theta: np.ndarray) -> float:
    """Theorem 4 (Lai & Robbins): sum_{k != *} (theta* - theta_k) / d(theta_k, theta*)."""
    return censored_constant(theta, 1.0)
