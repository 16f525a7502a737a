"""Claims of Vernade, Cappé, Perchet (UAI 2017), Section 7 and Appendix D."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits.claims import Checker, Claim, at, below, diff_se, verdict, within
from delayed_bandits.papers.vernade2017 import lower_bounds
from delayed_bandits.papers.vernade2017.experiment import Setting

# "Costs little": the paper shows no number; we call a relative increase of regret at T of at
# most this much "little" (docs/decisions.md, Vernade 2017 Figure 3).
LITTLE = 0.25
KL_WHY = (
    "the KL index's advantage is largest when the means are near 0; with theta_L's means and "
    "this horizon the two indices may still play alike"
)


def _setting(fig_cfg: Mapping[str, Any], name: str) -> Setting:
    return Setting.from_config(fig_cfg["settings"][name], name)


def _below(
    summary: pd.DataFrame,
    setting: str,
    low: str,
    high: str,
    cid: str,
    statement: str,
    ref: str,
    why: str,
    t: int | None = None,
) -> Claim:
    """Claim that ``low`` has less regret than ``high`` at round t (default T), by > 2 SE (fails:
    more regret by > 2 SE); ``why`` is what may explain it when it does not hold."""
    a, b = at(summary, setting, low, t), at(summary, setting, high, t)
    d, se = b.mean - a.mean, diff_se(a, b)
    holds = below(a, b)
    return Claim(
        cid,
        statement,
        ref,
        f"{low} {a}; {high} {b}; difference {d:.1f} ± {se:.1f}",
        f"{high} - {low} > 2 SE (fails: < -2 SE)",
        holds,
        "" if holds else why,
    )


def fig1(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary = tables["summary"]
    ref = "Section 7, Figure 1"
    claims = [
        _below(
            summary,
            "thetaL",
            "d-klucb",
            "d-ucb",
            "fig1-kl-beats-ucb-censored",
            "For theta_L, d-KLUCB ends with less regret than d-UCB",
            ref,
            KL_WHY,
        ),
        _below(
            summary,
            "thetaL",
            "ud-klucb",
            "ud-ucb",
            "fig1-kl-beats-ucb-uncensored",
            "For theta_L, ud-KLUCB ends with less regret than ud-UCB",
            ref,
            KL_WHY,
        ),
    ]
    ratio, ratio_se = {}, {}
    for s in ("thetaH", "thetaL"):
        u, k = at(summary, s, "d-ucb"), at(summary, s, "d-klucb")
        ratio[s] = u.mean / k.mean
        ratio_se[s] = ratio[s] * math.hypot(u.se / u.mean, k.se / k.mean)  # delta method
    spread = math.hypot(ratio_se["thetaH"], ratio_se["thetaL"])
    central = verdict(ratio["thetaL"] - ratio["thetaH"], spread)
    claims.append(
        Claim(
            "fig1-ucb-fine-for-central-rates",
            "UCB is satisfactory for central rates (theta_H) but clearly sub-optimal for low rates "
            "(theta_L): the UCB/KLUCB regret ratio at T is larger for theta_L",
            ref,
            f"d-UCB/d-KLUCB at T: theta_H {ratio['thetaH']:.2f} ± {ratio_se['thetaH']:.2f}, "
            f"theta_L {ratio['thetaL']:.2f} ± {ratio_se['thetaL']:.2f}",
            "ratio(theta_L) - ratio(theta_H) > 2 SE (fails: < -2 SE)",
            central,
            ""
            if central
            else "the confidence width sqrt(log t / N) of UCB is loosest relative to the "
            "means when they are small, but here KL-UCB's advantage is not larger for theta_L",
        )
    )
    # Theorem 11: DelayedKLUCB's regret grows at most like LB / (1 - theta*) log T, LB of Thm 3.
    # Theorems 3 and 11 bound the tau_m-weighted regret of eq. (3) in the censored setting; the
    # summary holds pseudo-regret, so the censored constant is put on that scale (/ tau_m).
    st = _setting(fig_cfg, "thetaL")
    tau_m = float(st.delay.cdf(st.window))
    weighted = lower_bounds.censored_constant(st.theta, tau_m)
    censored = lower_bounds.censored_pseudo_constant(st.theta, tau_m)
    uncensored = lower_bounds.uncensored_constant(st.theta)
    for alg, lb, thm, constant in (
        (
            "d-klucb",
            censored,
            "3",
            f"Theorem 3 constant {weighted:.2f} (regret of eq. 3) / "
            f"τ_m = {tau_m:.4f}: {censored:.2f}",
        ),
        ("ud-klucb", uncensored, "4", f"Theorem 4 constant {uncensored:.2f}"),
    ):
        bound = lb / (1.0 - float(st.theta.max()))
        end = at(summary, "thetaL", alg)
        mid = at(summary, "thetaL", alg, end.t // 2)
        rate = (end.mean - mid.mean) / math.log(end.t / mid.t)
        se = diff_se(end, mid) / math.log(end.t / mid.t)
        optimal = verdict(bound - rate, se)
        claims.append(
            Claim(
                f"fig1-{alg}-near-optimal-rate",
                f"For theta_L, {alg}'s regret grows no faster than the optimal log T rate up to the "
                "Poisson factor 1/(1 - theta*) (Theorem 11)",
                f"Section 7; Theorems {thm} and 11",
                f"pseudo-regret dR/dlog t over [T/2, T] = {rate:.1f} ± {se:.1f}; {constant}",
                f"rate + 2 SE < {bound:.2f} (= pseudo-regret constant / (1 - theta*)); fails: "
                "rate - 2 SE above it",
                optimal,
                ""
                if optimal
                else "the bound is asymptotic: over [T/2, T] the regret still carries the "
                "delay's transient (mean delay 500 against T = 10000)",
            )
        )
    return claims


def fig2(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary = tables["summary"]
    ref = "Section 7, Figure 2"
    claims = []
    for name in fig_cfg["settings"]:
        st = _setting(fig_cfg, name)
        uniform_rate = float(np.mean(st.theta.max() - st.theta))
        for kind in ("ucb", "klucb"):
            disc = at(summary, name, f"discarding-{kind}", st.window)
            rate = disc.mean / disc.t
            linear = within(rate, disc.se / disc.t, 0.95 * uniform_rate, 1.05 * uniform_rate)
            claims.append(
                Claim(
                    f"fig2-{name}-discarding-{kind}-linear-phase",
                    f"Discarding {kind.upper()} has linear regret during the first m rounds",
                    ref,
                    f"R(t)/t at t={disc.t}: {rate:.4f} ± {disc.se / disc.t:.4f}; uniform play "
                    f"{uniform_rate:.4f}",
                    "R(m)/m within 5% of the uniform-play rate, at 2 SE",
                    linear,
                    ""
                    if linear
                    else "Discarding plays round robin only while an arm has no pull older than "
                    "m (docs/decisions.md); the checkpoint at t = m may include rounds played by "
                    "its index, or the round robin's order may favour an arm over so few rounds",
                )
            )
            claims.append(
                _below(
                    summary,
                    name,
                    f"d-{kind}",
                    f"discarding-{kind}",
                    f"fig2-{name}-d-{kind}-better-early",
                    f"d-{kind.upper()} learns during the first m rounds: less regret "
                    f"than Discarding {kind.upper()} at t = m",
                    ref,
                    "at t = m few conversions have arrived (mean delay 500), so d-UCB's "
                    "estimates S / N~ are noisy and its width sqrt(log t / N~) wide: it cannot "
                    "yet separate the arms and plays about as uniformly as Discarding's round "
                    "robin, which is uniform play exactly"
                    if kind == "ucb"
                    else "at t = m the censored conversions are few, so d-KLUCB's index has "
                    "barely left uniform play",
                    st.window,
                )
            )
            claims.append(
                _below(
                    summary,
                    name,
                    f"d-{kind}",
                    f"discarding-{kind}",
                    f"fig2-{name}-discarding-{kind}-ends-above",
                    f"Discarding {kind.upper()} ends above d-{kind.upper()} at T",
                    ref,
                    "Discarding recovers after its m-round phase and the gap closes by T",
                )
            )
    return claims


def fig3(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary = tables["summary"]
    claims = []
    for name in fig_cfg["settings"]:
        for known in ("d-klucb", "ud-klucb"):
            a, b = at(summary, name, known), at(summary, name, f"{known}-est")
            rel = (b.mean - a.mean) / a.mean
            rel_se = b.mean / a.mean * math.hypot(a.se / a.mean, b.se / b.mean)  # delta method
            little = verdict(LITTLE - rel, rel_se)
            claims.append(
                Claim(
                    f"fig3-{name}-{known}-estimation-costs-little",
                    f"Estimating the delay CDF online costs little regret ({known})",
                    "Appendix D, Figure 3",
                    f"known CDF {a}; estimated {b}; relative change {rel:+.1%} ± {rel_se:.1%}",
                    f"relative increase below {LITTLE:.0%} by 2 SE (fails: above by 2 SE)",
                    little,
                    ""
                    if little
                    else "the estimated CDF is poor early on (few observed delays), and the "
                    "index's correction 1 / tau(d) magnifies its error",
                )
            )
    return claims


CHECKS: dict[str, Checker] = {"fig1": fig1, "fig2": fig2, "fig3": fig3}
