"""What the docs quote of the papers' verdicts, computed from a run (``quoted``): ``digest`` reads
every figure's claims.json under a run directory (the arena's aside: its own digest,
``arena.digest``, quotes them) into counts per figure, per paper and in all, reproductions
and checks apart (``claims.tally``), with each claim's id, kind, verdict, statement and reference;
``blocks`` renders the counts of each figure (a cell of the verdict tables of README.md and
docs/reproduction.md), the headline, and the claim ids of docs/artifact-evaluation.md. The
paper-scale run's digest is committed as docs/data/papers.json (``delayed-bandits quote papers
--run . --write`` after ``make figures``).

Everything in the digest but its ``provenance`` is a function of the claims files, so a rerun of
the same config and simulation code gives the same digest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Mapping

from delayed_bandits import claims, config, grid, provenance
from delayed_bandits.errors import ConfigError


def _figure(path: Path, run_config: Mapping[str, Any]) -> dict[str, Any]:
    """One figure's claims, read as every reader of a run's outputs reads them: checked against
    their record (its sha256 and their binding to the run's config), so that a verdict edited by
    hand, or a claims file of another config, is refused before it is quoted."""
    paper, figure = path.parent.parent.name, path.parent.name
    rows = claims.read(path, provenance.claims_binding(run_config, paper, figure), recorded=True)
    found = [
        {
            "id": c["id"],
            "kind": c.get("kind", claims.REPRODUCTION),  # claims files from before kinds
            "verdict": claims.word(c["holds"]),
            "statement": c["statement"],
            "paper_ref": c["paper_ref"],
        }
        for c in rows
    ]
    return {
        "paper": paper,
        "figure": figure,
        "verdicts": _tally(found),
        "claims": found,
    }


def _tally(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    return claims.tally((c["kind"], c["verdict"]) for c in rows)


def _made(sidecars: list[Path]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run's config (as its summaries recorded it: its files, read from here, and its
    overrides) and its provenance over every simulated figure (``provenance.digested``); figures
    made with different configs are an error."""
    records = [json.loads(p.read_text()) for p in sidecars]
    # the config as a whole (each figure's record also hashes its own section)
    made = {(tuple(r["config"]["paths"]), r["config"]["sha256"]) for r in records}
    if len(made) != 1:
        raise ConfigError(
            f"the run's figures were made with {len(made)} different configs "
            f"({sorted(made)}): one digest quotes one run"
        )
    r = records[0]
    run_config = config.load(
        r["config"]["paths"], r["paper"], r["config"]["overrides"], r["figure"]
    )
    digested = [provenance.digested(r) for r in records]
    return run_config, {key: sorted({v for d in digested for v in d[key]}) for key in digested[0]}


def digest(run: Path, leave_out: Iterable[str] = ()) -> dict[str, Any]:
    """The digest of the papers' claims under ``run`` (``.`` after `make figures`, ``smoke``
    after the quick check), without the papers ``leave_out`` (those another digest quotes), in
    the config's order of papers and figures. A run with no claims files, or no simulated figure
    to give its config, is an error naming it."""
    results = run / "results"
    files = [
        p for p in results.glob("*/*/claims.json") if p.parent.parent.name not in set(leave_out)
    ]
    sidecars = sorted(p.with_name("summary.provenance.json") for p in files)
    sidecars = [p for p in sidecars if p.is_file()]
    if not files or not sidecars:
        raise ConfigError(
            f"--run: {run} holds no papers' claims with their runs' provenance "
            f"({results}/<paper>/<figure>/claims.json and summary.provenance.json); run "
            "`make figures` (then --run .) or the smoke scale (then --run smoke) first"
        )
    run_config, made = _made(sidecars)
    order = [
        (paper, figure) for paper in run_config["papers"] for figure in run_config["papers"][paper]
    ]
    figures = sorted(
        (_figure(p, run_config) for p in files),
        key=lambda f: order.index((f["paper"], f["figure"])),
    )
    papers = list(dict.fromkeys(f["paper"] for f in figures))
    return {
        "scale": grid.scale(
            run_config["scale"],
            {
                f"{f['paper']} {f['figure']}": run_config["papers"][f["paper"]][f["figure"]]
                for f in figures
            },
        ),
        "figures": figures,
        "papers": [
            {
                "paper": paper,
                "verdicts": _tally(c for f in figures if f["paper"] == paper for c in f["claims"]),
            }
            for paper in papers
        ],
        "totals": _tally(c for f in figures for c in f["claims"]),
        "provenance": made,
    }


# --- rendering ---------------------------------------------------------------------------------


def _scale_note(d: Mapping[str, Any]) -> str:
    if d["scale"] == "paper":
        return "At paper scale"
    if " " in d["scale"]:  # worded by grid.scale: a figure's only kept a subset of its settings
        return (
            f"At **{d['scale']}** (these counts are the subset's; `delayed-bandits quote papers "
            "--run . --write` after `make figures` replaces them)"
        )
    return (
        f"At **{d['scale']}** scale (not the paper scale: these counts test nothing; "
        "`delayed-bandits quote papers --run . --write` after `make figures` replaces them)"
    )


def _headline(d: Mapping[str, Any]) -> str:
    papers = len(d["papers"])
    return (
        f"{_scale_note(d)}, over the {papers} papers' {len(d['figures'])} figures: "
        f"{claims.phrase(d['totals'])}"
    )


def _cell(d: Mapping[str, Any], tallied: Mapping[str, Mapping[str, int]]) -> str:
    """A figure's counts for a table's cell: reproductions, and checks where it has some; the
    scale where it is not the paper's."""
    r, c = tallied[claims.REPRODUCTION], tallied[claims.CHECK]
    cell = f"{r['holds']} / {r['fails']} / {r['inconclusive']}"
    if sum(c.values()):
        cell += f" (checks {c['holds']} / {c['fails']} / {c['inconclusive']})"
    return cell if d["scale"] == "paper" else f"{cell} at {grid.scale(d['scale'], prose=True)}"


def blocks(d: Mapping[str, Any]) -> dict[str, str]:
    """The Markdown of every block the docs quote of the papers' verdicts, by block name."""
    return {
        "papers-headline": _headline(d),
        **{f"{f['paper']}-{f['figure']}-verdicts": _cell(d, f["verdicts"]) for f in d["figures"]},
        **{
            f"{f['paper']}-{f['figure']}-claim-ids": claims.id_table(f["claims"])
            for f in d["figures"]
        },
    }
