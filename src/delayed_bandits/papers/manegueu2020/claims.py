"""Claims of Manegueu et al. (ICML 2020), Section 8."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import curves as cv
from delayed_bandits import delays, grid
from delayed_bandits.claims import (
    CHECK,
    REPRODUCTION,
    Checker,
    Claim,
    Z,
    at,
    band,
    every,
    needed,
    paired,
    per_run,
    ratio,
    verdict,
    within,
    zse,
)
from delayed_bandits.papers.manegueu2020.analysis import sweep_table, uniform_regret
from delayed_bandits.papers.manegueu2020.policies import AdaptParams

# Our quantifications of the paper's words (docs/decisions/manegueu2020.md#claim-thresholds):
COMPARABLE = 1.5  # "comparable": within this factor of the best D-UCB at T
LINEAR, SUBLINEAR = 0.8, 0.6  # growth over [T/2, T] relative to the regret at T/2
NEAR_ALPHA = 0.1  # "alpha_t approaches 0.3": within this of 0.3 at T


def _paired_gaps(runs: pd.DataFrame, table: pd.DataFrame, best: pd.Series) -> pd.DataFrame:
    """Each swept setting's regret at T above that of ``best``, run by run (``paired``): the
    sweep's settings share their draws (``sweep.environment: false``), so these differences say
    which values tie with the minimum far more sharply than the curves' own SEs."""
    low = per_run(runs, best.setting, best.algorithm)
    out = table.set_index("setting")[["x"]].copy()
    out["diff"] = [paired(per_run(runs, s, a), low) for s, a in zip(table.setting, table.algorithm)]
    out["gap"] = [d.mean for d in out["diff"]]
    out["gap_se"] = [d.se for d in out["diff"]]
    return out.sort_values("x")


def fig2(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    table = sweep_table(tables["summary"], fig_cfg)
    best = table.loc[table["mean"].idxmin()]
    gaps = _paired_gaps(tables["runs"], table, best)
    ends = gaps.iloc[[0, -1]]
    u_shaped = every(verdict(end.gap, end.gap_se) for _, end in ends.iterrows())
    spread = (table["mean"].max() - best["mean"]) / best["mean"]
    # the alpha_tilde whose regret ties with the minimum: above it by at most 2 paired SE
    tied = gaps[gaps.gap <= Z * gaps.gap_se].x
    inside = tied.between(0.2, 0.4)
    located = True if inside.all() else (False if not inside.any() else None)
    # Two arms: R(T) = gap x (pulls of the worse arm), so the better arm's share of the pulls is
    # 1 - R(T) / (T gap), and above uniform play's regret it is below one half
    uniform = uniform_regret(fig_cfg, best.setting, best.algorithm)
    share = 1.0 - table["mean"] / (2.0 * uniform)
    arms = len(cv.resolve(fig_cfg, grid.settings(fig_cfg)[best.setting], best.algorithm)[1]["mu"])
    below_uniform = ""
    if arms == 2 and best["mean"] > uniform:
        below_uniform = (
            f"; Patient plays the better arm in only {share.min():.0%}-{share.max():.0%} of the "
            f"rounds at every alpha_tilde, so its regret ({table['mean'].min():.0f}-"
            f"{table['mean'].max():.0f}) is above uniform play's (T gap / 2 = {uniform:.0f})"
        )
    return [
        Claim(
            "fig2-minimum-near-0.3",
            "Patient's regret at T is smallest near alpha_tilde = min_i alpha_i = 0.3",
            "Section 8.1, Figure 2",
            f"minimum {best['mean']:.1f} ± {best.se:.1f} at alpha_tilde = {best.x:.2f}; tied "
            f"within {zse('paired SE')}: {', '.join(f'{x:.2f}' for x in tied)}; the regret varies by "
            f"{spread:.1%} along the sweep",
            "every alpha_tilde tied with the minimum (paired runs) in [0.2, 0.4]; fails: none",
            located,
            (
                ""
                if located
                else "the exploration term sqrt(2 log(2KT^3) / T_i) (about 0.18 at "
                "T_i = 1500) dwarfs the gap 0.05, so Patient plays both arms almost uniformly for "
                "every alpha_tilde at T = 3000 and the curve is nearly flat; the bias term's slope "
                "in alpha_tilde, 2 ln(N) N^-alpha_tilde, peaks near alpha_tilde = 1 / ln N"
            )
            + below_uniform,
        ),
        Claim(
            "fig2-u-shaped",
            "The regret first decreases with alpha_tilde, then increases (U shape)",
            "Section 8.1, Figure 2",
            "; ".join(
                f"alpha_tilde = {end.x:.2f}: {best['mean'] + end.gap:.1f} ({end.gap:+.1f} ± "
                f"{end.gap_se:.1f}, paired)"
                for _, end in ends.iterrows()
            )
            + f"; minimum {best['mean']:.1f}",
            f"both ends above the minimum by more than {zse()} of the paired difference",
            u_shaped,
            "" if u_shaped else "the minimum lies at an end of the alpha_tilde grid",
            runs_needed=needed(u_shaped, ends["diff"]),
        ),
    ]


def _peak_positions(runs: pd.DataFrame, rows: pd.DataFrame) -> tuple[pd.Series, list[float]]:
    """A curve's highest point, and every gap tied with it: the gaps whose regret at T is below
    the maximum's by at most Z SE of the paired difference (a curve's gaps share their draws,
    ``sweep.environment: false``; docs/decisions/manegueu2020.md#fig3-peaks)."""
    top = rows.loc[rows["mean"].idxmax()]
    peak = per_run(runs, top.setting, top.algorithm)
    diffs = [paired(peak, per_run(runs, s, a)) for s, a in zip(rows.setting, rows.algorithm)]
    tied = [x for x, d in zip(rows.x, diffs) if d.mean <= Z * d.se]
    return top, sorted(tied)


def _later_peak(smaller: list[float], larger: list[float]) -> bool | None:
    """The verdict on "the curve of the smaller alpha_2 peaks at a larger gap", from the two
    curves' tied peaks: holds when every tied gap of the first lies above every tied gap of the
    second, fails when every one lies below, inconclusive when the tied sets overlap or touch (the
    runs or the grid cannot place the peaks apart)."""
    if min(smaller) > max(larger):
        return True
    if max(smaller) < min(larger):
        return False
    return None


def fig3(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    table = sweep_table(tables["summary"], fig_cfg)
    peaks = []
    for base, rows in table.groupby("base"):
        top, tied = _peak_positions(tables["runs"], rows)
        peaks.append((fig_cfg["settings"][base]["alpha_tilde"], top["mean"], top.x, tied, top.se))
    peaks.sort()
    # heights in increasing alpha_2: each above the next by more than 2 SE; the listed settings
    # draw their environments apart (own seeds), so their peaks are independent
    higher = every(
        verdict(a[1] - b[1], float(np.hypot(a[4], b[4]))) for a, b in zip(peaks, peaks[1:])
    )
    places = {(a[0], b[0]): _later_peak(a[3], b[3]) for a, b in zip(peaks, peaks[1:])}
    # "the smaller alpha_2, the larger the position": a trend over the alpha_2 of the figure,
    # one-sided: no consecutive pair reversed and the ends placed apart; neighbours the runs or
    # the grid cannot place apart do not refute it (docs/decisions/manegueu2020.md#fig3-peaks)
    ends = _later_peak(peaks[0][3], peaks[-1][3])
    ordered = False if False in places.values() else (True if ends else None)
    measured = "; ".join(
        f"alpha_2 = {a}: peak {h:.1f} ± {se:.1f} at gap {x:.2f} (tied: "
        f"{', '.join(f'{g:.2f}' for g in tied)})"
        for a, h, x, tied, se in peaks
    )
    undecided = [f"{a} and {b}" for (a, b), v in places.items() if v is None]
    reversed_ = [f"{a} and {b}" for (a, b), v in places.items() if v is False]
    note = []
    if reversed_:
        note.append(
            f"the smaller alpha_2 peaks at a smaller gap for alpha_2 = {', '.join(reversed_)}"
        )
    if ends is None:
        note.append(
            f"the tied peaks of alpha_2 = {peaks[0][0]} and {peaks[-1][0]} overlap: the runs "
            "cannot place the ends of the trend apart"
        )
    if undecided:
        note.append(
            f"alpha_2 = {', '.join(undecided)}: their tied peaks overlap, so neither the runs nor "
            "the gap grid place them apart"
        )
    if any(v is not True for (a, b), v in places.items() if min(a, b) >= 0.5):
        note.append(
            "alpha_2 = 0.5 and 0.8 give Patient the same index (min(alpha_tilde, 1/2)), so "
            "their peaks can only differ through the delays"
        )
    ref = "Section 8.1, Figure 3"
    return [
        Claim(
            "fig3-smaller-alpha-higher-peak",
            "The smaller alpha_2, the larger the peak regret",
            ref,
            measured,
            f"each peak above the next alpha_2's by more than {zse()} (independent settings; fails: "
            "below by more)",
            higher,
            ""
            if higher is not False
            else f"a larger alpha_2's peak is higher by more than {zse()}: the peaks differ only "
            "through the delays where Patient's index is the same (alpha_tilde >= 1/2)",
        ),
        Claim(
            "fig3-smaller-alpha-peak-at-larger-gap",
            "The smaller alpha_2, the larger the gap at which the regret peaks",
            ref,
            measured,
            "the smallest alpha_2's gaps tied with its peak (within "
            f"{zse()} of the paired difference) all above the largest alpha_2's, and no pair of "
            "consecutive alpha_2 the other way round; fails: a pair whose every tied gap lies "
            "below",
            ordered,
            "; ".join(note),
        ),
    ]


def _growth(summary: pd.DataFrame, setting: str, alg: str) -> float:
    end = at(summary, setting, alg)
    half = at(summary, setting, alg, end.t // 2)
    return (end.mean - half.mean) / half.mean


def _rate(growth: float, linear: bool) -> bool | None:
    """Whether a growth over [T/2, T] supports "linear" (or "sublinear" when ``linear`` is
    False); None, inconclusive, between the two thresholds."""
    return band(growth, SUBLINEAR, LINEAR, above=linear)


def _rate_note(holds: bool | None, horizon: int, linear: bool) -> str:
    if holds is None:
        return f"between the sublinear and linear thresholds: T = {horizon} cannot tell"
    if holds:
        return ""
    return (
        f"the curve has bent by T = {horizon}: the algorithm learns the better arm"
        if linear
        else f"still growing linearly at T = {horizon}: the exploration term "
        "sqrt(2 log(2KT^3) / T_i) (or D-UCB's censored estimates) have not yet separated the arms"
    )


def fig4(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary, (setting,) = tables["summary"], list(fig_cfg["settings"])
    ducbs = [a for a in fig_cfg["algorithms"] if fig_cfg["variants"][a]["algorithm"] == "d-ucb"]
    best = min(ducbs, key=lambda a: at(summary, setting, a).mean)
    patient, top = at(summary, setting, "patient-05"), at(summary, setting, best)
    widest = max(ducbs, key=lambda a: fig_cfg["variants"][a]["window"])
    m = fig_cfg["variants"][widest]["window"]
    mu = np.asarray(fig_cfg["settings"][setting]["mu"])
    early = at(summary, setting, widest, m + len(mu))
    uniform = float(np.mean(mu.max() - mu))
    waits = cv.resolve(fig_cfg, fig_cfg["settings"][setting], widest)[1].get("ducb_wait", True)
    linear_start = verdict(early.mean / early.t - 0.8 * uniform, early.se / early.t)
    # the curves of a setting share their draws: the ratio's SE from the runs, paired
    times = ratio(
        per_run(tables["runs"], setting, "patient-05"), per_run(tables["runs"], setting, best)
    )
    comparable = verdict(COMPARABLE - times.mean, times.se)
    if waits:
        start_note = "by construction: the waiting D-UCB cycles through the arms until m + K"
    else:
        start_note = (
            ""
            if linear_start
            else "this D-UCB does not wait (ducb_wait false): "
            "Vernade et al.'s censored DelayedUCB weights recent pulls by tau(age) from "
            "round K + 1"
        )
    if waits and linear_start is False:
        start_note = "a waiting D-UCB plays uniformly for m + K rounds: check the checkpoints"
    later = _rate(_growth(summary, setting, widest), linear=False)
    ref = "Section 8.2, Figure 4"
    return [
        Claim(
            "fig4-patient-comparable-to-best-ducb",
            "Patient (alpha_tilde = 0.5) is comparable to the best D-UCB, which knows the CDF",
            ref,
            f"Patient {patient}; best D-UCB ({best}) {top}; ratio {times.mean:.2f} ± "
            f"{times.se:.2f} (paired runs)",
            f"Patient's regret at T within x{COMPARABLE} of the best D-UCB's, at {zse()}",
            comparable,
            ""
            if comparable
            else "Patient's exploration term "
            "sqrt(2 log(2KT^3) / T_i) is several times D-UCB's sqrt(log t / (2 N~)) here",
        ),
        Claim(
            "fig4-ducb-large-m-linear-start",
            "D-UCB with a large m has a long initial linear phase: it waits m + K rounds",
            ref,
            f"{widest}: R(t)/t = {early.mean / early.t:.3f} at t = {early.t} (last checkpoint "
            f"<= m + K = {m + len(mu)}); uniform play {uniform:.3f}",
            f"R(t)/t above 80% of the uniform-play rate at t = m + K, at {zse()}",
            linear_start,
            start_note,
            # a D-UCB that waits plays uniformly until m + K whatever the draws
            kind=CHECK if waits else REPRODUCTION,
        ),
        Claim(
            "fig4-ducb-large-m-catches-up",
            "D-UCB's initial linear phase tends to be caught up over time",
            ref,
            f"{widest}: (R(T) - R(T/2)) / R(T/2) = {_growth(summary, setting, widest):.2f}",
            f"<= {SUBLINEAR} (sublinear after the phase); >= {LINEAR} refutes",
            later,
            _rate_note(later, fig_cfg["horizon"], linear=False),
        ),
    ]


def _ducb_limits(fig_cfg: Mapping[str, Any], setting: str, alg: str) -> str:
    """Where D-UCB's estimates go: mu_i tau_i(m) / tau(m), the arm's censored mean over the CDF
    it is given (a linear regret needs the better arm to look worse)."""
    cell = cv.resolve(fig_cfg, fig_cfg["settings"][setting], alg)[1]
    mu, m = np.asarray(cell["mu"]), int(cell["window"])
    arms = delays.from_spec(cell["delay"], alg)
    arms = arms.arms if isinstance(arms, delays.PerArm) else (arms,) * len(mu)
    given = float(delays.from_spec(cell["assumed_delay"], alg).cdf(m))
    limits = [p * float(law.cdf(m)) / given for p, law in zip(mu, arms)]
    return (
        f"D-UCB's estimates tend to mu_i tau_i(m) / tau(m) = "
        f"({', '.join(f'{x:.3f}' for x in limits)}) at m = {m}: the better arm "
        + (
            "also looks better, so D-UCB can learn it"
            if int(np.argmax(limits)) == int(np.argmax(mu))
            else "looks worse"
        )
    )


def fig5(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    summary, (setting,) = tables["summary"], list(fig_cfg["settings"])
    claims = []
    for alg in fig_cfg["algorithms"]:
        ducb = fig_cfg["variants"][alg]["algorithm"] == "d-ucb"
        growth = _growth(summary, setting, alg)
        holds = _rate(growth, linear=ducb)
        note = _rate_note(holds, fig_cfg["horizon"], linear=ducb)
        if ducb and holds is not True:  # the censored estimates explain it better
            note = "; ".join(
                filter(None, (note if holds is None else "", _ducb_limits(fig_cfg, setting, alg)))
            )
        claims.append(
            Claim(
                f"fig5-{alg}-{'linear' if ducb else 'sublinear'}",
                f"{alg}'s regret "
                + (
                    "keeps growing linearly (D-UCB cannot adapt to arm-dependent delays)"
                    if ducb
                    else "is sublinear"
                ),
                "Section 8.2, Figure 5",
                f"(R(T) - R(T/2)) / R(T/2) = {growth:.2f} at T = {fig_cfg['horizon']}",
                (
                    f">= {LINEAR}; <= {SUBLINEAR} refutes"
                    if ducb
                    else f"<= {SUBLINEAR}; >= {LINEAR} refutes"
                ),
                holds,
                note,
            )
        )
    return claims + [_ducb_above_patient(tables, fig_cfg, setting)]


def _ducb_above_patient(
    tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any], setting: str
) -> Claim:
    """Section 8.2's contrast in Figure 5, "D-UCB has a very high regret [...] On the other hand,
    Patient Bandits adapts", as every D-UCB curve ending above every Patient curve at T, each
    pair by its paired difference (the curves share their draws)."""
    summary, runs = tables["summary"], tables["runs"]
    kinds = {a: fig_cfg["variants"][a]["algorithm"] for a in fig_cfg["algorithms"]}
    ducbs = [a for a, k in kinds.items() if k == "d-ucb"]
    patients = [a for a, k in kinds.items() if k == "patient"]
    diffs = {
        (d, p): paired(per_run(runs, setting, d), per_run(runs, setting, p))
        for d in ducbs
        for p in patients
    }
    verdicts = {pair: verdict(d.mean, d.se) for pair, d in diffs.items()}
    holds = every(verdicts.values())
    ends = {a: at(summary, setting, a) for a in ducbs + patients}
    reversed_pairs = [pair for pair, v in verdicts.items() if v is False]
    note = ""
    if reversed_pairs:
        note = (
            "; ".join(
                f"{d} ends below {p} ({ends[d].mean:.0f} against {ends[p].mean:.0f})"
                for d, p in reversed_pairs
            )
            + ", reversing the paper's contrast: "
            + _ducb_limits(fig_cfg, setting, reversed_pairs[0][0])
        )
    return Claim(
        "fig5-ducb-above-patient",
        "D-UCB has a very high regret, while Patient Bandits adapts to the heterogeneous delays: "
        "every D-UCB ends above every Patient",
        "Section 8.2, Figure 5",
        "; ".join(f"{d} - {p}: {diff}" for (d, p), diff in diffs.items()),
        f"every D-UCB above every Patient at T by more than {zse()} of the paired difference (fails: "
        "one below by more)",
        holds,
        note,
        runs_needed=needed(holds, diffs.values()),
    )


def _adapt_curves(fig_cfg: Mapping[str, Any]) -> list[str]:
    """The figure's Adapt-Patient curves, one per reading (d_t, and which alpha it plays)."""
    variants = fig_cfg.get("variants", {})
    return [
        a
        for a in fig_cfg["algorithms"]
        if variants.get(a, {}).get("algorithm", a) == "adapt-patient"
    ]


def _adapt_params(fig_cfg: Mapping[str, Any], alg: str) -> AdaptParams:
    (setting,) = list(fig_cfg["settings"])
    merged = cv.resolve(fig_cfg, fig_cfg["settings"][setting], alg)[1]
    return AdaptParams(**merged.get("adapt", {}))


def _reading(params: AdaptParams) -> str:
    played = "alpha_t (lower confidence)" if params.lower_confidence else "the raw alpha_hat_t"
    return f"plays {played}, d_t from alpha = {params.window_alpha:g}"


def _correction(fig_cfg: Mapping[str, Any], alg: str, horizon: int) -> float:
    """The smallest lower-confidence correction log(lcb_constant sqrt(log(2KT^3)) / (c mu_low)) /
    log(T_bar) up to round ``horizon`` (Section 6.3): T_bar <= T, so it is at least its value at
    T_bar = T, and alpha_t = alpha_hat_t - correction can leave alpha_low only if alpha_hat_t
    exceeds alpha_low plus this."""
    (setting,) = list(fig_cfg["settings"])
    params = _adapt_params(fig_cfg, alg)
    arms = len(cv.resolve(fig_cfg, fig_cfg["settings"][setting], alg)[1]["mu"])
    log_term = np.log(2 * arms * float(horizon) ** 3)
    return float(
        np.log(params.lcb_constant * np.sqrt(log_term) / (params.c * params.mu_low))
        / np.log(horizon)
    )


def _alpha_leaves(
    events: pd.DataFrame | None, fig_cfg: Mapping[str, Any], alg: str, params: AdaptParams
) -> Claim | None:
    """Section 8.3's "the lower bound estimate alpha_t eventually converges towards [...]
    alpha = 0.3" at its weakest: alpha_t leaves alpha_low at some checkpoint of some run (from the
    figure's trace of alpha_t, exact: no SE); fails when it never does, and then this Adapt-Patient
    is Patient with alpha_tilde = alpha_low after its first 2K rounds, which the claims comparing
    it cite. None when the figure has no trace of the curve's alpha_t."""
    if events is None or "alpha_t" not in events.columns:
        return None
    own = events[events.algorithm == alg].dropna(subset=["t"])
    if own.empty:
        return None
    top = float(own.alpha_t.max())
    left = own[own.alpha_t > params.alpha_low]
    holds = bool(top > params.alpha_low)  # exact: a run's alpha_t has no SE
    correction = _correction(fig_cfg, alg, int(fig_cfg["horizon"]))
    return Claim(
        f"fig6-{alg}-alpha-leaves-alpha-low",
        f"Adapt-Patient's alpha_t leaves alpha_low = {params.alpha_low:g} ({_reading(params)}): "
        "the lower bound estimate converges towards alpha = 0.3",
        "Section 8.3, Figures 6 and 7; Section 6.3",
        f"largest alpha_t at any of {own.t.nunique()} checkpoints of any of "
        f"{own.replication.nunique()} runs: {top:.3f}; above alpha_low in "
        f"{left.replication.nunique()} runs, at {len(left)} (run, checkpoint) pairs",
        "alpha_t > alpha_low at some checkpoint of some run (fails: at most alpha_low at every "
        "one)",
        holds,
        ""
        if holds
        else "the lower-confidence correction log(24 sqrt(log(2KT^3)) / (c mu_low)) / "
        f"log(T_bar) is at least {correction:.2f} at T (T_bar <= T), so alpha_t stays at "
        f"alpha_low unless alpha_hat_t is near 1: after its first 2K rounds this Adapt-Patient is "
        f"Patient with alpha_tilde = {params.alpha_low:g}",
    )


def fig6(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """Section 8.3's sentence, "Adapt-Patient is slightly worse than the oracle alpha_tilde = 0.3
    but better than the mis-specified alpha_tilde in {0.1, 0.6}", as its three parts per
    Adapt-Patient curve, and the comparison of the Patient curves it takes for granted. The curves
    share their draws, so every comparison is of paired runs (``paired``, ``ratio``)."""
    summary, runs, (setting,) = tables["summary"], tables["runs"], list(fig_cfg["settings"])
    ref = "Section 8.3, Figure 6"
    oracle = at(summary, setting, "patient-03")
    oracle_runs = per_run(runs, setting, "patient-03")
    wrong = {"01": at(summary, setting, "patient-01"), "06": at(summary, setting, "patient-06")}
    wrong_runs = {key: per_run(runs, setting, f"patient-{key}") for key in wrong}
    base = paired(wrong_runs["06"], oracle_runs)
    baseline = verdict(base.mean, base.se)
    claims = [
        Claim(
            "fig6-patient-03-below-patient-06",
            "Patient with the oracle alpha_tilde = 0.3 ends below Patient with the mis-specified "
            "alpha_tilde = 0.6 (what the sentence takes for granted)",
            ref,
            f"oracle {oracle}; 0.6: {wrong['06']}; 0.6 - 0.3: {base}",
            f"0.6 - 0.3 > {zse()} of the paired difference (fails: 0.3 - 0.6 > {zse()})",
            baseline,
            ""
            if baseline
            else "Patient's index uses min(alpha_tilde, 1/2): alpha_tilde = 0.6 gives the bias "
            "term 2 T_i^-1/2, the smallest of the three, so it explores least; with the gap 0.2 "
            "and exploration sqrt(2 log(2KT^3) / T_i) already large, less exploration wins here",
            runs_needed=needed(baseline, [base]),
        )
    ]
    for alg in _adapt_curves(fig_cfg):
        adapt = at(summary, setting, alg)
        adapt_runs = per_run(runs, setting, alg)
        params = _adapt_params(fig_cfg, alg)
        reading = _reading(params)
        leaves = (
            _alpha_leaves(tables.get("events"), fig_cfg, alg, params)
            if params.lower_confidence
            else None
        )
        if leaves is not None:
            claims.append(leaves)
        # the argument the comparisons cite when alpha_t never left alpha_low
        pinned = (
            f"alpha_t never leaves alpha_low = {params.alpha_low:g} ({leaves.id}), so after its "
            f"first 2K rounds this Adapt-Patient is Patient with alpha_tilde = "
            f"{params.alpha_low:g}"
            if leaves is not None and leaves.holds is False
            else ""
        )
        # "slightly worse": above the oracle; the paper gives no bound on "slightly", so the
        # test is one-sided and the measured shows by how much
        # (docs/decisions/manegueu2020.md#slightly-worse)
        worse = ratio(adapt_runs - oracle_runs, oracle_runs)
        near = verdict(worse.mean, worse.se)
        if near is None:
            near_note = (
                f"the relative difference lies within {zse()} of 0: the runs cannot tell "
                "whether Adapt-Patient is worse than the oracle"
            )
        elif near is False:
            near_note = "Adapt-Patient is below the oracle Patient"
        else:
            near_note = pinned and f"{pinned}, not the oracle"
        claims.append(
            Claim(
                f"fig6-{alg}-slightly-worse-than-oracle",
                f"Adapt-Patient ({reading}) is slightly worse than the oracle alpha_tilde = 0.3",
                ref,
                f"Adapt {adapt}; oracle {oracle}; (Adapt - oracle) / oracle = {worse.mean:+.3f} "
                f"± {worse.se:.3f} (paired runs)",
                f"(Adapt - oracle) / oracle above 0 by {zse()} (fails: below by {zse()}); "
                "'slightly' has no stated bound: the measured gives the size",
                near,
                near_note,
                runs_needed=needed(near, [worse]),
            )
        )
        for key, label in (("01", "0.1"), ("06", "0.6")):
            diff = paired(wrong_runs[key], adapt_runs)
            holds = verdict(diff.mean, diff.se)
            note = ""
            if pinned and holds is not True:
                note = pinned + (
                    ": the two policies differ only in their first 2K rounds"
                    if key == "01"
                    else f", and loses to {label} as Patient 0.1 does"
                )
            elif holds is not True and key == "06" and baseline is False:
                note = (
                    "Patient with 0.6 ends below the oracle 0.3 "
                    "(fig6-patient-03-below-patient-06), so no Adapt-Patient near the oracle "
                    "can beat it"
                )
            elif holds is not True:
                note = (
                    "alpha_hat_t is below 0.3 early on, so this Adapt-Patient explores like a "
                    "smaller alpha_tilde for part of the horizon (Figure 7)"
                )
            claims.append(
                Claim(
                    f"fig6-{alg}-below-patient-{key}",
                    f"Adapt-Patient ({reading}) is better than the mis-specified "
                    f"alpha_tilde = {label}",
                    ref,
                    f"Adapt {adapt}; {label}: {wrong[key]}; {label} - Adapt: {diff}",
                    f"{label} - Adapt > {zse()} of the paired difference (fails: Adapt - {label} > "
                    f"{zse()})",
                    holds,
                    note,
                    runs_needed=needed(holds, [diff]),
                )
            )
    return claims


def fig7(tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]) -> list[Claim]:
    """ "The lower bound estimates alpha_t eventually converges towards alpha = 0.3", checked on
    the value Section 6.3 defines (alpha_t) and on the raw estimate alpha_hat_t, per reading of
    d_t. A run whose alpha_hat_t = 1 came from a non-positive difference m_{t,D} - m_{t,d}
    estimated nothing, so the claim fails on it whatever the value."""
    events = tables["events"].dropna(subset=["t"])
    claims = []
    for alg in _adapt_curves(fig_cfg):
        own = events[events.algorithm == alg]
        last = own[own.t == own.t.max()]
        params = _adapt_params(fig_cfg, alg)
        empty = int((last.difference <= 0).sum())
        correction = _correction(fig_cfg, alg, int(last.t.max()))
        for column, name in (("alpha_t", "alpha_t"), ("alpha_hat", "alpha_hat_t")):
            values = last[column]
            mean, se = float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))
            holds = within(mean, se, 0.3 - NEAR_ALPHA, 0.3 + NEAR_ALPHA)
            if empty:
                holds = False
            note = ""
            if empty:
                note = (
                    f"in {empty} of {len(last)} runs alpha_hat_t = 1 came from a non-positive "
                    "difference m_{t,D} - m_{t,d}: nothing was estimated"
                )
            elif holds is not True and column == "alpha_t":
                note = (
                    "the lower-confidence correction log(24 sqrt(log(2KT^3)) / (c mu_low)) / "
                    f"log(T_bar) is at least {correction:.2f} at T (T_bar <= T), so alpha_t "
                    "stays at alpha_low unless alpha_hat_t is near 1: no estimate near 0.3 can "
                    "bring alpha_t to 0.3"
                )
            elif holds is not True:
                note = (
                    "d_t = max(1, floor((c/2)^(1/alpha) D_t)) with alpha = alpha_low = 0.1 is 1 "
                    "until T_bar is about 145 000, so m_{t,D} - m_{t,d} is not the tail "
                    "difference whose exponent is alpha "
                    "(docs/decisions/manegueu2020.md#reading-effect)"
                    if params.window_alpha < 0.3
                    else "alpha_hat_t is biased at this horizon "
                    "(docs/decisions/manegueu2020.md#fig7-claims)"
                )
            claims.append(
                Claim(
                    f"fig7-{alg}-{'alpha' if column == 'alpha_t' else 'alpha-hat'}-approaches-0.3",
                    f"Adapt-Patient's {name} approaches alpha = 0.3 ({_reading(params)})",
                    "Section 8.3, Figure 7",
                    f"mean {name} at T = {mean:.3f} ± {se:.4f} (1 SE over {len(last)} runs); "
                    f"non-positive differences in {empty} runs",
                    f"|{name} - 0.3| <= {NEAR_ALPHA} at {zse()}, in runs that estimated",
                    holds,
                    note,
                )
            )
    return claims


CHECKS: dict[str, Checker] = {
    "fig2": fig2,
    "fig3": fig3,
    "fig4": fig4,
    "fig5": fig5,
    "fig5long": fig5,
    "fig6": fig6,
    "fig7": fig7,
}
