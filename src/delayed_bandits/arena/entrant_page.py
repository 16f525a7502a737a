"""The page of one entrant in an arena run (``delayed-bandits entrant-page``): what a researcher
who added an entrant (docs/extending.md) reads of it after a run, against the best entrant of each
information model (``entrants.INFORMATION``).

It reads the run's tables as the workflow wrote them: the families table (``answer.table``:
per regime family, the mean paired ratio of regret to ``answer.REFERENCE``, with its 95 %
interval) and the leaderboard (``leaderboard.COLUMNS``: per setting, the mean regret at T with its
bootstrap interval, the ratio to the comparison's best and the tie rule's verdict), and, where the
run has them, its claims (``claims.json``: the automatic ``better-than-uniform-<id>``) and its
config (``summary.provenance.json``: the run's scale, ``digest.run_scale``).

The best of a model is the entrant of that model with the lowest mean: in a family, among those
that apply in every one of its settings (``complete``, as ``answer.sentences`` chooses); in a
setting, among those that apply there, in the entrant's comparison (``comparison``: the matched
one, or the published one for an index method at its paper's constant) at the last horizon. The
lowest of several means is biased low (the winner's curse): its interval is that entrant's, not a
correction for having chosen it.

Every function here is pure but ``read_run``; the command (``arena/cli.py``) writes the page and
its figures."""

from __future__ import annotations

import json
import math
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib import ticker

from delayed_bandits import config, grid, tables
from delayed_bandits import curves as cv
from delayed_bandits.arena import answer, digest, leaderboard
from delayed_bandits.arena.entrants import INFORMATION, MATCHED, PUBLISHED
from delayed_bandits.claims import word
from delayed_bandits.errors import BadParameter
from delayed_bandits.style import reader

PAPER = "arena"
FIGURE = "regret"
CLAIM = "better-than-uniform-{}"
"""The id of an entrant's automatic claim (``arena.claims``), by entrant id."""
BASELINE = "uniform"
"""The entrant those claims compare with, which has none."""
MAKE = "snakemake --cores 2 {run}results/arena/regret/{table}"
"""The command that makes a table of a run (by run prefix and table file name)."""
ENTRANT = "entrant"
"""The ``role`` of the entrant's own rows, beside ``best`` (the best of a model)."""
BEST = "best"


@dataclass(frozen=True)
class Run:
    """What the page reads of a run: its leaderboard, its families table, its claims (None where
    the run has no claims.json) and how it states its scale (``scale``)."""

    where: Path
    board: pd.DataFrame
    families: pd.DataFrame
    claims: list[dict[str, Any]] | None
    scale: str


def results(run: Path) -> Path:
    """The folder of the arena's regret figure's tables under the run folder ``run``."""
    return run / "results" / PAPER / FIGURE


def default_out(run: Path, entrant: str) -> Path:
    """Where the page of ``entrant`` goes by default: ``<run>/entrants/<id>/``, beside the run's
    results/, figures/ and reports/, not in them (``verify`` holds those to the run's checksums,
    and a page is no output of the workflow)."""
    return run / "entrants" / entrant


def make_command(run: Path, table: str) -> str:
    """The command that makes ``table`` (``families.csv``: the rule ``families``) of the run under
    ``run`` (to be given the run's ``--configfile`` for a run of an overlay)."""
    prefix = "" if run.resolve() == Path.cwd().resolve() else f"{run.as_posix().rstrip('/')}/"
    return MAKE.format(run=prefix, table=table)


def scale(run: Path, board: pd.DataFrame) -> str:
    """How the run under ``run`` states its scale: as its digest does (``digest.run_scale``, which
    says when its ``only`` kept a subset of the settings) where the run recorded its config
    (``summary.provenance.json``); else the run's folder and the settings its leaderboard has,
    since without the config a subset cannot be told from a whole scale."""
    side = results(run) / "summary.provenance.json"
    if side.is_file():
        recorded = json.loads(side.read_text())["config"]
        made = config.load(recorded["paths"], PAPER, recorded["overrides"], FIGURE)
        return digest.run_scale(run, {FIGURE: cv.figure(made, PAPER, FIGURE)})
    name = run.as_posix() if run.resolve() != Path.cwd().resolve() else "the current folder"
    return f"run in {name}, {board.setting.nunique()} settings (its config is not recorded here)"


Reader = Callable[[Path, Any], pd.DataFrame]
"""A table's reader, (path, binding or None) -> the table checked (``arena.cli.TABLES``'s)."""


def read_run(run: Path, readers: Mapping[str, Reader]) -> Run:
    """The tables of the run under ``run`` (``.``: the standard run, ``smoke``, ``full``), read
    and checked by ``readers``, the arena's (``arena.cli.TABLES``: ``leaderboard`` and
    ``families``, each ``tables.read_table`` with its columns), whatever config made them. A run
    without a families table is refused, naming the rule that makes it; claims.json, where
    present, is checked against its record (``tables.read_recorded``)."""
    folder = results(run)
    path = folder / "families.csv"
    if not (folder / "leaderboard.csv").is_file():
        raise FileNotFoundError(
            f"{folder / 'leaderboard.csv'} does not exist: no arena run under {run}; make it with "
            f"`{make_command(run, 'leaderboard.csv')}` (then the run's --configfile, e.g. "
            "--configfile config/smoke.yaml for smoke/)"
        )
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} does not exist: the run has no families table (the rule `families`); make "
            f"it with `{make_command(run, 'families.csv')}` (then the run's --configfile, e.g. "
            "--configfile config/smoke.yaml for smoke/)"
        )
    board = readers["leaderboard"](folder / "leaderboard.csv", None)
    families = readers["families"](path, None)
    claims_path = folder / "claims.json"
    claims = json.loads(tables.read_recorded(claims_path, None)) if claims_path.is_file() else None
    return Run(run, board, families, claims, scale(run, board))


def check_entrant(board: pd.DataFrame, entrant: str) -> None:
    """``BadParameter`` naming the ids of the run's leaderboard, unless ``entrant`` is one."""
    ids = list(dict.fromkeys(board.algorithm))
    if entrant not in ids:
        raise BadParameter(
            f"entrant {entrant!r} is not in this run's leaderboard; its entrants: {', '.join(ids)}"
        )


def _best(rows: pd.DataFrame, by: str, keys: list[str]) -> pd.DataFrame:
    """Per group of ``keys`` and information model, the row of ``rows`` with the lowest ``by``
    (the first in table order on a tie), groups and models in table order."""
    rows = rows.dropna(subset=[by])
    at = rows.groupby([*keys, "information"], sort=False)[by].idxmin()
    return rows.loc[at.to_numpy()]


def family_rows(families: pd.DataFrame, entrant: str) -> pd.DataFrame:
    """Per regime family of ``families`` (``answer.COLUMNS``), in its order: the ``entrant``'s row
    (``role`` entrant; absent from a family it has no row in) and, for each information model, its
    best entrant (``role`` best): the lowest ``ratio`` among the rows that apply in every setting
    of the family (``complete``), with its interval (``lo``, ``hi``), as the families table gives
    them. ``is_entrant``: the row is the entrant's own."""
    complete = families[families.complete.astype(bool)]
    best = _best(complete, "ratio", ["family"]).assign(role=BEST)
    own = families[families.algorithm == entrant].assign(role=ENTRANT)
    rank = {f: i for i, f in enumerate(dict.fromkeys(families.family))}
    models = {m: i for i, m in enumerate(INFORMATION)}
    out = pd.concat([own, best], ignore_index=True)
    out = out.assign(
        _f=out.family.map(rank),
        _r=(out.role == BEST).astype(int),
        _m=out.information.map(models).fillna(len(models)),
    ).sort_values(["_f", "_r", "_m"], kind="stable")
    out["is_entrant"] = out.algorithm == entrant
    return out.drop(columns=["_f", "_r", "_m"]).reset_index(drop=True)


def comparison(board: pd.DataFrame, entrant: str) -> str:
    """The comparison (``entrants.FIELDS``) the page reads of ``entrant``: the matched one, which
    every entrant enters but an index method at its paper's constant (it enters the published
    one alone)."""
    matched = board[board.field == MATCHED]
    return MATCHED if (matched.algorithm == entrant).any() else PUBLISHED


def at_horizon(board: pd.DataFrame, entrant: str) -> pd.DataFrame:
    """The leaderboard's rows of ``entrant``'s comparison (``comparison``) at its last horizon T
    (``leaderboard.view``)."""
    return leaderboard.view(board, None, comparison(board, entrant))


def setting_rows(board: pd.DataFrame, entrant: str) -> pd.DataFrame:
    """Per setting of the entrant's comparison at T (``at_horizon``) where ``entrant`` applies, in
    board order: its row (``role`` entrant: ``regret`` with ``regret_lo``/``regret_hi``,
    ``ratio`` to the comparison's best, ``verdict``, ``model_verdict``...) and, for each
    information model, the applicable row with the lowest mean ``regret`` (``role`` best).
    ``is_entrant``: the row is the entrant's own."""
    rows = at_horizon(board, entrant)
    live = rows[rows.applicable.astype(bool)]
    own = live[live.algorithm == entrant]
    live = live[live.setting.isin(own.setting)]
    best = _best(live, "regret", ["setting"]).assign(role=BEST)
    rank = {s: i for i, s in enumerate(dict.fromkeys(rows.setting))}
    models = {m: i for i, m in enumerate(INFORMATION)}
    out = pd.concat([own.assign(role=ENTRANT), best], ignore_index=True)
    out = out.assign(
        _s=out.setting.map(rank),
        _r=(out.role == BEST).astype(int),
        _m=out.information.map(models).fillna(len(models)),
    ).sort_values(["_s", "_r", "_m"], kind="stable")
    out["is_entrant"] = out.algorithm == entrant
    return out.drop(columns=["_s", "_r", "_m"]).reset_index(drop=True)


def not_applicable(board: pd.DataFrame, entrant: str) -> pd.DataFrame:
    """The settings at T where ``entrant`` does not apply, with the leaderboard's ``reason``
    (columns setting, reason), in board order."""
    rows = at_horizon(board, entrant)
    rows = rows[(rows.algorithm == entrant) & ~rows.applicable.astype(bool)]
    return rows[["setting", "reason"]].reset_index(drop=True)


def claim(claims: list[dict[str, Any]] | None, entrant: str) -> list[dict[str, Any]]:
    """The entrant's automatic claims of the run's ``claims``, in their order: ``CLAIM``, or one
    per base rate, ``CLAIM-rate<r>``, where the run has several (``arena.claims``)."""
    wanted = re.compile(re.escape(CLAIM.format(entrant)) + r"(-rate[0-9.e+-]+)?")
    return [c for c in claims or () if wanted.fullmatch(str(c.get("id", "")))]


# --- the page -----------------------------------------------------------------------------------


def _num(x: Any, digits: int = 3) -> str:
    """A number as the page prints it: ``digits`` significant digits, "–" for a missing one."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    x = float(x)
    if abs(x) >= 10**digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def _interval(lo: Any, hi: Any, digits: int = 3) -> str:
    return f"[{_num(lo, digits)}, {_num(hi, digits)}]"


def _runs(values: Iterable[Any]) -> str:
    """A count of runs, or its range where cells differ."""
    found = sorted({int(v) for v in values if not pd.isna(v)})
    if not found:
        return "–"
    return f"{found[0]}" if len(found) == 1 else f"{found[0]}–{found[-1]}"


def facts(run: Run, entrant: str) -> dict[str, Any]:
    """What the page's title and captions say of the run and the entrant: its label,
    information model, whether it is told T, the run's scale, T and its paired runs per cell."""
    rows = at_horizon(run.board, entrant)
    own = rows[rows.algorithm == entrant]
    first = own.iloc[0]
    return {
        "id": entrant,
        "label": str(first.label),
        "information": str(first.information),
        "horizon_tuned": bool(first.horizon_tuned),
        "scale": run.scale,
        "horizon": int(rows.horizon.max()),
        "runs": _runs(rows.n_runs[rows.applicable.astype(bool)]),
        "family_runs": _runs(run.families.n_runs),
        "settings": int(rows.setting.nunique()),
        "comparison": comparison(run.board, entrant),
    }


def families_table(rows: pd.DataFrame, entrant: str) -> str:
    """``family_rows`` of ``entrant`` as Markdown: one line per (family, entrant or best of a
    model), and a line saying so where the entrant applies in none of a family's settings."""
    lines = [
        f"| family | who | information model | ratio to `{answer.REFERENCE}` | 95 % interval "
        "| settings | complete | runs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    seen: set[str] = set()
    for row in rows.itertuples(index=False):
        if row.family not in seen and row.role != ENTRANT:
            lines.append(
                f"| {row.family} | this entrant: `{entrant}`, which applies in none of its "
                "settings | – | – | – | 0 | no | – |"
            )
        seen.add(row.family)
        who = "this entrant" if row.role == ENTRANT else "best of its model"
        name = f"`{row.algorithm}`" + (
            " (this entrant)" if row.is_entrant and row.role == BEST else ""
        )
        lines.append(
            f"| {row.family} | {who}: {name} | {row.information} | {_num(row.ratio)} | "
            f"{_interval(row.lo, row.hi)} | {int(row.settings)} | "
            f"{'yes' if row.complete else 'no'} | {int(row.n_runs)} |"
        )
    return "\n".join(lines)


def settings_table(rows: pd.DataFrame) -> str:
    """``setting_rows`` as Markdown: one line per setting, the entrant's regret, interval, ratio
    and verdicts, then each model's best with its regret and interval."""
    models = [m for m in INFORMATION if m in set(rows.information[rows.role == BEST])]
    lines = [
        "| setting | regret [95 % interval] | ratio to best | verdict | within its model | "
        + " | ".join(f"best of {m}" for m in models)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(models),
    ]
    for setting, group in rows.groupby("setting", sort=False):
        own = group[group.role == ENTRANT].iloc[0]
        cells = []
        for model in models:
            found = group[(group.role == BEST) & (group.information == model)]
            if found.empty:
                cells.append("–")
                continue
            b = found.iloc[0]
            name = "this entrant" if b.is_entrant else f"`{b.algorithm}`"
            cells.append(f"{name} {_num(b.regret)} {_interval(b.regret_lo, b.regret_hi)}")
        lines.append(
            f"| `{setting}` | {_num(own.regret)} {_interval(own.regret_lo, own.regret_hi)} | "
            f"{_num(own.ratio)} | {own.verdict} | {own.model_verdict} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def page(
    run: Run,
    entrant: str,
    figures: Mapping[str, str] | None = None,
    pages: Mapping[str, int] | None = None,
) -> str:
    """The entrant's page in Markdown: what it is and observes, where it does not apply, its
    automatic claim, then its answer per regime family and per setting at T beside the best of
    each information model; ``figures`` (name -> relative path of its PNG: ``families``,
    ``settings``) are shown under their sections, a figure of several ``pages`` (name -> count)
    by the PNG of each page, ``<name>/page<n>.png`` beside the first's."""
    check_entrant(run.board, entrant)
    f = facts(run, entrant)
    figures = figures or {}
    absent = not_applicable(run.board, entrant)
    said = claim(run.claims, entrant)
    fam = family_rows(run.families, entrant)
    per = setting_rows(run.board, entrant)
    told = (
        "yes (`horizon_tuned`): its regret at the leaderboard's earlier horizon is not that of a "
        "run of that horizon"
        if f["horizon_tuned"]
        else "no: an anytime learner, its regret at an earlier checkpoint is that of a run of "
        "that horizon"
    )
    out = [
        f"# `{entrant}` ({f['label']}) in the arena: {scale_phrase(f['scale'])}",
        "",
        f"Read from `{results(run.where).as_posix()}/`: T = {f['horizon']:,}, "
        f"{f['runs']} paired runs per setting, {f['settings']} settings. Every entrant plays "
        "the same draws; "
        f"the best of a model is its entrant with the lowest mean, whose interval is its own "
        "(the lowest of several means is biased low).",
        "",
        "## What it is",
        "",
        f"- Information model: **{f['information']}**: "
        f"{INFORMATION.get(f['information'], '(not a model of this version)')}.",
        f"- Told the horizon T: {told}.",
    ]
    if absent.empty:
        out.append(f"- It applies in every one of the {f['settings']} settings.")
    else:
        out.append(
            f"- It does not apply in {len(absent)} of the {f['settings']} settings (the "
            "leaderboard's reason):"
        )
        out.extend(f"  - `{r.setting}`: {r.reason}" for r in absent.itertuples(index=False))
    claim_id = CLAIM.format(entrant)
    if entrant == BASELINE:
        out.append(f"- Claim: none of its own; it is the baseline of the claims `{claim_id}`.")
    elif run.claims is None:
        out.append(f"- Claim `{claim_id}`: the run has no claims.json.")
    elif not said:
        out.append(f"- Claim `{claim_id}`: not among the run's claims.")
    else:
        statement = re.sub(r" \(base rate [^)]*\)$", "", str(said[0].get("statement", "")))
        per_rate = " (one per base rate)" if len(said) > 1 else ""
        out.append(f"- Its automatic claim{per_rate}: {statement}.")
        out.extend(
            f"  - `{c['id']}`: **{word(c.get('holds'))}**; measured: {c.get('measured', '')}"
            for c in said
        )
    out += [
        "",
        f"## Per regime family: ratio of regret at T to `{answer.REFERENCE}`",
        "",
        "The mean over a family's settings of the paired ratio of mean regrets at T to "
        f"`{answer.REFERENCE}` (Thompson sampling ignoring delays), with its 95 % interval "
        "(`families.csv`); a model's best among the entrants that apply in every setting of the "
        "family (`complete`). Below 1: less regret than the reference.",
        "",
    ]
    if "families" in figures:
        out += [f"![per family]({figures['families']})", ""]
    out += [families_table(fam, entrant), ""]
    out += [
        f"## Per setting at T = {f['horizon']:,}: mean regret ({f['comparison']} comparison)",
        "",
        "The entrant's mean regret with its bootstrap 95 % interval (`leaderboard.csv`), its ratio "
        "to the comparison's best, the tie rule's verdict over the comparison and within its "
        "information model, and the best of each model in the setting (lowest mean regret among "
        "those that apply).",
        "",
    ]
    if "settings" in figures:
        count = (pages or {}).get("settings", 1)
        folder = figures["settings"].rsplit(".", 1)[0]
        shown = (
            [f"{folder}/page{n}.png" for n in range(1, count + 1)]
            if count > 1
            else [figures["settings"]]
        )
        for path in shown:
            out += [f"![per setting]({path})", ""]
    out += [settings_table(per) if not per.empty else "It applies in no setting.", ""]
    return "\n".join(out)


def scale_phrase(scale: str) -> str:
    """The scale as a phrase: ``smoke`` -> ``smoke scale`` (``grid.scale``'s prose)."""
    return grid.scale(scale, prose=True)


# --- the figures --------------------------------------------------------------------------------

MODEL_MARKERS = ("o", "s", "D", "^", "v", "P")
"""A marker per information model (``INFORMATION``'s order)."""
ROW = 0.28  # inches per row of a forest plot


def _colours() -> dict[str, Any]:
    cmap = plt.get_cmap("tab10")
    return {m: cmap(i + 1) for i, m in enumerate(INFORMATION)}


def _open_handle(color: str, marker: str, size: float, label: str) -> Any:
    """A legend entry for an open (white-filled) marker, without a line."""
    return plt.Line2D(
        [],
        [],
        color=color,
        marker=marker,
        markerfacecolor="white",
        markersize=size,
        linestyle="",
        label=label,
    )


def _forest(
    ax: plt.Axes,
    rows: pd.DataFrame,
    group: str,
    value: str,
    lo: str,
    hi: str,
    entrant: str,
    ends: tuple[float, float],
) -> list[str]:
    """Points with interval bars, a row per ``group`` (top to bottom in table order), the entrant
    black and above, each model's best below it in its model's colour and marker; the groups'
    names, for the y axis."""
    colours = _colours()
    groups = list(dict.fromkeys(rows[group]))
    models = [m for m in INFORMATION if m in set(rows.information[rows.role == BEST])]
    offsets = np.linspace(0.36, -0.36, len(models) + 1) if models else np.zeros(1)
    hollow = partial = False
    for i, name in enumerate(groups):
        y = len(groups) - 1 - i
        members = rows[rows[group] == name]
        own = members[members.role == ENTRANT]
        if own.empty:
            ax.text(
                0.005,
                y + offsets[0],
                f"{entrant}: applies in none of its settings",
                transform=ax.get_yaxis_transform(),
                fontsize=6.5,
                va="center",
                color="0.3",
            )
        for r in own.itertuples(index=False):
            whole = bool(getattr(r, "complete", True))
            partial |= not whole
            _point(
                ax,
                getattr(r, value),
                getattr(r, lo),
                getattr(r, hi),
                y + offsets[0],
                "black",
                "*",
                9,
                ends,
                hollow=not whole,
            )
        for j, model in enumerate(models):
            best = members[(members.role == BEST) & (members.information == model)]
            for r in best.itertuples(index=False):
                hollow |= r.algorithm == entrant
                _point(
                    ax,
                    getattr(r, value),
                    getattr(r, lo),
                    getattr(r, hi),
                    y + offsets[j + 1],
                    colours[model],
                    MODEL_MARKERS[list(INFORMATION).index(model) % len(MODEL_MARKERS)],
                    5,
                    ends,
                    hollow=r.algorithm == entrant,
                )
    ax.set_yticks(range(len(groups)))
    ax.set_yticklabels([reader(g) for g in reversed(groups)], fontsize=7)
    ax.set_ylim(-0.5, len(groups) - 0.5)
    ax.grid(axis="x", which="both", color="0.9", linewidth=0.5)
    for y in range(len(groups)):
        ax.axhline(y - 0.5, color="0.85", linewidth=0.4)
    handles = [
        plt.Line2D([], [], color="black", marker="*", markersize=9, linestyle="-", label=entrant)
    ] + [
        plt.Line2D(
            [],
            [],
            color=colours[m],
            marker=MODEL_MARKERS[list(INFORMATION).index(m) % len(MODEL_MARKERS)],
            markersize=5,
            linestyle="-",
            label=f"best of {m}",
        )
        for m in models
    ]
    if partial:
        handles.append(
            _open_handle(
                "black", "*", 9, f"open star: {entrant} applies in part of the family only"
            )
        )
    if hollow:
        handles.append(_open_handle("0.3", "o", 5, f"open: {entrant} is its model's best"))
    return handles


def floor(values: Iterable[float]) -> float:
    """The left end of a forest plot's log axis: ``FLOOR`` times below its least positive point;
    an interval reaching further left, to 0 or below, is cut there (``_point``), so that one wide
    interval does not crush the others."""
    found = np.asarray([v for v in values if not pd.isna(v)], dtype=float)
    positive = found[found > 0]
    return float(positive.min()) / FLOOR if positive.size else 1e-3


FLOOR = 3.0
"""How far below its least point a forest plot's log axis starts (``floor``), and how far above
its greatest it ends (``ceiling``)."""


def ceiling(values: Iterable[float]) -> float:
    """The right end of a forest plot's log axis: ``FLOOR`` times above its greatest point; an
    interval reaching further is cut there (``_point``)."""
    found = np.asarray([v for v in values if not pd.isna(v)], dtype=float)
    return float(found.max()) * FLOOR if found.size and found.max() > 0 else 10.0


def _point(
    ax: plt.Axes,
    x: float,
    lo: float,
    hi: float,
    y: float,
    colour: Any,
    marker: str,
    size: float,
    ends: tuple[float, float],
    hollow: bool = False,
) -> None:
    """A point at ``x`` with its interval [lo, hi]; an interval beyond ``ends``, the axis's, is
    cut there and ends in an arrowhead ("<", ">")."""
    if pd.isna(x) or x <= 0:
        return
    left, right = ends
    low = x - max(lo, left) if not pd.isna(lo) else 0.0
    high = min(hi, right) - x if not pd.isna(hi) else 0.0
    ax.errorbar(
        [x],
        [y],
        xerr=[[max(low, 0.0)], [max(high, 0.0)]],
        color=colour,
        marker=marker,
        markersize=size,
        markerfacecolor="white" if hollow else colour,
        linewidth=1,
        capsize=1.5,
    )
    if not pd.isna(lo) and lo < left:
        ax.plot([left], [y], marker="<", color=colour, markersize=4, clip_on=False)
    if not pd.isna(hi) and hi > right:
        ax.plot([right], [y], marker=">", color=colour, markersize=4, clip_on=False)


def axis_ends(values: Iterable[float]) -> tuple[float, float]:
    """The ends of a forest plot's log axis over its points ``values`` (``floor``,
    ``ceiling``)."""
    values = list(values)
    return floor(values), ceiling(values)


def _log_axis(ax: plt.Axes, ends: tuple[float, float]) -> None:
    """A log x axis between ``ends``, its ticks at 1, 2 and 5 times the powers of 10, written
    as plain numbers."""
    ax.set_xscale("log")
    ax.set_xlim(*ends)
    ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def _legend(fig: plt.Figure, handles: list[Any]) -> None:
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncol=min(len(handles), 3),
        fontsize=7,
        frameon=False,
    )


def families_figure(run: Run, entrant: str) -> plt.Figure:
    """The forest plot of ``family_rows``: a row per regime family, the entrant's ratio to the
    reference and each model's best with their 95 % intervals, a vertical line at 1, on a log
    axis; titled with the run's scale, T and its runs."""
    f = facts(run, entrant)
    rows = family_rows(run.families, entrant)
    groups = rows.family.nunique()
    fig, ax = plt.subplots(
        figsize=(8.27, 1.9 + ROW * groups * max(1, rows.information.nunique() / 2.5)),
        layout="constrained",
    )
    ends = axis_ends(rows.ratio)
    handles = _forest(ax, rows, "family", "ratio", "lo", "hi", entrant, ends)
    ax.axvline(1.0, color="0.3", linewidth=0.8, linestyle="--")
    _log_axis(ax, ends)
    ax.set_xlabel(
        reader(
            f"mean paired ratio of regret at T to {answer.REFERENCE} (log scale; 1 = as {answer.REFERENCE})"
        ),
        fontsize=8,
    )
    ax.tick_params(axis="x", labelsize=7)
    fig.suptitle(
        textwrap.fill(
            reader(
                f"{entrant} ({f['label']}) against the best of each information model, per "
                f"regime family: {scale_phrase(f['scale'])}, T = {f['horizon']:,}, {f['family_runs']} paired "
                "runs per setting; 95 % intervals; a model's best among the entrants that apply "
                "in every setting of the family (its interval its own: the lowest of several "
                "means is biased low)"
            ),
            120,
        ),
        fontsize=8,
    )
    _legend(fig, handles)
    return fig


SETTINGS_PER_PAGE = 24
"""Settings per page of the per-setting figure: a run of more is a document of pages (the PDF
holds them all, the PNG the first, ``<out>/settings/page<n>.png`` each)."""


def settings_figure(run: Run, entrant: str) -> list[plt.Figure]:
    """Per setting where the entrant applies (``setting_rows``), its mean regret at T and each
    model's best with their bootstrap 95 % intervals, on a log axis, ``SETTINGS_PER_PAGE``
    settings a page (one axis range for all); titled as ``families_figure``. A page with a note
    where the entrant applies nowhere."""
    f = facts(run, entrant)
    rows = setting_rows(run.board, entrant)
    if rows.empty:
        fig, ax = plt.subplots(figsize=(8.27, 2.0), layout="constrained")
        ax.set_axis_off()
        ax.text(0.5, 0.5, f"{entrant} applies in no setting of this run", ha="center")
        return [fig]
    settings = list(dict.fromkeys(rows.setting))
    chunks = [
        settings[i : i + SETTINGS_PER_PAGE] for i in range(0, len(settings), SETTINGS_PER_PAGE)
    ]
    ends = axis_ends(rows.regret)  # every page on one axis
    pages = []
    for n, chunk in enumerate(chunks, 1):
        part = rows[rows.setting.isin(chunk)]
        fig, ax = plt.subplots(
            figsize=(8.27, 2.0 + ROW * len(chunk) * max(1, rows.information.nunique() / 2.5)),
            layout="constrained",
        )
        handles = _forest(ax, part, "setting", "regret", "regret_lo", "regret_hi", entrant, ends)
        _log_axis(ax, ends)
        ax.set_xlabel(f"mean pseudo-regret at T = {f['horizon']:,} (log scale)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        page_note = f", page {n} of {len(chunks)}" if len(chunks) > 1 else ""
        fig.suptitle(
            textwrap.fill(
                reader(
                    f"{entrant} ({f['label']}) against the best of each information model, per "
                    f"setting ({f['comparison']} comparison{page_note}): {scale_phrase(f['scale'])}, "
                    f"T = {f['horizon']:,}, {f['runs']} paired runs per setting; bootstrap 95 % "
                    "intervals of the mean"
                ),
                120,
            ),
            fontsize=8,
        )
        _legend(fig, handles)
        pages.append(fig)
    return pages


def figures(run: Run, entrant: str) -> dict[str, plt.Figure | list[plt.Figure]]:
    """The page's figures by name: ``families`` and ``settings`` (its pages, ``settings_figure``)."""
    check_entrant(run.board, entrant)
    return {"families": families_figure(run, entrant), "settings": settings_figure(run, entrant)}
