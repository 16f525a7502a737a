"""Claims of Vernade et al. (ICML 2020), Section 8 (Figures 1-3).

Figures 1 and 3 run both readings of the confidence widths (``paper`` and ``code``, see
``policies/vernade2020.py``), each on an action-set construction: the paper's widths on the
text's {0,1}^d, the authors' code (its widths on its simulator's [0,1]^d) and the code's widths on
{0,1}^d. Every claim about the curves is checked once per (width, action set) reading, so the
claims say which reading reproduces the paper's curves, and the code-binary reading separates the
width effect from the action-set effect. The claims about the delay laws (τ_m, the heavy-tailed
mass) are computed from the laws in the config, so they are checks. Claims that compare curves of a
panel (which share their draws) or two rounds of one curve use the runs, paired."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import curves as cv
from delayed_bandits import delays, grid
from delayed_bandits.claims import (
    CHECK,
    Checker,
    Claim,
    Paired,
    Point,
    at,
    band,
    every,
    needed,
    paired,
    per_run,
    ratio,
    runs_needed,
    verdict,
    within,
    zse,
)
from delayed_bandits.papers.vernade2020.experiment import Setting, draw_action_sets, heavy_law

# Our quantifications of the paper's words (docs/decisions/vernade2020.md#claim-thresholds):
LINEAR, BENT = 0.8, 0.6  # growth (R(T) - R(T/2)) / R(T/2): 1 when linear, 0.41 for sqrt(t)
ABOUT = 100.0  # "roughly R(T) = 100"; the band around it is the figure's `roughly_band`
MANY = 0.1  # "many rewards will not be observed within the horizon": at least 10% of them
UNIFORM_DRAWS = 20_000  # action sets drawn to estimate the regret rate of uniform play
REFERENCE = "Section 8"
ACTIONS = {"binary": "{0,1}^d", "continuous": "[0,1]^d"}  # how a claim's tag names the construction

# τ_m as Section 8 quotes it for Figure 1's panels: (m, mu) -> (quoted, as printed, decimals,
# whether the paper quotes 1/τ_m)
QUOTED_TAU = {
    (100, 100): (0.63, "τ_m = 0.63", 2, False),
    (500, 100): (0.993, "τ_m = 0.993", 3, False),
    (100, 500): (5.5, "1/τ_m = 5.5", 1, True),
}


def growth(summary: pd.DataFrame, setting: str, algorithm: str) -> float:
    """(R(T) - R(T/2)) / R(T/2): 1 for a linear curve, about 0.41 for √t, near 0 once flat."""
    end = at(summary, setting, algorithm)
    half = at(summary, setting, algorithm, end.t // 2)
    return (end.mean - half.mean) / half.mean


def paired_growth(runs: pd.DataFrame, setting: str, algorithm: str) -> Paired:
    """``growth`` with its SE from the runs: R(T) / R(T/2) - 1 by ``ratio`` (the same runs give
    both rounds, so they are not independent)."""
    end = per_run(runs, setting, algorithm)
    half = per_run(runs, setting, algorithm, int(runs.t.max()) // 2)
    r = ratio(end, half)
    return Paired(r.mean - 1.0, r.se, r.n)


def curve_setting(fig_cfg: Mapping[str, Any], setting: str, curve: str) -> Setting:
    """The setting as one curve sees it, its variant's keys (width, action set, ...) applied."""
    _, merged = cv.resolve(fig_cfg, grid.settings(fig_cfg)[setting], curve)
    return Setting.from_config(merged, f"{setting}/{curve}")


def readings(fig_cfg: Mapping[str, Any]) -> dict[str, tuple[str, dict[str, str]]]:
    """reading id ``<width>-<action set>`` -> (the tag that starts its claims, {registry id: curve
    id}) of the figure's curves, in the order of the config (first setting's view)."""
    setting = next(iter(grid.settings(fig_cfg)))
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for curve in fig_cfg["algorithms"]:
        st = curve_setting(fig_cfg, setting, curve)
        registry_id, _ = cv.resolve(fig_cfg, grid.settings(fig_cfg)[setting], curve)
        tag = f"[{st.width} width, {ACTIONS[st.action_set]} actions]"
        out.setdefault(f"{st.width}-{st.action_set}", (tag, {}))[1][registry_id] = curve
    return out


def panels(fig_cfg: Mapping[str, Any]) -> dict[tuple[int, int], str]:
    """(m, mean delay) -> setting id, for the settings with geometric delays (Figure 1)."""
    found = {}
    for name, raw in grid.settings(fig_cfg).items():
        st = Setting.from_config(raw, f"setting {name}")
        if isinstance(st.delay, delays.Geometric):
            found[(st.window, int(round(st.delay.mu)))] = name
    return found


def uniform_rate(st: Setting) -> float:
    """E[max_a <a, θ> - <A, θ>] for A uniform in the action set: the per-round regret of a policy
    that does not learn, estimated on ``UNIFORM_DRAWS`` action sets of a fixed seed."""
    rng = np.random.default_rng(0)
    means = (
        draw_action_sets(rng, UNIFORM_DRAWS, st.n_actions, st.dimension, st.action_set) @ st.theta
    )
    return float((means.max(axis=1) - means.mean(axis=1)).mean())


def late_rate(summary: pd.DataFrame, setting: str, curve: str) -> float:
    """Regret per round over [T/2, T]."""
    end = at(summary, setting, curve)
    half = at(summary, setting, curve, end.t // 2)
    return (end.mean - half.mean) / (end.t - half.t)


def _exploring(
    tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any], setting: str, curve: str
) -> str:
    """A note on a curve that still explores: its late regret rate against uniform play, and
    its width at T (from the runs' traces). Uniform play is on the curve's own action sets."""
    st = curve_setting(fig_cfg, setting, curve)
    text = (
        f"{curve} in {setting} loses {late_rate(tables['summary'], setting, curve):.3f} per "
        f"round over [T/2, T] against {uniform_rate(st):.3f} for uniform play"
    )
    events = tables.get("events")
    if events is not None and "width" in events.columns:
        rows = events[(events.setting == setting) & (events.algorithm == curve)]
        rows = rows[rows.t == rows.t.max()]
        if not rows.empty:
            text += (
                f"; its width multiplier at T is {rows.width.mean():.2f} (window sum "
                f"{rows.window_sum.mean():.2f})"
            )
    return text


def _tau(fig_cfg: Mapping[str, Any], setting: str) -> float:
    return Setting.from_config(grid.settings(fig_cfg)[setting], setting).tau_m


def _pair(
    tables: Mapping[str, pd.DataFrame], setting: str, ucb: str, ts: str
) -> tuple[Point, Point, Paired, bool | None]:
    """UCB and TS at T, TS - UCB over the paired runs (the curves of a panel share their draws),
    and the rule's verdict on "UCB ends below TS"."""
    summary, runs = tables["summary"], tables["runs"]
    diff = paired(per_run(runs, setting, ts), per_run(runs, setting, ucb))
    return at(summary, setting, ucb), at(summary, setting, ts), diff, verdict(diff.mean, diff.se)


def _band(rate: float, linear: bool) -> bool | None:
    """A growth over [T/2, T] against the thresholds: >= LINEAR linear, <= BENT bent, in between
    inconclusive; the verdict on "linear" (or on "bent" when ``linear`` is False)."""
    return band(rate, BENT, LINEAR, above=linear)


def _pair_note(
    tables: Mapping[str, pd.DataFrame],
    fig_cfg: Mapping[str, Any],
    pairs: Mapping[str, tuple[Point, Point, Paired, bool | None]],
    ucb: str,
) -> str:
    """What may explain a UCB-vs-TS claim that does not hold: the panels that cannot separate the
    two curves, and the exploring curve of the first panel where TS is below."""
    tied = [s for s, p in pairs.items() if p[3] is None]
    lost = [s for s, p in pairs.items() if p[3] is False]
    parts = []
    if tied:
        parts.append(
            f"{', '.join(tied)}: the difference lies within {zse()}, the runs cannot separate them"
            + "".join(
                f"; {s} would need about {n} runs at its measured difference and per-run spread"
                for s in tied
                if (n := runs_needed(pairs[s][2].mean, pairs[s][2].se, pairs[s][2].n))
            )
        )
    if lost:
        parts.append(_exploring(tables, fig_cfg, lost[0], ucb))
    return "; ".join(parts)


def fig1(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary = tables["summary"]
    where = panels(fig_cfg)
    claims = []
    for key, (quoted, printed, decimals, inverse) in QUOTED_TAU.items():
        if key not in where:
            continue
        tau = _tau(fig_cfg, where[key])
        value = 1.0 / tau if inverse else tau
        claims.append(
            Claim(
                f"fig1-tau-m{key[0]}-mu{key[1]}",
                f"For (m, μ) = {key}, {printed}",
                f"{REFERENCE}, Figure 1",
                f"τ_m = P(D <= {key[0]}) = {tau:.4f} (geometric, "
                f"mean {key[1]})" + (f", 1/τ_m = {value:.3f}" if inverse else ""),
                f"{quoted} to {decimals} decimals",
                bool(round(value, decimals) == quoted),
                kind=CHECK,  # arithmetic on the config's delay law: no run enters
            )
        )
    left = [where[k] for k in ((100, 100), (500, 100)) if k in where]
    censored = where.get((100, 500))
    for reading, (tag, curves) in readings(fig_cfg).items():
        ucb, ts = curves.get("otflinucb"), curves.get("otflints")
        if ucb and ts:
            pairs = {s: _pair(tables, s, ucb, ts) for s in grid.settings(fig_cfg)}
            holds = every(p[3] for p in pairs.values())
            claims.append(
                Claim(
                    f"fig1-ucb-beats-ts-{reading}",
                    f"{tag} In all three cases, OTFLinUCB performs better than OTFLinTS",
                    f"{REFERENCE}, Figure 1",
                    "; ".join(
                        f"{s}: UCB {a}, TS {b}, TS - UCB {d}" for s, (a, b, d, _) in pairs.items()
                    ),
                    f"UCB's regret at T below TS's by more than {zse()} of the paired difference in "
                    f"every panel (fails: above by more than {zse()} in one)",
                    holds,
                    "" if holds else _pair_note(tables, fig_cfg, pairs, ucb),
                    runs_needed=needed(holds, [p[2] for p in pairs.values()]),
                )
            )
        if censored and ucb and ts:
            rates = {c: growth(summary, censored, c) for c in (ucb, ts)}
            holds = every(_band(r, linear=True) for r in rates.values())
            bent = min(rates, key=rates.get)
            claims.append(
                Claim(
                    f"fig1-censored-panel-linear-{reading}",
                    f"{tag} With (m, μ) = (100, 500), both algorithms are still in the linear regime "
                    "at T = 3000",
                    f"{REFERENCE}, Figure 1 (right)",
                    "; ".join(f"{c}: (R(T) - R(T/2)) / R(T/2) = {r:.2f}" for c, r in rates.items()),
                    f">= {LINEAR} for both (fails: <= {BENT} for one)",
                    holds,
                    ""
                    if holds
                    else f"{bent}'s late growth is {rates[bent]:.2f}: the few conversions "
                    f"the window lets through (τ_m = {_tau(fig_cfg, censored):.2f}) suffice, since "
                    "θ̂ estimates τ_m θ, which ranks the actions as θ does",
                )
            )
        if left and ucb and ts:
            rates = {(s, c): growth(summary, s, c) for s in left for c in (ucb, ts)}
            holds = every(_band(r, linear=False) for r in rates.values())
            straight = max(rates, key=rates.get)
            claims.append(
                Claim(
                    f"fig1-other-panels-bent-{reading}",
                    f"{tag} With (m, μ) = (100, 100) and (500, 100), both algorithms have left the "
                    "linear regime by T = 3000 (the log regime starts)",
                    f"{REFERENCE}, Figure 1",
                    "; ".join(f"{s} {c}: {r:.2f}" for (s, c), r in rates.items()),
                    f"(R(T) - R(T/2)) / R(T/2) <= {BENT} for both in both panels (fails: >= "
                    f"{LINEAR} for one)",
                    holds,
                    "" if holds else _exploring(tables, fig_cfg, *straight),
                )
            )
        if len(left) == 2 and ucb:
            points = {s: at(summary, s, ucb) for s in left}
            width = float(fig_cfg["roughly_band"])
            low, high = ABOUT * (1.0 - width), ABOUT * (1.0 + width)
            inside = {s: within(p.mean, p.se, low, high) for s, p in points.items()}
            holds = every(inside.values())
            # a curve above the band still explores; one below it, or at an end, learns faster
            above = [s for s, v in inside.items() if v is not True and points[s].mean > high]
            note = "; ".join(
                f"{s}: R(T) = {points[s].mean:.1f} ± {points[s].se:.1f} "
                + ("lies below" if v is False else "straddles an end of")
                + f" [{low:.0f}, {high:.0f}] at {zse()}"
                for s, v in inside.items()
                if v is not True and s not in above
            )
            if above:
                note = "; ".join(filter(None, (note, _exploring(tables, fig_cfg, above[0], ucb))))
            claims.append(
                Claim(
                    f"fig1-regret-about-100-{reading}",
                    f"{tag} OTFLinUCB's asymptotic regret is similar, roughly R(T) = 100, with "
                    "(m, μ) = (100, 100) and (500, 100)",
                    f"{REFERENCE}, Figure 1",
                    "; ".join(f"{s}: {p}" for s, p in points.items()),
                    f"R(T) in [{low:.0f}, {high:.0f}] in both panels, at {zse()}",
                    holds,
                    note,
                )
            )
            rates = {s: paired_growth(tables["runs"], s, ucb) for s in left}
            # the two panels draw their environments apart (own seeds): independent growths
            later = Paired(
                rates[left[0]].mean - rates[left[1]].mean,
                math.hypot(*(r.se for r in rates.values())),
                min(r.n for r in rates.values()),
            )
            holds = verdict(later.mean, later.se)
            claims.append(
                Claim(
                    f"fig1-larger-window-bends-earlier-{reading}",
                    f"{tag} With the larger window (m = 500 vs 100, μ = 100) the log regime starts "
                    "earlier",
                    f"{REFERENCE}, Figure 1 (left and centre)",
                    "; ".join(
                        f"{s}: OTFLinUCB's (R(T) - R(T/2)) / R(T/2) = {r.mean:.3f} ± {r.se:.3f}"
                        for s, r in rates.items()
                    )
                    + f"; difference {later.mean:.3f} ± {later.se:.3f}",
                    f"smaller late growth with m = 500 by more than {zse()} (each growth's SE from "
                    "its runs; fails: larger by more)",
                    holds,
                    "" if holds else _exploring(tables, fig_cfg, left[1], ucb),
                    runs_needed=needed(holds, [later]),
                )
            )
    return claims


def fig2(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    _, st = heavy_law(fig_cfg)
    law = st.delay
    probs, values = np.asarray(law.probs), np.asarray(law.values)
    decades = np.arange(math.floor(values[0]), math.ceil(values[-1]))
    mass = np.interp(decades + 1, values, probs) - np.interp(decades, values, probs)
    top = int(decades[np.argmax(mass)])
    horizon = int(fig_cfg["horizon"])
    unseen = 1.0 - float(law.cdf(horizon - 1))
    median = float(np.interp(0.5, probs, values))
    return [
        Claim(
            "fig2-mass-1e5-1e6",
            "A high proportion of those delays are between 10^5 and 10^6 [seconds]",
            f"{REFERENCE}, Figure 2",
            "mass per decade of seconds: "
            + ", ".join(f"[1e{k}, 1e{k + 1}): {m:.2f}" for k, m in zip(decades, mass))
            + f"; median 10^{median:.2f} s",
            "[1e5, 1e6) holds the largest mass of any decade",
            bool(top == 5),
            kind=CHECK,  # a property of the input delay table
        ),
        Claim(
            "fig2-many-unobserved-within-T",
            "Nevertheless, many rewards will not be observed within the horizon",
            f"{REFERENCE}, Figure 2",
            f"P(D >= T = {horizon}) = {unseen:.3f}; beyond the window m = {st.window}: "
            f"1 - τ_m = {1.0 - st.tau_m:.3f}; mean delay {law.mean:.0f} rounds",
            f"P(D >= T) >= {MANY}",
            bool(unseen >= MANY),
            kind=CHECK,  # a property of the input delay table
        ),
    ]


def fig3(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary = tables["summary"]
    (setting,) = list(grid.settings(fig_cfg))
    claims = []
    for reading, (tag, curves) in readings(fig_cfg).items():
        ucb, ts = curves.get("otflinucb"), curves.get("otflints")
        if ucb:
            rate = growth(summary, setting, ucb)
            sublinear = _band(rate, linear=False)
            claims.append(
                Claim(
                    f"fig3-ucb-sublinear-{reading}",
                    f"{tag} OTFLinUCB is able to cope with heavy-tailed delays reasonably well: its "
                    "regret is clearly sublinear",
                    f"{REFERENCE}, Figure 3",
                    f"(R(T) - R(T/2)) / R(T/2) = {rate:.2f}; {at(summary, setting, ucb)}",
                    f"<= {BENT} (fails: >= {LINEAR})",
                    sublinear,
                    "" if sublinear else _exploring(tables, fig_cfg, setting, ucb),
                )
            )
        if ucb and ts:
            a, b, diff, below = _pair(tables, setting, ucb, ts)
            rates = {c: growth(summary, setting, c) for c in (ucb, ts)}
            bands = [_band(r, linear=False) for r in rates.values()]
            holds = every([below, *bands])
            claims.append(
                Claim(
                    f"fig3-like-central-panel-{reading}",
                    f"{tag} The behaviour of both algorithms is similar to the central plot of "
                    "Figure 1: OTFLinUCB below OTFLinTS, both past the linear regime",
                    f"{REFERENCE}, Figure 3",
                    f"UCB {a}, TS {b}, TS - UCB {diff}; growth "
                    + ", ".join(f"{c} {r:.2f}" for c, r in rates.items()),
                    f"UCB below TS by more than {zse()} of the paired difference, both growths <= "
                    f"{BENT} (fails: UCB above TS by more than {zse()}, or a growth >= {LINEAR})",
                    holds,
                    ""
                    if holds
                    else _exploring(tables, fig_cfg, setting, max(rates, key=rates.get)),
                    # more runs decide the difference, not a growth between the thresholds
                    runs_needed=needed(holds, [diff]) if None not in bands else None,
                )
            )
    return claims


CHECKS: dict[str, Checker] = {"fig1": fig1, "fig2": fig2, "fig3": fig3}
