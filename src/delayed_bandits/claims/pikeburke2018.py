"""Claims of Pike-Burke et al. (ICML 2018), Section 5 and Appendix E."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits.claims import Checker, Claim
from delayed_bandits.plots.pikeburke2018 import at_horizon

# "The ratios converge to a constant": we call a ratio converged when it moves by at most this
# relative amount over the last quarter of the horizon (docs/decisions.md).
CONVERGED = 0.10
# "ODAAF-V had only just eliminated the suboptimal arm at time T": elimination after this
# fraction of the horizon counts as "only just".
LATE = 0.75
# "Regret increases linearly in E[tau]": the least-squares line explains at least this share of
# the variance of the regret at T across delays.
LINEAR_R2 = 0.95


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
        claims.append(Claim(
            f"{setting}-{alg}-ratio-converges",
            f"The ratio of {alg} to QPM-D converges to a constant ({setting})", ref,
            f"ratio {quarter.ratio:.2f} at t={quarter.t}, {end.ratio:.2f} [{end.lo:.2f}, "
            f"{end.hi:.2f}] at T; relative change {change:.1%}",
            f"relative change over the last quarter <= {CONVERGED:.0%}",
            bool(change <= CONVERGED)))
    return claims


def _same_jumps(events: pd.DataFrame, ref: str) -> list[Claim]:
    """Phase ends are fixed by n_m; they can differ between replications only through which arms
    were eliminated earlier. Group by (phase, earlier eliminations) and count distinct ends."""
    claims = []
    for (setting, alg), ev in events.groupby(["setting", "algorithm"]):
        ev = ev.sort_values(["replication", "phase"])
        history = ev.groupby("replication").eliminated.transform(
            lambda e: e.shift(fill_value=0).cumsum())
        distinct = ev.assign(history=history).groupby(["phase", "history"]).step1_end.nunique()
        eliminated = ev[ev.eliminated != 0]
        claims.append(Claim(
            f"{setting}-{alg}-jumps-at-same-rounds",
            f"{alg}'s phase ends (its regret jumps) fall on the same rounds in every replication "
            f"({setting})", ref,
            f"{len(distinct)} (phase, elimination history) groups, at most "
            f"{int(distinct.max())} distinct end round(s); worse arm eliminated in "
            f"{eliminated.replication.nunique()} of {ev.replication.nunique()} runs",
            "1 distinct end round per group", bool(distinct.max() == 1)))
    return claims


def ratio_claims(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    ref = "Section 5, Figure 3"
    ratios = tables["ratios"]
    events = tables["events"]
    claims = _converges(ratios, fig_cfg, ref) + _same_jumps(events.dropna(subset=["phase"]), ref)
    if "odaaf-v" not in set(ratios.algorithm):
        return claims
    for setting in fig_cfg["settings"]:
        plain, informed = _ratio(ratios, setting, "odaaf"), _ratio(ratios, setting, "odaaf-v")
        exponential = fig_cfg["settings"][setting]["delay"]["kind"] == "exponential"
        helps = informed.hi < plain.lo
        hurts = informed.lo > plain.hi
        claims.append(Claim(
            f"{setting}-variance-{'hurts' if exponential else 'helps'}",
            "Knowing the variance " + ("hurts under exponential delays (V = E[tau]^2)"
                                       if exponential else "helps when it is small")
            + f" ({setting})", ref,
            f"ratio at T: ODAAF-V {informed.ratio:.2f} [{informed.lo:.2f}, {informed.hi:.2f}], "
            f"ODAAF {plain.ratio:.2f} [{plain.lo:.2f}, {plain.hi:.2f}]",
            "ODAAF-V's band " + ("above" if exponential else "below") + " ODAAF's",
            bool(hurts if exponential else helps)))
        if exponential:
            ev = events[(events.setting == setting) & (events.algorithm == "odaaf-v")]
            runs = int(tables["summary"].n_runs.max())
            rounds = ev[ev.eliminated.fillna(0) != 0].step1_end
            share = len(rounds) / runs
            median = float(np.median(rounds)) / fig_cfg["horizon"] if len(rounds) else float("nan")
            claims.append(Claim(
                f"{setting}-odaaf-v-eliminates-late",
                f"Under exponential delays ODAAF-V only just eliminates the worse arm by T "
                f"({setting})", ref,
                f"eliminated in {len(rounds)} of {runs} runs; median elimination at "
                f"{median:.2f} T",
                f"eliminated in most runs, at a median after {LATE:.2f} T",
                bool(share > 0.5 and median >= LATE)))
    return claims


def delay_sweep_claims(tables: Mapping[str, pd.DataFrame],
                       fig_cfg: Mapping[str, Any]) -> list[Claim]:
    claims = []
    at_t = at_horizon(tables["summary"], fig_cfg)
    for alg, rows in at_t.groupby("algorithm"):
        x, y = rows.mean_delay.to_numpy(), rows["mean"].to_numpy()
        slope, intercept = np.polyfit(x, y, 1)
        r2 = 1 - np.sum((y - (intercept + slope * x)) ** 2) / np.sum((y - y.mean()) ** 2)
        claims.append(Claim(
            f"{alg}-regret-linear-in-delay",
            f"{alg}'s regret at T increases linearly in E[tau]", "Section 5, Appendix E",
            f"slope {slope:.2f} per unit of E[tau], R^2 = {r2:.3f} over {len(x)} delays",
            f"slope > 0 and R^2 >= {LINEAR_R2}", bool(slope > 0 and r2 >= LINEAR_R2)))
    return claims


CHECKS: dict[str, Checker] = {"fig3a": ratio_claims, "fig3b": ratio_claims,
                              "appE": delay_sweep_claims}
