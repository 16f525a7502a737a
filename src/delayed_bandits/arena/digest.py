"""What the docs quote of an arena run, computed from the run (``quoted``): ``digest`` reads the
leaderboards, claims, provenance and benchmarks of a run directory into one JSON-able mapping;
``blocks`` renders it as the Markdown blocks of README.md and docs/arena.md. The citable run's
digest is committed as docs/data/arena-full.json (``delayed-bandits quote``).

Everything in a digest but its ``cost`` is a function of the run's numbers, so a rerun of the
same config and code gives the same digest; ``cost`` (each job's CPU time from its log, and
what a node of 16 cores would take) is measured, machine by machine, and is quoted, not checked.

Pairwise comparisons (``COMPARISONS``) are read from the leaderboard, which holds each cell's
mean and standard error but not the per-run differences of two arbitrary cells: one algorithm is
*established* below another when the difference of means exceeds 2 SE of the difference taken as
independent (``claims.independent``, the arena claims' rule for two cells neither of which is the
best), which is conservative (paired runs move together)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import benchmarks, claims, config, grid, provenance
from delayed_bandits import curves as cv
from delayed_bandits.arena import answer, experiment, leaderboard
from delayed_bandits.arena import claims as arena_claims
from delayed_bandits.arena.entrants import INFORMATION
from delayed_bandits.arena.ties import INCONCLUSIVE, TIED, WORSE

PAPER = "arena"
FIGURES = ("regret", "window")
SWITCHING = experiment.SWITCHING
"""A figure a run may lack (the citable run's digest predates it): digested, and its blocks
rendered, where the run has it."""
VERDICTS = (TIED, INCONCLUSIVE, WORSE)
CORES = (2, 16)  # the machines the cost is stated for: this one, and a cluster node
COMPARISONS = (  # (lower, higher, what the comparison isolates)
    ("ts", "ucb1-matched", "the base learner, both ignoring delays"),
    ("qpm-d-ts", "qpm-d-matched", "the base learner, both queueing (labelled outcomes)"),
    ("d-ts", "ts", "correcting Ñ against ignoring delays, both TS"),
    ("d-ucb", "ucb1-matched", "correcting Ñ against ignoring delays, both UCB at log t"),
    ("discarding-ts", "ts", "discarding what is not settled at m against ignoring, both TS"),
    ("qpm-d-ts", "ts", "labelled outcomes (the oracle) against conversions, both TS"),
)
_TABLE = experiment.crossing()
BASES = tuple(base.header for base in experiment.columns(_TABLE))
CROSSING = {  # way of handling delays: its entrants' ids, a column of BASES each ("" for none)
    handling.name: tuple(row[b].id if b in row else "" for b in experiment.columns(_TABLE))
    for handling, row in _TABLE.items()
}


def _board(run: Path, figure: str) -> pd.DataFrame:
    from delayed_bandits import tables

    # its content checked; what made it is the run's own record (the digest quotes any run)
    return tables.read_table(
        run / "results" / PAPER / figure / "leaderboard.csv",
        leaderboard.COLUMNS,
        ["horizon", "field", "setting", "algorithm"],
        None,
    )


def tables(run: Path) -> list[Path]:
    """The run's per-cell tables, relative to ``run``: each figure's leaderboard and the answer
    per regime family, where the run made them. ``quote arena --write`` commits them beside
    the digest, in the run's own layout, so that every cell can be read without a rerun."""
    figures = (*FIGURES, SWITCHING)
    found = [Path("results", PAPER, figure, "leaderboard.csv") for figure in figures]
    found.append(Path("results", PAPER, "regret", "families.csv"))
    return [path for path in found if (run / path).is_file()]


def write_tables(run: Path, where: Path) -> list[Path]:
    """Copy ``tables`` of ``run`` under ``where``, each with its record, after checking its
    bytes against the record (``tables.read_recorded``); the copies written."""
    from delayed_bandits import tables as recorded
    from delayed_bandits.outputs import atomic_path

    written = []
    for path in tables(run):
        data = recorded.read_recorded(run / path, None)
        for name, content in (
            (path, data),
            (recorded.sidecar_path(path), recorded.sidecar_path(run / path).read_bytes()),
        ):
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            with atomic_path(where / name) as tmp:
                tmp.write_bytes(content)
            written.append(where / name)
    return written


def _families(run: Path) -> list[dict[str, Any]]:
    """The answer per regime family (``answer.table``), where the run made it."""
    from delayed_bandits import tables

    path = run / "results" / PAPER / "regret" / "families.csv"
    if not path.is_file():  # a run of the code before the families (a digest on record)
        return []
    return _records(tables.read_table(path, answer.COLUMNS, ["family", "algorithm"], None))


def _claims(run: Path, figure: str) -> list[dict[str, Any]]:
    path = run / "results" / PAPER / figure / "claims.json"
    return [
        {
            "figure": figure,
            "id": c["id"],
            "statement": c["statement"],
            "paper_ref": c["paper_ref"],
            "kind": c.get("kind", claims.REPRODUCTION),
            "verdict": claims.word(c["holds"]),
            "measured": c["measured"],
        }
        for c in json.loads(path.read_text())
    ]


def _number(value: Any) -> Any:
    """A JSON value: floats as they are (the check compares them exactly), NaN as None."""
    if isinstance(value, (float, np.floating)):
        return None if math.isnan(value) else float(value)
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _number(v) for k, v in row.items()} for row in frame.to_dict("records")]


def _wins(board: pd.DataFrame) -> list[dict[str, Any]]:
    table = leaderboard.wins(board)
    table = table[table.field == leaderboard.MATCHED].drop(columns="field")
    return _records(table)


def _compare(at_t: pd.DataFrame, fig: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per base rate and ``COMPARISONS`` pair: settings where both apply, where the first is
    established below the second, above it, and the median ratio of their regrets; a
    reward-dependent setting where both run as in its twin counted once (``claims.once``)."""
    out = []
    cell = at_t.set_index(["setting", "algorithm"])
    for rate, rows in at_t.groupby("base_mean", sort=False):
        for low, high, isolates in COMPARISONS:
            settings = arena_claims.once(at_t, fig, rows.setting.unique(), low, high)
            a = cell.loc[[(s, low) for s in settings if (s, low) in cell.index]]
            b = cell.loc[[(s, high) for s in settings if (s, high) in cell.index]]
            a, b = a.droplevel(1), b.droplevel(1)
            both = a.applicable.astype(bool) & b.applicable.astype(bool)
            a, b = a[both], b[both]
            if a.empty:
                continue
            lo, hi, _ = arena_claims.independent(a, b)
            out.append(
                {
                    "base_mean": _number(rate),
                    "lower": low,
                    "higher": high,
                    "isolates": isolates,
                    "settings": int(len(a)),
                    "below": int((hi < 0).sum()),
                    "above": int((lo > 0).sum()),
                    "median_ratio": _number(float((a.regret / b.regret).median())),
                }
            )
    return out


def _oracle(board: pd.DataFrame) -> list[dict[str, Any]]:
    worth = leaderboard.labelled_over_conversions(board)
    worth = worth[(worth.field == leaderboard.MATCHED) & (worth.horizon == board.horizon.max())]
    meta = board.drop_duplicates("setting").set_index("setting")
    worth = worth.assign(censored=worth.setting.map(meta.censored))
    out = []
    for (rate, censored), rows in worth.groupby(["base_mean", "censored"], sort=False):
        out.append(
            {
                "base_mean": _number(rate),
                "censored": bool(censored),
                "settings": int(len(rows)),
                "median": _number(rows.ratio.median()),
                "low": _number(rows.ratio.min()),
                "high": _number(rows.ratio.max()),
                "below_one": int((rows.ratio < 1).sum()),
            }
        )
    return out


def _window(board: pd.DataFrame, horizon: int | None = None) -> list[dict[str, Any]]:
    """Per (law, problem, algorithm): the window with the lowest mean regret at ``horizon`` (T by
    default; every windowed entrant is anytime, so an earlier round is the study at that
    horizon), the windows by the tie rule across its windows (``leaderboard``'s
    ``paired_verdict``: tied-best, worse, inconclusive; the runs are paired across m), and
    whether the best is the smallest or largest window the algorithm ran at (``best_at_edge``:
    the grid does not bracket the best m)."""
    at_t = leaderboard.view(board, horizon)
    at_t = at_t[at_t.applicable.astype(bool)]
    out = []
    keys = ["regime", "n_arms", "base_mean", "gap", "algorithm"]
    for key, rows in at_t.groupby(keys, sort=False):
        rows = rows.sort_values("window")
        best = rows.loc[rows.regret.idxmin()]
        by = {v: [int(w) for w in rows.window[rows.paired_verdict == v]] for v in VERDICTS}
        out.append(
            {
                **{k: _number(v) for k, v in zip(keys, key)},
                "label": best.label,
                "regime_label": best.regime_label,
                "best_window": int(best.window),
                "best_at_edge": len(rows) > 1
                and best.window in (rows.window.min(), rows.window.max()),
                "regret": _number(best.regret),
                "regret_lo": _number(best.regret_lo),
                "regret_hi": _number(best.regret_hi),
                "windows_tied": by[TIED],
                "windows_inconclusive": by[INCONCLUSIVE],
                "windows_worse": by[WORSE],
                "regret_by_window": {
                    str(int(w)): _number(r) for w, r in zip(rows.window, rows.regret)
                },
            }
        )
    return out


def _switching(board: pd.DataFrame, fig_cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per setting of the switching figure at T: the best fixed arm's regret against each round's
    best (``claims.fixed_arm_offsets``), the tied-best entrants, and each applicable entrant's
    regret against the best fixed arm with its 95 % bootstrap interval (the cell's regret, and its
    interval, minus that offset)."""
    at_t = leaderboard.view(board)
    offsets = arena_claims.fixed_arm_offsets(at_t, fig_cfg)
    out = []
    for setting, cell in at_t.groupby("setting", sort=False):
        live = cell[cell.applicable.astype(bool)]
        first, offset = live.iloc[0], offsets[setting]
        out.append(
            {
                "setting": setting,
                "regime_label": first.regime_label,
                "n_arms": int(first.n_arms),
                "base_mean": _number(first.base_mean),
                "gap": _number(first.gap),
                "offset": _number(offset),
                "tied_best": [str(a) for a in live.algorithm[live.tied_best.astype(bool)]],
                "against_fixed": {
                    str(r.algorithm): [
                        _number(r.regret - offset),
                        _number(r.regret_lo - offset),
                        _number(r.regret_hi - offset),
                    ]
                    for r in live.itertuples()
                },
            }
        )
    return out


def _screening(board: pd.DataFrame) -> dict[str, Any]:
    """What the screen stopped and the contest ran, at T: the applicable curves (setting,
    algorithm), those that ran the contest (every run; none on a board of one stage) and, per
    base rate, the matched comparison's cells and those the screen stopped (decided worse at
    stage 1)."""
    last = board[(board.horizon == board.horizon.max()) & board.applicable.astype(bool)]
    curves = last.drop_duplicates(["setting", "algorithm"])
    every = curves.n_runs == curves.groupby("setting").n_runs.transform("max")
    matched = last[last.field == leaderboard.MATCHED]
    return {
        "curves": len(curves),
        "contest_curves": int(every.sum()) if (board.stage == 2).any() else 0,
        "stopped": [
            {"base_mean": _number(rate), "cells": len(rows), "worse": int(rows.stopped.sum())}
            for rate, rows in matched.groupby("base_mean", sort=False)
        ],
    }


def _lpt(jobs: Iterable[float], cores: int) -> float:
    """Makespan of the jobs on ``cores`` workers, longest first, each to the least loaded (the
    order Snakemake's scheduler cannot beat by much when jobs are independent)."""
    load = [0.0] * cores
    for job in sorted(jobs, reverse=True):
        load[load.index(min(load))] += job
    return max(load)


def _cost(run: Path) -> dict[str, Any]:
    """CPU time and wall time per job of the arena (``benchmarks.read``: its log's CPU count);
    the simulation jobs are independent, the rest of the arena's jobs follow them, and the
    contest's jobs (``contest*``) are independent of each other and follow the screen."""
    jobs = benchmarks.read(run, PAPER, "`make arena-full` (full) or `make figures` (standard)")
    jobs = jobs.assign(simulate=jobs.stage == "rep", contest=jobs.stage == "contest")
    sim, contest = jobs[jobs.simulate], jobs[jobs.contest]
    rest = jobs[~jobs.simulate & ~jobs.contest]
    return {
        "jobs": int(len(jobs)),
        "cpu_s": float(jobs.cpu_s.sum()),
        "simulate_cpu_s": float(sim.cpu_s.sum()),
        "simulate_jobs": int(len(sim)),
        "contest_cpu_s": float(contest.cpu_s.sum()),
        "contest_jobs": int(len(contest)),
        "longest_job_s": float(jobs.s.max()),
        "after_simulation_s": float(rest.s.sum()),
        # the simulation scheduled on a machine of n cores, plus the jobs after it run one after
        # another (an upper bound: several of them can run side by side)
        "wall_estimate_s": {
            str(n): _lpt(sim.cpu_s, n) + _lpt(contest.cpu_s, n) + float(rest.cpu_s.sum())
            for n in CORES
        },
    }


def _provenance(run: Path, figure: str) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """The figure's config as the run's summary recorded it (its files, read from here, and its
    overrides), and what the digest records of its provenance (``quoted.information``)."""
    side = json.loads((run / "results" / PAPER / figure / "summary.provenance.json").read_text())
    made = config.load(side["config"]["paths"], PAPER, side["config"]["overrides"], figure)
    return cv.figure(made, PAPER, figure), provenance.digested(side)


def run_scale(run: Path, figures: Mapping[str, Mapping[str, Any]]) -> str:
    """The scale of the arena run under ``run``, as its digest states it: ``standard`` for
    ``.``, else the run's folder (``full``), worded by ``grid.scale`` over the run's ``figures``
    (their configs, by figure id), so that a run whose ``only`` kept a subset of a figure's
    settings says so."""
    name = "standard" if run.resolve() == Path.cwd().resolve() else run.name
    return grid.scale(name, {f"{PAPER} {figure}": fig for figure, fig in figures.items()})


def digest(run: Path) -> dict[str, Any]:
    """The digest of the arena run under ``run``: ``.`` for the standard scale of
    `make figures`, ``full`` for config/arena-full.yaml's (``run_scale``)."""
    board = _board(run, "regret")
    at_t = leaderboard.view(board)
    present = (SWITCHING,) if (run / "results" / PAPER / SWITCHING).is_dir() else ()
    made = {figure: _provenance(run, figure) for figure in (*FIGURES, *present)}
    extra = {SWITCHING: _switching(_board(run, SWITCHING), made[SWITCHING][0])} if present else {}
    windows = _board(run, "window")
    first = int(windows.horizon.min())
    if first < int(windows.horizon.max()):  # the window study at T/10 too, where the run has it
        extra["window_early"] = {"horizon": first, "rows": _window(windows, first)}
    return {
        "scale": run_scale(run, {figure: fig for figure, (fig, _) in made.items()}),
        "horizon": int(board.horizon.max()),
        "horizons": sorted(int(h) for h in board.horizon.unique()),
        "settings": int(board.setting.nunique()),
        "entrants": int(board.algorithm.nunique()),
        "base_means": sorted({_number(r) for r in board.base_mean}, reverse=True),
        "replications": {figure: int(fig["replications"]) for figure, (fig, _) in made.items()},
        "provenance": {figure: recorded for figure, (_, recorded) in made.items()},
        "wins": _wins(board),
        "precision": _records(
            leaderboard.precision_report(board).query("field == @leaderboard.MATCHED")
        ),
        "statistics": leaderboard.statistics(made["regret"][0]),
        "screening": _screening(board),
        "comparisons": _compare(at_t, made["regret"][0]),
        "oracle": _oracle(board),
        "window": _window(windows),
        **extra,
        "claims": [c for figure in made for c in _claims(run, figure)],
        "families": _families(run),
        "cost": _cost(run),
    }


# --- rendering ---------------------------------------------------------------------------------


def _ratio(x: Any) -> str:
    if x is None:
        return "n/a"
    return f"{x:.2f}" if x < 10 else f"{x:.0f}"


def _rate(r: float) -> str:
    return f"μ = {r:g}"


def _minutes(s: float) -> str:
    return f"{s / 60:.0f} min" if s < 5400 else f"{s / 3600:.1f} h"


def _run_line(d: Mapping[str, Any]) -> str:
    reps, window_reps = d["replications"]["regret"], d["replications"]["window"]
    cost = d["cost"]
    return (
        f"*{grid.scale(d['scale'], prose=True)}*: {reps} paired runs of each of the "
        f"{d['settings']} settings of the leaderboard ({len(d['base_means'])} base rates, "
        f"{', '.join(_rate(r) for r in d['base_means'])}), {window_reps} of the window study, "
        f"T = {d['horizon']:,}, {d['entrants']} entrants. Cost, each job's CPU time from its log "
        "(Snakemake's benchmark where the log has none): "
        f"{cost['cpu_s'] / 3600:.2f} CPU-hours in {cost['jobs']} jobs (the simulation "
        f"{cost['simulate_cpu_s'] / 3600:.2f}{_contest_cost(d)}); scheduled on 2 cores about "
        f"{_minutes(cost['wall_estimate_s']['2'])}, on a 16-core node about "
        f"{_minutes(cost['wall_estimate_s']['16'])}."
    )


def _wins_table(d: Mapping[str, Any]) -> str:
    wins = pd.DataFrame(d["wins"])
    at_t = wins[wins.horizon == d["horizon"]]
    rates = d["base_means"]
    head = ["information model", "algorithm"]
    for r in rates:
        head += [f"{_rate(r)}: tied-best / worse / inconclusive at T (alone)", "in its model"]
        head += ["median ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    order = {name: i for i, name in enumerate(INFORMATION)}
    algorithms = at_t.drop_duplicates("algorithm")
    algorithms = algorithms.assign(o=algorithms.information.map(order)).sort_values(
        "o", kind="stable"
    )
    last = None
    for row in algorithms.itertuples():
        cells = [row.information if row.information != last else "", row.label]
        last = row.information
        for r in rates:
            w = at_t[(at_t.algorithm == row.algorithm) & (at_t.base_mean == r)]
            if w.empty or not w.settings.iloc[0]:
                cells += ["n/a", "", ""]
                continue
            w = w.iloc[0]
            cells += [
                f"{w.wins:g} / {w.worse:g} / {w.inconclusive:g} of {w.settings:g} ({w.outright:g})",
                f"{w.model_wins:g}",
                _ratio(w.median_ratio),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _crossing_table(d: Mapping[str, Any]) -> str:
    wins = pd.DataFrame(d["wins"])
    at_t = wins[wins.horizon == d["horizon"]].set_index(["base_mean", "algorithm"])
    lines = []
    for r in d["base_means"]:
        lines += [
            f"{_rate(r)}:",
            "",
            "| handling \\ base | " + " | ".join(BASES) + " |",
            "|---|" + "---|" * len(BASES),
        ]
        for handling, ids in CROSSING.items():
            cells = []
            for a in ids:
                if (r, a) not in at_t.index:  # an entrant declared after the run was made
                    cells.append("not in this run")
                    continue
                if not at_t.loc[(r, a)].settings:
                    cells.append("n/a")
                    continue
                w = at_t.loc[(r, a)]
                cells.append(
                    f"{w.wins:g} of {w.settings:g} ({w.worse:g} worse), {_ratio(w.median_ratio)}"
                )
            lines.append(f"| {handling} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _comparisons(d: Mapping[str, Any]) -> str:
    lines = []
    for c in d["comparisons"]:
        lines.append(
            f"- {_rate(c['base_mean'])}, {c['isolates']}: `{c['lower']}` below `{c['higher']}` "
            f"by more than {claims.zse()} in {c['below']} of {c['settings']} settings, above in "
            f"{c['above']}, not separated in {c['settings'] - c['below'] - c['above']}; median "
            f"ratio {_ratio(c['median_ratio'])}."
        )
    for o in d["oracle"]:
        lines.append(
            f"- {_rate(o['base_mean'])}, {'censored' if o['censored'] else 'uncensored'}: the "
            f"best with labelled outcomes (the oracle) over the best with conversions or "
            f"outcomes settled at m, median {_ratio(o['median'])} ({_ratio(o['low'])} to "
            f"{_ratio(o['high'])}), below 1 in {o['below_one']} of {o['settings']} settings."
        )
    return "\n".join(lines)


def _contest_cost(d: Mapping[str, Any]) -> str:
    """What the contest cost and ran, where the run screened (a digest of one stage has none)."""
    screened = d.get("screening")
    if not screened or not screened["contest_curves"]:
        return ""
    return (
        f", the contest {d['cost']['contest_cpu_s'] / 3600:.2f} in {d['cost']['contest_jobs']} "
        f"jobs: {screened['contest_curves']} of the {screened['curves']} curves ran all "
        f"{d['replications']['regret']} runs, the others the screen's "
        f"{d['statistics']['screen_runs']}"
    )


def _decided(d: Mapping[str, Any], p: Mapping[str, Any]) -> str:
    """How much of the contenders' decided share the screen made, where the run screened."""
    screened = d.get("screening")
    if not screened or not screened["contest_curves"]:
        return ""
    stopped = {r["base_mean"]: r for r in screened["stopped"]}.get(p["base_mean"])
    cells = (
        f"; of all the cells, the screen stopped {stopped['worse']} of {stopped['cells']}"
        if stopped
        else ""
    )
    return (
        f" ({p['contenders_decided_first']:.0%} worse at the screen's "
        f"{d['statistics']['screen_runs']} runs, the rest by the contest on all "
        f"{d['replications']['regret']}{cells})"
    )


def _to_decide(p: Mapping[str, Any]) -> str:
    # a digest made before the runs to decide were reported has none
    if "contenders_runs_to_decide" not in p:
        return ""
    runs = p["contenders_runs_to_decide"]
    if runs is None or not math.isfinite(runs):
        return (
            "; 90 % of the contenders would not be decided at any count of runs: among them are "
            "cells whose excess over the margin is 0 at these runs"
        )
    return (
        f"; 90 % of the contenders would be decided at about "
        f"{p['contenders_runs_to_decide']:,.0f} runs of one stage"
    )


def _precision(d: Mapping[str, Any]) -> str:
    target = d["statistics"]["precision"]
    lines = []
    for p in d["precision"]:
        if p["horizon"] != d["horizon"]:
            continue
        lines.append(
            f"- {_rate(p['base_mean'])}, at T: {p['all_precise']:.0%} of the {p['all_cells']:,} "
            f"cells (every applicable cell but each setting's best) have a 95 % half-width of at "
            f"most {target:.0%} of the best's regret, and {p['contenders_precise']:.0%} of the "
            f"{p['contenders_cells']} contenders (within {leaderboard.CONTENDER:g} times the "
            f"best); the tie rule decides {p['all_decided']:.0%} of the cells and "
            f"{p['contenders_decided']:.0%} of the contenders"
            f"{_decided(d, p)}"
            ". 90 % of the cells would be precise "
            f"at about {p['all_runs_needed']:,.0f} runs, 90 % of the contenders at about "
            f"{p['contenders_runs_needed']:,.0f}{_to_decide(p)}."
        )
    return "\n".join(lines)


def _window_table(records: list[dict[str, Any]]) -> str:
    rows = pd.DataFrame(records)
    if rows.empty:
        return ""
    problems = rows.drop_duplicates(["n_arms", "base_mean", "gap"])
    head = ["algorithm"] + [
        f"{law}, K = {p.n_arms}, {_rate(p.base_mean)}"
        for law in rows.regime_label.unique()
        for p in problems.itertuples()
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for algorithm, of in rows.groupby("label", sort=False):
        cells = [algorithm]
        for law in rows.regime_label.unique():
            for p in problems.itertuples():
                r = of[
                    (of.regime_label == law)
                    & (of.n_arms == p.n_arms)
                    & (of.base_mean == p.base_mean)
                ]
                if r.empty:
                    cells.append("n/a")
                    continue
                r = r.iloc[0]
                tied = [w for w in r.windows_tied if w != r.best_window]
                open_ = [w for w in r.windows_inconclusive if w != r.best_window]
                cells.append(
                    f"m = {r.best_window} ({r.regret:.0f})"
                    + (f"; {TIED}: {', '.join(map(str, tied))}" if tied else "")
                    + (f"; {INCONCLUSIVE}: {', '.join(map(str, open_))}" if open_ else "")
                    + ("; the grid does not bracket the best m" if r.best_at_edge else "")
                )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _switching_table(d: Mapping[str, Any]) -> str:
    lines = [
        "| setting | the best fixed arm's regret | tied-best | lowest against the best fixed arm "
        "| Thompson sampling | DEW |",
        "|---|---|---|---|---|---|",
    ]

    def against(alg: str, values: Mapping[str, Any]) -> str:
        if alg not in values:
            return "n/a"
        mean, lo, hi = values[alg]
        return f"{mean:+.0f} ({lo:+.0f} to {hi:+.0f})"

    for row in d[SWITCHING]:
        values = row["against_fixed"]
        lowest = min(values, key=lambda a: values[a][0])
        lines.append(
            f"| {row['regime_label']}, K = {row['n_arms']}, {_rate(row['base_mean'])}, gap "
            f"{row['gap']:g} | {row['offset']:.0f} | {', '.join(row['tied_best']) or 'none'} "
            f"| {lowest} {against(lowest, values)} | {against('ts', values)} "
            f"| {against('dew', values)} |"
        )
    return "\n".join(lines)


def _tally(d: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    return claims.tally((c["kind"], c["verdict"]) for c in d["claims"])


def _claims_list(d: Mapping[str, Any]) -> str:
    return "\n".join(
        [f"The arena's own claims (no paper makes them): {claims.phrase(_tally(d), own=True)}", ""]
        + [
            f"- `{c['figure']}` `{c['id']}`"
            + (" (check)" if c["kind"] == claims.CHECK else "")
            + f": **{c['verdict']}** ({c['measured']})"
            for c in d["claims"]
        ]
    )


def _readme(d: Mapping[str, Any]) -> str:
    """The README's line: per base rate and information model, in how many families its best
    entrant is below Thompson sampling that ignores delays and in how many above (each by its
    95 % interval; ``answer``), and the range of those best ratios."""
    table = answer.bests(pd.DataFrame(d["families"]))
    bests = table.assign(rate=table.family.map(answer.rate))
    parts = []
    for r in d["base_means"]:
        at = bests[bests.rate == r]
        said = []
        for model in (m for m in INFORMATION if m in set(at.information)):
            rows = at[at.information == model]
            said.append(
                f"seeing {model}, below in {int((rows.hi < 1).sum())} and above in "
                f"{int((rows.lo > 1).sum())} of {len(rows)} families "
                f"(ratios {rows.ratio.min():.2f}-{rows.ratio.max():.2f})"
            )
        parts.append(f"At {_rate(r)}: " + "; ".join(said) + ".")
    return (
        f"The arena ({grid.scale(d['scale'], prose=True)}, {d['replications']['regret']} "
        f"paired runs of {d['settings']} settings) answers per regime family: the best method of "
        f"each information model, by its mean paired ratio of regret at T to Thompson sampling "
        f"that ignores delays (`{answer.REFERENCE}`), below or above it where its 95 % interval "
        "excludes 1. "
        + " ".join(parts)
        + " Its own claims, which no paper makes, counted apart from the papers': "
        f"{claims.phrase(_tally(d), own=True)[:-1]} (the table and a sentence per family: "
        "docs/arena.md)."
    )


def _families_table(d: Mapping[str, Any]) -> str:
    """The answer per regime family as a table: a row per family, a column per information
    model, each cell the model's best entrant (``answer.bests``), its mean paired ratio to
    ``answer.REFERENCE`` with its 95 % interval, in bold where the interval lies below 1."""
    table = pd.DataFrame(d["families"])
    models = [m for m in INFORMATION if m in set(table.information)]
    lines = [
        f"| family (settings) | {' | '.join(models)} |",
        "|---|" + "---|" * len(models),
    ]
    for fam, rows in answer.bests(table).groupby("family", sort=False):
        cells = []
        for model in models:
            found = rows[rows.information == model]
            if found.empty:
                cells.append("n/a")
                continue
            best = found.iloc[0]
            said = f"{best.label} {best.ratio:.2f} [{best.lo:.2f}, {best.hi:.2f}]"
            cells.append(f"**{said}**" if best.hi < 1 else said)
        lines.append(f"| {fam} ({int(rows.settings.max())}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def blocks(d: Mapping[str, Any]) -> dict[str, str]:
    """The Markdown of every block the docs quote, by block name (the families' where the
    digest's run made them)."""
    families = (
        {
            "arena-families": _families_table(d),
            "arena-family-sentences": "\n".join(
                f"- {said}" for said in answer.sentences(pd.DataFrame(d["families"])).values()
            ),
        }
        if d.get("families")
        else {}
    )
    return {
        **families,
        "arena-run": _run_line(d),
        "arena-wins": _wins_table(d),
        "arena-crossing": _crossing_table(d),
        "arena-comparisons": _comparisons(d),
        "arena-precision": _precision(d),
        "arena-window": _window_table(d["window"]),
        "arena-claims": _claims_list(d),
        "readme-arena": _readme(d),
        **{
            f"arena-{figure}-claim-ids": claims.id_table(
                (c for c in d["claims"] if c["figure"] == figure), own=True
            )
            for figure in (*FIGURES, *([SWITCHING] if SWITCHING in d else []))
        },
        **({"arena-switching": _switching_table(d)} if SWITCHING in d else {}),
        **(
            {"arena-window-early": _window_table(d["window_early"]["rows"])}
            if "window_early" in d
            else {}
        ),
    }


def declared() -> dict[str, str]:
    """The Markdown of the blocks the entrants' declarations give, by block name: the handling ×
    base table (``experiment.crossing``), each cell an entrant's label and id. They need no run:
    ``delayed-bandits quote entrants --write`` writes them, and ``quote`` checks them with the
    digests' blocks."""
    table = experiment.crossing()
    bases = experiment.columns(table)
    lines = [
        "| handling \\ base | " + " | ".join(b.header for b in bases) + " | information model |",
        "|---|" + "---|" * (len(bases) + 1),
    ]
    for handling, row in table.items():
        cells = [f"{row[b].label} (`{row[b].id}`)" if b in row else "n/a" for b in bases]
        models = " / ".join(dict.fromkeys(e.information for e in row.values()))
        lines.append(f"| {handling.description} | " + " | ".join(cells) + f" | {models} |")
    return {"arena-handling-base": "\n".join(lines), "arena-information": _information()}


def _information() -> str:
    """Every entrant by its information model (``INFORMATION``, in its order, and what it
    observes), an entrant told T (``horizon_tuned``) marked (T): docs/library.md's table."""
    by_model: dict[str, list[str]] = {model: [] for model in INFORMATION}
    for entrant in experiment.ALGORITHMS:
        by_model[entrant.information].append(
            f"`{entrant.id}`" + (" (T)" if entrant.horizon_tuned else "")
        )
    lines = [
        "| information model | what it observes | entrants ((T): told the horizon T) |",
        "|---|---|---|",
    ]
    lines += [
        f"| {model} | {INFORMATION[model]} | {', '.join(ids)} |"
        for model, ids in by_model.items()
        if ids
    ]
    return "\n".join(lines)
