"""Claims of Pike-Burke et al. (ICML 2018), Section 5 and Appendix E.

The curves of a figure share their runs (every algorithm faces the same draws; Appendix E's five
delays too, ``shared_draws``), so every comparison here is of statistics of the same runs and
goes through per-run values and ``claims.paired``: ratios of means through ``claims.log_mean``."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits.claims import (
    CHECK,
    Checker,
    Claim,
    Paired,
    every,
    log_mean,
    paired,
    per_run,
    runs_needed,
    verdict,
    zse,
)
from delayed_bandits.papers.pikeburke2018.analysis import at_horizon
from delayed_bandits.papers.pikeburke2018.experiment import Setting, coefficient_band

# "The ratios converge to a constant": we call a ratio converged when it moves by at most this
# relative amount over the last quarter of the horizon, by 2 SE
# (docs/decisions/pikeburke2018.md#claim-thresholds).
CONVERGED = 0.10
# "ODAAF-V had only just eliminated the suboptimal arm at time T": elimination after this
# fraction of the horizon counts as "only just".
LATE = 0.75
# Section 5 contrasts a small delay variance (Poisson, V = E[tau]) with the exponential's
# V = E[tau]^2; we classify by V / E[tau]^2 and make no variance claim in between.
SMALL_VARIANCE, LARGE_VARIANCE = 0.1, 0.9
PHASE_NOTE = (
    "ODAAF's regret grows in jumps at phase ends; a phase ending in the last quarter "
    "moves the ratio"
)


def _ratio(ratios: pd.DataFrame, setting: str, alg: str, t: int | None = None) -> pd.Series:
    rows = ratios[(ratios.setting == setting) & (ratios.algorithm == alg)]
    if t is not None:
        rows = rows[rows.t <= t]
    return rows.loc[rows.t.idxmax()]


def _judge(parts: list[tuple[float, Paired]]) -> tuple[bool | None, int | None]:
    """``every`` part's ``verdict`` (each part an effect, positive when the claim is true, of a
    paired statistic), and when that is inconclusive the runs that would settle the unsettled
    parts (``runs_needed``, the most of them; None if one has an effect of exactly 0)."""
    holds = every(verdict(effect, p.se) for effect, p in parts)
    if holds is not None:
        return holds, None
    needed = [runs_needed(e, p.se, p.n) for e, p in parts if verdict(e, p.se) is None]
    return None, None if None in needed else max(n for n in needed if n is not None)


def _drift(runs: pd.DataFrame, fig_cfg: Mapping[str, Any], setting: str, alg: str) -> Paired:
    """ln(r(T) / r(3T/4)) of the ratio r of ``alg``'s mean regret to the baseline's, from the same
    runs at both rounds (``log_mean``)."""
    base, quarter = fig_cfg["baseline"], 3 * int(fig_cfg["horizon"]) // 4

    def log_ratio(t: int | None) -> pd.Series:
        return log_mean(per_run(runs, setting, alg, t)) - log_mean(per_run(runs, setting, base, t))

    return paired(log_ratio(None), log_ratio(quarter))


def _converged(drift: Paired) -> list[tuple[float, Paired]]:
    """The parts of "the ratio converges": its relative change over the last quarter,
    1 - r(3T/4) / r(T) = 1 - exp(-drift), within +-CONVERGED, i.e. the drift within
    [-ln(1 + CONVERGED), -ln(1 - CONVERGED)], each side by Z SE."""
    low, high = -math.log1p(CONVERGED), -math.log1p(-CONVERGED)
    return [(drift.mean - low, drift), (high - drift.mean, drift)]


def _change(drift: Paired) -> str:
    """The relative change 1 - r(3T/4) / r(T) with its delta-method SE."""
    return f"{-math.expm1(-drift.mean):+.1%} ± {math.exp(-drift.mean) * drift.se:.1%}"


def _converges(
    ratios: pd.DataFrame, runs: pd.DataFrame, fig_cfg: Mapping[str, Any], ref: str
) -> list[Claim]:
    claims = []
    horizon = int(fig_cfg["horizon"])
    for (setting, alg), _ in ratios.groupby(["setting", "algorithm"]):
        end, quarter = _ratio(ratios, setting, alg), _ratio(ratios, setting, alg, 3 * horizon // 4)
        drift = _drift(runs, fig_cfg, setting, alg)
        holds, needed = _judge(_converged(drift))
        claims.append(
            Claim(
                f"{setting}-{alg}-ratio-converges",
                f"The ratio of {alg} to QPM-D converges to a constant ({setting})",
                ref,
                f"ratio {quarter.ratio:.2f} at t={quarter.t}, {end.ratio:.2f} [{end.lo:.2f}, "
                f"{end.hi:.2f}] at T; relative change {_change(drift)} over {drift.n} paired "
                "runs",
                f"relative change over the last quarter within ±{CONVERGED:.0%} by {zse()} (fails: "
                f"beyond it by {zse()})",
                holds,
                ""
                if holds
                else PHASE_NOTE
                if holds is False
                else f"the change cannot be told from ±{CONVERGED:.0%} at {drift.n} runs",
                runs_needed=needed,
            )
        )
    return claims


def _same_jumps(events: pd.DataFrame, ref: str) -> list[Claim]:
    """Phase ends are fixed by n_m; they can differ between replications only through which arms
    were eliminated in which earlier phase. Group by (phase, that history); count distinct ends."""
    claims = []
    for (setting, alg), ev in events.groupby(["setting", "algorithm"]):
        ev = ev.sort_values(["replication", "phase"])
        codes = ev.eliminated.astype(int).astype(str)
        history = codes.groupby(ev.replication).transform(
            lambda e: (e.shift(fill_value="") + ",").cumsum()
        )
        distinct = ev.assign(history=history).groupby(["phase", "history"]).step1_end.nunique()
        eliminated = ev[ev.eliminated != 0]
        claims.append(
            Claim(
                f"{setting}-{alg}-jumps-at-same-rounds",
                f"{alg}'s phase ends (its regret jumps) fall on the same rounds in every replication "
                f"({setting})",
                ref,
                f"{len(distinct)} (phase, elimination history) groups, at most "
                f"{int(distinct.max())} distinct end round(s); worse arm eliminated in "
                f"{eliminated.replication.nunique()} of {ev.replication.nunique()} runs",
                "1 distinct end round per group",
                bool(distinct.max() == 1),
                ""
                if distinct.max() == 1
                else "the phase ends depend on something besides n_m and the elimination "
                "history: a bug, or a reading of Algorithm 1 that differs from ours",
                # n_m is fixed in advance (Section 5: "predetermines the number of times to play
                # each active arm"): the runs cannot move the ends, only a bug can
                kind=CHECK,
            )
        )
    return claims


def _band(ratios: pd.DataFrame, runs: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """Section 6's "matches the order of regret of QPM-D, [but] the constants are worse", at every
    delay coefficient of the band: how much of ODAAF's ratio the coefficient (not in our copy of
    the paper) decides. Above QPM-D is judged on the same runs' differences at T."""
    claims = []
    base = fig_cfg["baseline"]
    for setting, coefficients in coefficient_band(fig_cfg).items():
        parts, at_t, judged = [], [], []
        for curve, k in coefficients.items():
            end = _ratio(ratios, setting, curve)
            drift = _drift(runs, fig_cfg, setting, curve)
            above = paired(per_run(runs, setting, curve), per_run(runs, setting, base))
            judged += _converged(drift) + [(above.mean, above)]
            parts.append(
                f"{k:g}: {end.ratio:.2f} [{end.lo:.2f}, {end.hi:.2f}] (change {_change(drift)}; "
                f"regret above {base}'s by {above.mean:.1f} ± {above.se:.1f})"
            )
            at_t.append(end.ratio)
        holds, needed = _judge(judged)
        claims.append(
            Claim(
                f"{setting}-odaaf-coefficient-band",
                "ODAAF's regret is of QPM-D's order with worse constants whatever the delay "
                f"coefficient of D_m in {min(coefficients.values()):g}-"
                f"{max(coefficients.values()):g}: its ratio converges and stays above 1 ({setting})",
                "Section 5, Figure 3; Section 6",
                "ratio at T by coefficient: "
                + "; ".join(parts)
                + f"; the coefficient moves the ratio at T by a factor {max(at_t) / min(at_t):.2f}"
                + f" ({above.n} paired runs)",
                f"at every coefficient, by {zse()}: relative change over the last quarter within "
                f"±{CONVERGED:.0%} and the regret at T above {base}'s (fails: either the other "
                f"way by {zse()})",
                holds,
                ""
                if holds
                else PHASE_NOTE
                if holds is False
                else f"the runs cannot settle it at {above.n} runs at every coefficient",
                runs_needed=needed,
            )
        )
    return claims


def _elimination(
    events: pd.DataFrame, setting: str, alg: str, horizon: int
) -> tuple[int, float, int]:
    """(runs that eliminated an arm, median round of it / T, phases completed by T)."""
    ev = events[(events.setting == setting) & (events.algorithm == alg)]
    rounds = ev[ev.eliminated.fillna(0) != 0].step1_end
    median = float(np.median(rounds)) / horizon if len(rounds) else float("nan")
    return len(rounds), median, int(ev.phase.max()) if len(ev) else 0


def ratio_claims(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """The paper's statements about its own algorithms; config variants (the coefficient band,
    the reimplementation's ODAAF-V constants) enter as the band claim and as measurements in the
    variance claims."""
    ref = "Section 5, Figure 3"
    ratios, events, runs = tables["ratios"], tables["events"], tables["runs"]
    variants = list(fig_cfg.get("variants", {}))
    claims = (
        _converges(ratios[~ratios.algorithm.isin(variants)], runs, fig_cfg, ref)
        + _same_jumps(events[~events.algorithm.isin(variants)].dropna(subset=["phase"]), ref)
        + _band(ratios, runs, fig_cfg)
    )
    if "odaaf-v" not in set(ratios.algorithm):
        return claims
    others = [
        v
        for v in variants
        if fig_cfg["variants"][v]["algorithm"] == "odaaf-v" and v in set(ratios.algorithm)
    ]
    n_runs, horizon = int(tables["summary"].n_runs.max()), int(fig_cfg["horizon"])
    for setting, scfg in fig_cfg["settings"].items():
        plain, informed = _ratio(ratios, setting, "odaaf"), _ratio(ratios, setting, "odaaf-v")
        delay = Setting.from_config(scfg, setting).delay
        spread = delay.variance / delay.mean**2
        if SMALL_VARIANCE < spread < LARGE_VARIANCE:
            continue  # neither of the paper's two cases
        large = spread >= LARGE_VARIANCE
        # both curves share the runs' draws: their per-run difference at T (ODAAF-V's regret
        # minus ODAAF's; the ratios share QPM-D's denominator, so the ratios' order is its sign)
        gap = paired(per_run(runs, setting, "odaaf-v"), per_run(runs, setting, "odaaf"))
        holds, needed = _judge([(gap.mean if large else -gap.mean, gap)])
        measured = (
            f"ratio at T: ODAAF-V {informed.ratio:.2f} [{informed.lo:.2f}, "
            f"{informed.hi:.2f}], ODAAF {plain.ratio:.2f} [{plain.lo:.2f}, {plain.hi:.2f}]; "
            f"regret of ODAAF-V minus ODAAF at T {gap}"
        )
        for other in others:
            row = _ratio(ratios, setting, other)
            measured += f"; {other}: {row.ratio:.2f} [{row.lo:.2f}, {row.hi:.2f}]"
        claims.append(
            Claim(
                f"{setting}-variance-{'hurts' if large else 'helps'}",
                "Knowing the variance "
                + (
                    "hurts when it is large (exponential: V = E[tau]^2)"
                    if large
                    else "helps when it is small"
                )
                + f" ({setting}, V / E[tau]^2 = {spread:.2f})",
                ref,
                measured,
                "ODAAF-V's regret at T "
                + ("above" if large else "below")
                + f" ODAAF's by {zse()} of the paired difference (fails: "
                + ("below" if large else "above")
                + f" by {zse()})",
                holds,
                ""
                if holds
                else "eq. (7)'s constants (calibrated, "
                "docs/decisions/pikeburke2018.md#eq7-calibration) set where ODAAF-V's "
                "phases end against ODAAF's eq. (2) phases",
                runs_needed=needed,
            )
        )
        if large:
            count, median, phases = _elimination(events, setting, "odaaf-v", horizon)
            holds = bool(count / n_runs > 0.5 and median >= LATE)
            measured = (
                f"eliminated in {count} of {n_runs} runs (median at {median:.2f} T); "
                f"{phases} phase(s) completed by T"
            )
            for other in others:
                count, median, phases = _elimination(events, setting, other, horizon)
                measured += (
                    f"; {other}: eliminated in {count} of {n_runs} runs"
                    + (f" (median at {median:.2f} T)" if count else "")
                    + f", {phases} phase(s) by T"
                )
            claims.append(
                Claim(
                    f"{setting}-odaaf-v-eliminates-late",
                    f"With a large delay variance ODAAF-V only just eliminates the worse arm by T "
                    f"({setting})",
                    ref,
                    measured,
                    f"eliminated in most runs, at a median after {LATE:.2f} T",
                    holds,
                    "a check, not a reproduction: eq. (7)'s constants are calibrated to this "
                    "statement (docs/decisions/pikeburke2018.md#eq7-calibration), so the claim "
                    "checks the runs against the "
                    "closed form, not the paper's appendix constants: phase 4, the first whose "
                    "tolerance 2^-4 is below the gap 0.1, ends its Step 1 at N_3 + 2 N_4",
                    kind=CHECK,
                )
            )
    return claims


def delay_sweep_claims(
    tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]
) -> list[Claim]:
    """Appendix E's "the regret of our algorithms and that of QPM-D all increase linearly in
    E[tau]", judged on each run's regrets at T across the delays (the settings share their draws,
    ``shared_draws``, so each run's fit is a paired measurement): its least-squares line rises
    (slope > 0 by Z SE of ``paired``; fails: falls by Z SE). "Linearly" has no stated tolerance,
    so it is reported, not judged: the bend of each run's least-squares parabola from a straight
    line over the range of E[tau] (its sagitta, curvature * width^2 / 4) against the line's rise
    (docs/decisions/pikeburke2018.md#appe-linear-claim)."""
    claims = []
    at_t = at_horizon(tables["summary"], fig_cfg)
    means = dict(zip(at_t.setting, at_t.mean_delay))
    settings = sorted(means, key=means.__getitem__)
    x = np.array([means[s] for s in settings])
    width = float(x.max() - x.min())
    line, parabola = np.vander(x, 2), np.vander(x, 3)  # columns x^k, highest power first
    shared = bool(fig_cfg.get("shared_draws", False))
    for alg, rows in at_t.groupby("algorithm"):
        y = pd.concat([per_run(tables["runs"], s, alg) for s in settings], axis=1)
        if y.isna().to_numpy().any():
            raise ValueError(f"appE {alg}: the delays must cover the same runs")
        # each run's fits: the coefficients are linear in its regrets, so their means are the
        # fits of the mean curve and their spread gives the SE
        rise = width * pd.Series(np.linalg.lstsq(line, y.T.to_numpy(), rcond=None)[0][0], y.index)
        sagitta = (width**2 / 4) * pd.Series(
            np.linalg.lstsq(parabola, y.T.to_numpy(), rcond=None)[0][0], y.index
        )
        slope, bend = paired(rise, scale=1 / width), paired(sagitta)
        rise_mean = paired(rise)
        holds, needed = _judge([(slope.mean, slope)])
        rows = rows.set_index("setting").loc[settings]
        means_y = rows["mean"].to_numpy()
        fitted = np.polyval(np.polyfit(x, means_y, 1), x)
        spread = np.sum((means_y - means_y.mean()) ** 2)
        # equal means leave R^2 undefined (0/0), not -inf
        r2 = f"{1 - np.sum((means_y - fitted) ** 2) / spread:.3f}" if spread > 0 else "undefined"
        claims.append(
            Claim(
                f"{alg}-regret-linear-in-delay",
                f"{alg}'s regret at T increases linearly in E[tau]",
                "Section 5, Appendix E",
                f"slope {slope.mean:.4f} ± {slope.se:.4f} per unit of E[tau] "
                f"({slope.mean / slope.se:+.1f} SE) over {slope.n} {'paired ' if shared else ''}"
                f"runs and {len(x)} delays; bend (sagitta of the parabola) {bend.mean:.2f} ± "
                f"{bend.se:.2f} against the line's rise {rise_mean.mean:.2f} ± "
                f"{rise_mean.se:.2f}; regret "
                + ", ".join(f"{v:.1f}" for v in means_y)
                + f" for E[tau] = {', '.join(f'{v:g}' for v in x)}; R^2 of the means {r2}",
                f"slope > 0 by {zse()} (fails: < 0 by {zse()}); 'linearly' has no stated "
                "tolerance: the bend is reported, not judged",
                holds,
                ""
                if holds
                else "the regret falls as the delay grows: the delay reorders when the "
                "algorithm's phases end"
                if holds is False
                else "the delay's share of the regret (about Delta E[tau] per suboptimal arm) is "
                "small against run-to-run noise at this scale",
                runs_needed=needed,
            )
        )
    return claims


CHECKS: dict[str, Checker] = {
    "fig3a": ratio_claims,
    "fig3b": ratio_claims,
    "appE": delay_sweep_claims,
}
