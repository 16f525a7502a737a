"""Claims of Pike-Burke et al. (ICML 2018), Section 5 and Appendix E."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits.claims import Checker, Claim, verdict
from delayed_bandits.papers.pikeburke2018.analysis import at_horizon
from delayed_bandits.papers.pikeburke2018.experiment import Setting, coefficient_band

# "The ratios converge to a constant": we call a ratio converged when it moves by at most this
# relative amount over the last quarter of the horizon (docs/decisions.md).
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


def _converges(ratios: pd.DataFrame, fig_cfg: Mapping[str, Any], ref: str) -> list[Claim]:
    claims = []
    horizon = int(fig_cfg["horizon"])
    for (setting, alg), _ in ratios.groupby(["setting", "algorithm"]):
        end, quarter = _ratio(ratios, setting, alg), _ratio(ratios, setting, alg, 3 * horizon // 4)
        change = abs(end.ratio - quarter.ratio) / end.ratio
        holds = bool(change <= CONVERGED)
        claims.append(
            Claim(
                f"{setting}-{alg}-ratio-converges",
                f"The ratio of {alg} to QPM-D converges to a constant ({setting})",
                ref,
                f"ratio {quarter.ratio:.2f} at t={quarter.t}, {end.ratio:.2f} [{end.lo:.2f}, "
                f"{end.hi:.2f}] at T; relative change {change:.1%}",
                f"relative change over the last quarter <= {CONVERGED:.0%}",
                holds,
                "" if holds else PHASE_NOTE,
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
            )
        )
    return claims


def _band(ratios: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """Section 6's "matches the order of regret of QPM-D, [but] the constants are worse", at every
    delay coefficient of the band: how much of ODAAF's ratio the coefficient (not in our copy of
    the paper) decides."""
    claims = []
    horizon = int(fig_cfg["horizon"])
    for setting, coefficients in coefficient_band(fig_cfg).items():
        parts, failing, at_t = [], [], []
        for curve, k in coefficients.items():
            end = _ratio(ratios, setting, curve)
            quarter = _ratio(ratios, setting, curve, 3 * horizon // 4)
            change = abs(end.ratio - quarter.ratio) / end.ratio
            parts.append(
                f"{k:g}: {end.ratio:.2f} [{end.lo:.2f}, {end.hi:.2f}] (change {change:.1%})"
            )
            at_t.append(end.ratio)
            if change > CONVERGED or end.lo <= 1:
                failing.append(f"{k:g}")
        claims.append(
            Claim(
                f"{setting}-odaaf-coefficient-band",
                "ODAAF's regret is of QPM-D's order with worse constants whatever the delay "
                f"coefficient of D_m in {min(coefficients.values()):g}-"
                f"{max(coefficients.values()):g}: its ratio converges and stays above 1 ({setting})",
                "Section 5, Figure 3; Section 6",
                "ratio at T by coefficient: "
                + "; ".join(parts)
                + f"; the coefficient moves the ratio at T by a factor {max(at_t) / min(at_t):.2f}",
                f"at every coefficient: relative change over the last quarter <= {CONVERGED:.0%} "
                "and the band at T above 1",
                not failing,
                ""
                if not failing
                else f"fails at coefficient(s) {', '.join(failing)}; " + PHASE_NOTE,
            )
        )
    return claims


def _elimination(
    events: pd.DataFrame, setting: str, alg: str, runs: int, horizon: int
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
    ratios, events = tables["ratios"], tables["events"]
    variants = list(fig_cfg.get("variants", {}))
    claims = (
        _converges(ratios[~ratios.algorithm.isin(variants)], fig_cfg, ref)
        + _same_jumps(events[~events.algorithm.isin(variants)].dropna(subset=["phase"]), ref)
        + _band(ratios, fig_cfg)
    )
    if "odaaf-v" not in set(ratios.algorithm):
        return claims
    others = [
        v
        for v in variants
        if fig_cfg["variants"][v]["algorithm"] == "odaaf-v" and v in set(ratios.algorithm)
    ]
    runs, horizon = int(tables["summary"].n_runs.max()), int(fig_cfg["horizon"])
    for setting, scfg in fig_cfg["settings"].items():
        plain, informed = _ratio(ratios, setting, "odaaf"), _ratio(ratios, setting, "odaaf-v")
        delay = Setting.from_config(scfg, setting).delay
        spread = delay.variance / delay.mean**2
        if SMALL_VARIANCE < spread < LARGE_VARIANCE:
            continue  # neither of the paper's two cases
        large = spread >= LARGE_VARIANCE
        # the 95% bootstrap bands: apart in the claimed order holds, apart the other way fails
        above, beneath = informed.lo > plain.hi, informed.hi < plain.lo
        holds = True if (above if large else beneath) else (False if (beneath or above) else None)
        measured = (
            f"ratio at T: ODAAF-V {informed.ratio:.2f} [{informed.lo:.2f}, "
            f"{informed.hi:.2f}], ODAAF {plain.ratio:.2f} [{plain.lo:.2f}, {plain.hi:.2f}]"
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
                "ODAAF-V's band "
                + ("above" if large else "below")
                + " ODAAF's (fails: "
                + ("below" if large else "above")
                + "; overlapping: inconclusive)",
                holds,
                ""
                if holds
                else "eq. (7)'s constants (calibrated, docs/decisions.md) set where ODAAF-V's "
                "phases end against ODAAF's eq. (2) phases",
            )
        )
        if large:
            count, median, phases = _elimination(events, setting, "odaaf-v", runs, horizon)
            holds = bool(count / runs > 0.5 and median >= LATE)
            measured = (
                f"eliminated in {count} of {runs} runs (median at {median:.2f} T); "
                f"{phases} phase(s) completed by T"
            )
            for other in others:
                count, median, phases = _elimination(events, setting, other, runs, horizon)
                measured += (
                    f"; {other}: eliminated in {count} of {runs} runs"
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
                    "eq. (7)'s constants are calibrated to this statement (docs/decisions.md), so "
                    "the claim checks the runs against the closed form, not the paper's appendix "
                    "constants: phase 4, the first whose tolerance 2^-4 is below the gap 0.1, ends "
                    "its Step 1 at N_3 + 2 N_4",
                )
            )
    return claims


def paired_slopes(finals: pd.DataFrame, mean_delay: Mapping[str, float]) -> pd.DataFrame:
    """Per (algorithm, replication), the least-squares slope of the regret at T against E[tau]
    across the settings: the settings share their draws (``shared_draws``), so each run's slope
    is a paired measurement and their spread gives the slope's SE."""
    rows = finals.assign(x=finals.setting.map(mean_delay))
    rows["dx"] = rows.x - rows.groupby(["algorithm", "replication"]).x.transform("mean")
    rows["dy"] = rows.regret - rows.groupby(["algorithm", "replication"]).regret.transform("mean")
    grouped = rows.assign(xy=rows.dx * rows.dy, xx=rows.dx**2).groupby(["algorithm", "replication"])
    return (grouped.xy.sum() / grouped.xx.sum()).rename("slope").reset_index()


def delay_sweep_claims(
    tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]
) -> list[Claim]:
    """ "Regret increases linearly in E[tau]", judged by the least-squares slope over the runs'
    paired regrets at T: slope / SE > 2 holds, < -2 fails (the regret falls with the delay),
    inconclusive in between (the module rule of ``claims``)."""
    claims = []
    at_t = at_horizon(tables["summary"], fig_cfg)
    means = dict(zip(at_t.setting, at_t.mean_delay))
    slopes = paired_slopes(tables["finals"], means)
    shared = bool(fig_cfg.get("shared_draws", False))
    for alg, rows in at_t.groupby("algorithm"):
        rows = rows.sort_values("mean_delay")
        x, y = rows.mean_delay.to_numpy(), rows["mean"].to_numpy()
        own = slopes[slopes.algorithm == alg].slope
        slope, se = float(own.mean()), float(own.std(ddof=1) / np.sqrt(len(own)))
        fitted = np.polyval(np.polyfit(x, y, 1), x)
        r2 = 1 - np.sum((y - fitted) ** 2) / np.sum((y - y.mean()) ** 2)
        holds = verdict(slope, se)
        claims.append(
            Claim(
                f"{alg}-regret-linear-in-delay",
                f"{alg}'s regret at T increases linearly in E[tau]",
                "Section 5, Appendix E",
                f"slope {slope:.4f} ± {se:.4f} per unit of E[tau] ({slope / se:+.1f} SE) over "
                f"{len(own)} {'paired ' if shared else ''}runs and {len(x)} delays; regret "
                + ", ".join(f"{v:.1f}" for v in y)
                + f" for E[tau] = {', '.join(f'{v:g}' for v in x)}; R^2 of the means {r2:.3f}",
                "slope / SE > 2 (fails: < -2)",
                holds,
                ""
                if holds
                else "the delay's share of the regret (about Delta E[tau] per suboptimal arm) is "
                "small against run-to-run noise at this scale"
                if holds is None
                else "the regret falls as the delay grows: the delay reorders when the "
                "algorithm's phases end",
            )
        )
    return claims


CHECKS: dict[str, Checker] = {
    "fig3a": ratio_claims,
    "fig3b": ratio_claims,
    "appE": delay_sweep_claims,
}
