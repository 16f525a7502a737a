"""What the docs quote of the papers' verdicts, computed from a run (``quoted``): ``digest`` reads
every figure's claims.json under a run directory (the arena's aside: its own digest,
``arena.digest``, quotes them) into counts per figure, per paper and in all, reproductions
and checks apart (``claims.tally``), with each claim's id, kind, verdict, statement, reference and
role (``findings``: ``findings.ESTABLISHING`` a finding under the faithful reading, or a reading, extension or
twin that only qualifies one); and into the papers' findings (``findings``), each with its
verdict by ``findings.verdict`` and a sentence of its decisive numbers from its claims'
``measured``. ``blocks`` renders the counts of each figure under the faithful reading, the
qualifying claims apart (a cell of the verdict tables of README.md and docs/reproduction.md), the
headline (findings counted once each), the verdict per paper, the findings that do not
reproduce, and the claim ids of docs/artifact-evaluation.md. The paper-scale run's digest is
committed as docs/data/papers.json (``delayed-bandits quote papers --run . --write`` after
``make figures``).

Everything in the digest but its ``provenance`` is a function of the claims files, so a rerun of
the same config and simulation code gives the same digest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from delayed_bandits import claims, config, findings, grid, papers, provenance, quoted
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
            "measured": c["measured"],
        }
        for c in rows
    ]
    return {"paper": paper, "figure": figure, "claims": found}


def _ids(paper: str, figures: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The claim ids of each figure of ``paper`` the run holds."""
    return {f["figure"]: [c["id"] for c in f["claims"]] for f in figures if f["paper"] == paper}


def _roles(figures: list[dict[str, Any]]) -> None:
    """Each claim's role (``findings.ESTABLISHING``, a qualifier's role, or ``""`` for a check no finding
    names), set in place, with each figure's counts: every claim (``verdicts``), those under the
    faithful reading (``faithful``) and the qualifying ones by role (``apart``). A reproduction no
    finding names, or a claim several findings name, is an error naming the findings module:
    every statement the runs test is counted once. (A pattern may name no claim of a run that
    keeps a subset; tests/test_findings.py holds every pattern to the paper-scale run.)"""
    for paper in dict.fromkeys(f["paper"] for f in figures):
        ids = _ids(paper, figures)
        owners: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for finding in papers.get(paper).findings():
            for pattern, role in finding.patterns():
                chosen = findings.select(pattern, ids)
                for key in chosen:
                    owners.setdefault(key, []).append((finding.id, role))
        for f in (f for f in figures if f["paper"] == paper):
            for c in f["claims"]:
                named = owners.get((f["figure"], c["id"]), [])
                if len(named) > 1 or (not named and c["kind"] == claims.REPRODUCTION):
                    raise ConfigError(
                        f"{paper} {f['figure']}: the claim {c['id']} is named by {len(named)} "
                        f"findings ({', '.join(n for n, _ in named) or 'none'}); each "
                        "reproduction belongs to exactly one finding, as establishing or "
                        f"qualifying it (papers/{paper}/findings.py)"
                    )
                c["role"] = named[0][1] if named else ""
            f["verdicts"] = _tally(f["claims"])
            f["faithful"] = _tally(c for c in f["claims"] if c["role"] not in findings.ROLES)
            f["apart"] = {
                role: _tally(c for c in f["claims"] if c["role"] == role)[claims.REPRODUCTION]
                for role in findings.ROLES
                if any(c["role"] == role for c in f["claims"])
            }


MEASURED = 240
"""The longest measured text a finding's sentence quotes of one claim (cut at a '; ')."""


def _measured(text: str) -> str:
    if len(text) <= MEASURED:
        return text
    cut = text[:MEASURED].rfind("; ")
    return (text[:cut] if cut > 0 else text[: MEASURED - 1]) + " …"


def _said(c: Mapping[str, Any]) -> str:
    """A claim, its verdict and what it measured (where the digest has it: one restructured from
    a digest that predates ``measured`` has none)."""
    measured = c.get("measured")
    return f"`{c['id']}` {c['verdict']}" + (f" ({_measured(measured)})" if measured else "")


def _sentence(
    verdict: str, faithful: str, shown: list[dict[str, Any]], qualifying: list[dict[str, Any]]
) -> str:
    """The finding's verdict in one sentence with its decisive numbers, every one from a claim's
    ``measured``: the claims that do not hold (all of them where all hold, up to two), and each
    qualifier whose claims the rule judges otherwise."""
    tested = [c for c in shown if c["kind"] == claims.REPRODUCTION]
    under = f" under the faithful reading ({faithful})" if faithful else ""
    if not tested:
        head = (
            f"{verdict.capitalize()}: its {len(shown)} claim(s) are checks, which the runs could "
            "not refute (" + ", ".join(f"`{c['id']}` {c['verdict']}" for c in shown) + ")"
        )
    else:
        n = claims.tally((c["kind"], c["verdict"]) for c in tested)[claims.REPRODUCTION]
        decisive = [c for c in tested if c["verdict"] != "holds"] or tested[:2]
        more = len(tested) - len(decisive) if all(c["verdict"] == "holds" for c in tested) else 0
        head = (
            f"{verdict.capitalize()}{under}: {n['holds']} of {len(tested)} claim(s) hold, "
            f"{n['fails']} fail, {n['inconclusive']} inconclusive; "
            + "; ".join(_said(c) for c in decisive)
            + (f"; and {more} more hold" if more > 0 else "")
        )
    tails = []
    for q in qualifying:
        own = findings.verdict(
            c["verdict"] for c in q["claims"] if c["kind"] == claims.REPRODUCTION
        )
        if own == verdict:
            continue
        # the claims that make the qualifier's verdict differ: those that hold where the finding
        # does not reproduce, those that do not hold where it does
        differ = [
            c for c in q["claims"] if (c["verdict"] == "holds") != (verdict == findings.REPRODUCES)
        ]
        tails.append(
            f"{q['role'].capitalize()} ({q['what']}): {own}; "
            + "; ".join(_said(c) for c in (differ or q["claims"])[:2])
        )
    return head + "".join(f". {t}" for t in tails) + "."


def _findings(figures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every finding of the papers the run holds, in their declared order: its statement, where
    the paper makes it, its verdict (``findings.verdict`` over its establishing reproductions),
    its claims with their verdicts and roles, and its sentence (``_sentence``)."""
    out = []
    for paper in dict.fromkeys(f["paper"] for f in figures):
        ids = _ids(paper, figures)
        rows = {
            (f["figure"], c["id"]): c for f in figures if f["paper"] == paper for c in f["claims"]
        }

        def entries(patterns: Iterable[str]) -> list[dict[str, Any]]:
            return [
                {
                    "figure": fig,
                    **{k: rows[fig, cid].get(k) for k in ("id", "kind", "verdict", "measured")},
                }
                for p in patterns
                for fig, cid in findings.select(p, ids)
            ]

        for finding in papers.get(paper).findings():
            establishing = entries(finding.establishing)
            qualifying = [
                {"role": q.role, "what": q.what, "claims": entries(q.claims)}
                for q in finding.qualifying
            ]
            qualifying = [q for q in qualifying if q["claims"]]
            if not establishing and not qualifying:
                continue  # its figures, or their settings, the run left out
            verdict = findings.verdict(
                c["verdict"] for c in establishing if c["kind"] == claims.REPRODUCTION
            )
            out.append(
                {
                    "paper": paper,
                    "id": finding.id,
                    "figures": [f for f in finding.figures if f in ids],
                    "statement": finding.statement,
                    "location": finding.location,
                    "verdict": verdict,
                    "establishing": establishing,
                    "qualifying": qualifying,
                    "sentence": _sentence(
                        verdict, finding.faithful if qualifying else "", establishing, qualifying
                    ),
                }
            )
    return out


def _tally(rows: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    return claims.tally((c["kind"], c["verdict"]) for c in rows)


def _count(verdicts: Iterable[str]) -> dict[str, int]:
    """Findings' verdicts counted, every verdict of ``findings.VERDICTS`` present."""
    found = list(verdicts)
    return {v: found.count(v) for v in findings.VERDICTS}


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
    return run_config, quoted.pooled(provenance.digested(r) for r in records)


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
    scale = grid.scale(
        run_config["scale"],
        {
            f"{f['paper']} {f['figure']}": run_config["papers"][f["paper"]][f["figure"]]
            for f in figures
        },
    )
    return assemble(scale, figures, made)


def assemble(scale: str, figures: list[dict[str, Any]], made: dict[str, Any]) -> dict[str, Any]:
    """The digest of ``figures`` (each its paper, figure id and claims, in the config's order) at
    ``scale``, made as ``made`` records (its provenance): their claims' roles, the findings and
    every count (``digest``; also a digest restructured from an earlier one's figures)."""
    _roles(figures)
    found = _findings(figures)
    listed = list(dict.fromkeys(f["paper"] for f in figures))
    return {
        "scale": scale,
        "figures": figures,
        "findings": found,
        "papers": [
            {
                "paper": paper,
                "title": papers.get(paper).title,
                "verdicts": _tally(c for f in figures if f["paper"] == paper for c in f["claims"]),
                "findings": _count(f["verdict"] for f in found if f["paper"] == paper),
            }
            for paper in listed
        ],
        "totals": _tally(c for f in figures for c in f["claims"]),
        "faithful": _tally(
            c for f in figures for c in f["claims"] if c["role"] not in findings.ROLES
        ),
        "findings_total": _count(f["verdict"] for f in found),
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


def _findings_phrase(n: Mapping[str, int]) -> str:
    """Findings' verdicts counted (``_count``), in words."""
    return " · ".join(f"{v}: {n[v]}" for v in findings.VERDICTS)


def _apart(apart: Mapping[str, Mapping[str, int]]) -> str:
    """Qualifying reproductions by role, 'readings 6 / 5 / 3, twins 0 / 4 / 0' (holds / fails /
    inconclusive); empty without any."""
    return ", ".join(
        f"{role}s {n['holds']} / {n['fails']} / {n['inconclusive']}" for role, n in apart.items()
    )


def _headline(d: Mapping[str, Any]) -> str:
    """The papers' statements counted once each (findings), then their claims under the faithful
    reading, with the readings, extensions and twins apart."""
    apart = {
        role: {
            w: sum(f["apart"].get(role, {}).get(w, 0) for f in d["figures"])
            for w in ("holds", "fails", "inconclusive")
        }
        for role in findings.ROLES
        if any(role in f["apart"] for f in d["figures"])
    }
    return (
        f"{_scale_note(d)}, the {len(d['papers'])} papers make {len(d['findings'])} findings "
        f"(statements of a paper, each counted once) over their {len(d['figures'])} figures; "
        f"{_findings_phrase(d['findings_total'])}. Their claims under the faithful reading: "
        f"{claims.phrase(d['faithful'])[:-1]}"
        + (
            f"; apart (holds / fails / inconclusive), not counted as paper statements: "
            f"{_apart(apart)}"
            if apart
            else ""
        )
        + "."
    )


def _cell(d: Mapping[str, Any], figure: Mapping[str, Any]) -> str:
    """A figure's counts for a table's cell: its reproductions under the faithful reading, its
    checks where it has some, its readings, extensions and twins apart; the scale where it is not
    the paper's."""
    r, c = figure["faithful"][claims.REPRODUCTION], figure["faithful"][claims.CHECK]
    cell = f"{r['holds']} / {r['fails']} / {r['inconclusive']}"
    if sum(c.values()):
        cell += f" (checks {c['holds']} / {c['fails']} / {c['inconclusive']})"
    if figure["apart"]:
        cell += f"; apart: {_apart(figure['apart'])}"
    return cell if d["scale"] == "paper" else f"{cell} at {grid.scale(d['scale'], prose=True)}"


def _figure_findings(d: Mapping[str, Any], figure: Mapping[str, Any]) -> str:
    """The verdict of each finding a figure tests, for the README's verdict column (the
    findings' sentences, with their numbers, are in docs/reproduction.md and the figure's page)."""
    own = [
        f
        for f in d["findings"]
        if f["paper"] == figure["paper"] and figure["figure"] in f["figures"]
    ]
    return "; ".join(f"`{f['id']}` {f['verdict']}" for f in own) or "no finding of the paper"


def short_name(paper: str, title: str) -> str:
    """A paper as the docs name it: its first author, et al., its year (from the registry's
    title and the id's year)."""
    year = re.search(r"(19|20)\d\d", paper)
    return f"{title.split(',')[0]} et al.{f' {year.group()}' if year else ''}"


def _per_paper(d: Mapping[str, Any]) -> str:
    """Per paper, how many of its findings reproduce, in part, or not, and one line for each
    that does not reproduce wholly: its figures, its id, its verdict and its sentence."""
    lines = []
    for p in d["papers"]:
        own = [f for f in d["findings"] if f["paper"] == p["paper"]]
        lines.append(
            f"- **{short_name(p['paper'], p['title'])}** (`{p['paper']}`), {len(own)} findings: "
            f"{_findings_phrase(p['findings'])}."
        )
        lines += [
            f"  - `{f['id']}` ({f['location']}): {f['sentence']}"
            for f in own
            if f["verdict"] in (findings.NOT, findings.IN_PART)
        ]
    return "\n".join(lines)


def _per_paper_short(d: Mapping[str, Any]) -> str:
    """Per paper, one line: how many of its findings reproduce, in part, or not, and the id and
    verdict of each that does not reproduce wholly (the front page's; ``_per_paper`` gives them
    with their sentences)."""
    lines = []
    for p in d["papers"]:
        own = [f for f in d["findings"] if f["paper"] == p["paper"]]
        short = [f for f in own if f["verdict"] in (findings.NOT, findings.IN_PART)]
        lines.append(
            f"- **{short_name(p['paper'], p['title'])}**, {len(own)} findings: "
            f"{_findings_phrase(p['findings'])}"
            + (
                ". Not wholly: " + ", ".join(f"`{f['id']}` ({f['verdict']})" for f in short)
                if short
                else ""
            )
            + "."
        )
    return "\n".join(lines)


def blocks(d: Mapping[str, Any]) -> dict[str, str]:
    """The Markdown of every block the docs quote of the papers' verdicts, by block name."""
    return {
        "papers-headline": _headline(d),
        "papers-verdicts": _per_paper(d),
        "papers-verdicts-short": _per_paper_short(d),
        **{f"{f['paper']}-{f['figure']}-verdicts": _cell(d, f) for f in d["figures"]},
        **{f"{f['paper']}-{f['figure']}-findings": _figure_findings(d, f) for f in d["figures"]},
        **{
            f"{f['paper']}-{f['figure']}-claim-ids": claims.id_table(f["claims"])
            for f in d["figures"]
        },
    }
