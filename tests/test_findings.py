"""The papers' findings (``findings``; ``papers/<paper>/findings.py``): every claim a finding names
exists, every reproduction of a paper figure belongs to exactly one finding, a finding's verdict
follows from its establishing claims by the one rule, and its sentence's numbers are its claims'
measurements (``verdicts``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from delayed_bandits import findings, papers, verdicts
from delayed_bandits.errors import ConfigError
from delayed_bandits.findings import EXTENSION, READING, TWIN, Finding, Qualifier

ROOT = Path(__file__).resolve().parent.parent
DIGEST = ROOT / "docs/data/papers.json"


def _claims() -> dict[str, dict[str, dict[str, str]]]:
    """The paper-scale run's claims (the committed digest): {paper: {figure: {id: kind}}}."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for f in json.loads(DIGEST.read_text())["figures"]:
        out.setdefault(f["paper"], {})[f["figure"]] = {c["id"]: c["kind"] for c in f["claims"]}
    return out


RUN = _claims()
PAPERS = [p for p in papers.ids() if papers.get(p).reproduces]


def test_every_paper_declares_findings_and_the_arena_none() -> None:
    assert set(RUN) == set(PAPERS)
    for paper in PAPERS:
        ids = [f.id for f in papers.get(paper).findings()]
        assert ids and len(ids) == len(set(ids)), paper
    assert not papers.get("arena").findings()


@pytest.mark.parametrize("paper", PAPERS)
def test_every_claim_a_finding_names_exists(paper: str) -> None:
    ids = {figure: list(claims) for figure, claims in RUN[paper].items()}
    for finding in papers.get(paper).findings():
        assert set(finding.figures) <= set(ids), finding.id
        for pattern, _ in finding.patterns():
            assert pattern.partition("/")[0] in finding.figures, (finding.id, pattern)
            assert findings.select(pattern, ids), (finding.id, pattern)


@pytest.mark.parametrize("paper", PAPERS)
def test_every_reproduction_belongs_to_exactly_one_finding(paper: str) -> None:
    ids = {figure: list(claims) for figure, claims in RUN[paper].items()}
    named: dict[tuple[str, str], list[str]] = {}
    for finding in papers.get(paper).findings():
        for pattern, _ in finding.patterns():
            for key in findings.select(pattern, ids):
                named.setdefault(key, []).append(finding.id)
    for figure, claims in RUN[paper].items():
        for cid, kind in claims.items():
            owners = named.get((figure, cid), [])
            assert len(owners) <= 1, (figure, cid, owners)
            if kind == "reproduction":
                assert len(owners) == 1, (figure, cid)


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["holds", "holds"], findings.REPRODUCES),
        (["holds", "fails"], findings.IN_PART),
        (["holds", "inconclusive"], findings.IN_PART),
        (["fails", "inconclusive"], findings.NOT),
        (["fails"], findings.NOT),
        (["inconclusive", "inconclusive"], findings.UNTESTABLE),
        ([], findings.UNTESTABLE),
    ],
)
def test_the_rule_from_the_claims_verdicts(words: list[str], expected: str) -> None:
    assert findings.verdict(words) == expected


def test_a_qualifier_of_no_known_role_is_refused() -> None:
    assert findings.ROLES == (READING, EXTENSION, TWIN)
    with pytest.raises(ValueError, match="role 'variant' is not one of"):
        Qualifier("variant", ("fig1/x",), "another")


def _figure(paper: str, figure: str, rows: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A digest's figure of claims (id, kind, verdict), each measured as 'M(<id>)'."""
    return {
        "paper": paper,
        "figure": figure,
        "claims": [
            {
                "id": i,
                "kind": k,
                "verdict": v,
                "statement": "",
                "paper_ref": "",
                "measured": f"M({i})",
            }
            for i, k, v in rows
        ],
    }


TOY = (
    Finding(
        "a-beats-b",
        "A beats B.",
        "Sec. 1, Fig. 1",
        ("fig1",),
        ("fig1/a-*",),
        (Qualifier(READING, ("fig1/other-a-*",), "the other widths"),),
        faithful="the code's widths",
    ),
    Finding("bound", "The bound holds.", "Thm 1", ("fig1",), ("fig1/bound",)),
)


@pytest.fixture
def toy(monkeypatch) -> list[Finding]:
    """vernade2017's findings replaced by ``TOY`` (a list: a test may add to it)."""
    declared = list(TOY)
    monkeypatch.setattr(papers.Paper, "findings", lambda self: declared)
    return declared


def test_a_findings_verdict_sentence_and_numbers_come_from_its_claims(toy) -> None:
    figures = [
        _figure(
            "vernade2017",
            "fig1",
            [
                ("a-1", "reproduction", "holds"),
                ("a-2", "reproduction", "fails"),
                ("other-a-1", "reproduction", "holds"),
                ("other-a-2", "reproduction", "holds"),
                ("bound", "check", "holds"),
            ],
        )
    ]
    verdicts._roles(figures)
    roles = {c["id"]: c["role"] for c in figures[0]["claims"]}
    assert roles == {
        "a-1": "establishing",
        "a-2": "establishing",
        "other-a-1": READING,
        "other-a-2": READING,
        "bound": "establishing",
    }
    # the reading is counted apart, not under the faithful reading
    assert figures[0]["faithful"]["reproduction"] == {"holds": 1, "fails": 1, "inconclusive": 0}
    assert figures[0]["apart"] == {READING: {"holds": 2, "fails": 0, "inconclusive": 0}}
    a, bound = verdicts._findings(figures)
    assert a["verdict"] == findings.IN_PART  # the reading's holds decide nothing
    assert a["sentence"] == (
        "Reproduces in part under the faithful reading (the code's widths): 1 of 2 claim(s) "
        "hold, 1 fail, 0 inconclusive; `a-2` fails (M(a-2)). Reading (the other widths): "
        "reproduces; `other-a-1` holds (M(other-a-1)); `other-a-2` holds (M(other-a-2))."
    )
    assert [c["id"] for c in a["establishing"]] == ["a-1", "a-2"]
    assert a["qualifying"][0]["claims"][0] == {
        "figure": "fig1",
        "id": "other-a-1",
        "kind": "reproduction",
        "verdict": "holds",
        "measured": "M(other-a-1)",
    }
    assert bound["verdict"] == findings.UNTESTABLE  # checks only: nothing the runs could refute
    assert bound["sentence"].startswith("Not testable here: its 1 claim(s) are checks")


def test_a_reproduction_no_finding_names_or_two_name_is_an_error(toy) -> None:
    rows = [("a-1", "reproduction", "holds"), ("other-a-1", "reproduction", "holds")]
    figures = [_figure("vernade2017", "fig1", [*rows, ("bound", "check", "holds")])]
    verdicts._roles(figures)  # every reproduction named once
    figures[0]["claims"].append({**figures[0]["claims"][0], "id": "new"})
    with pytest.raises(ConfigError, match=r"fig1: the claim new is named by 0 findings \(none\)"):
        verdicts._roles(figures)
    figures[0]["claims"].pop()
    toy.append(Finding("again", "A again.", "Sec. 1", ("fig1",), ("fig1/a-1",)))
    with pytest.raises(ConfigError, match=r"a-1 is named by 2 findings \(a-beats-b, again\)"):
        verdicts._roles(figures)


def test_a_finding_whose_claims_a_run_left_out_is_left_out(toy) -> None:
    # a run that keeps a subset of the settings: the reading's claims and the check are absent
    figures = [_figure("vernade2017", "fig1", [("a-1", "reproduction", "holds")])]
    verdicts._roles(figures)
    (only,) = verdicts._findings(figures)
    assert only["id"] == "a-beats-b" and only["qualifying"] == []
    assert only["verdict"] == findings.REPRODUCES


def test_the_committed_digest_lists_the_findings_in_the_shape_the_pages_read() -> None:
    d = json.loads(DIGEST.read_text())
    keys = {
        "paper",
        "id",
        "figures",
        "statement",
        "location",
        "verdict",
        "establishing",
        "qualifying",
        "sentence",
    }
    assert d["findings"] and all(set(f) == keys for f in d["findings"])
    declared = [(p, f.id) for p in PAPERS for f in papers.get(p).findings()]
    assert sorted((f["paper"], f["id"]) for f in d["findings"]) == sorted(declared)
    for f in d["findings"]:
        # the verdict follows from the establishing reproductions, by the rule
        words = [c["verdict"] for c in f["establishing"] if c["kind"] == "reproduction"]
        assert f["verdict"] == findings.verdict(words), f["id"]
        for c in f["establishing"]:  # what decides it, with its measurement where it has one
            said = f"`{c['id']}` {c['verdict']}"
            if c["measured"]:
                said += f" ({verdicts._measured(c['measured'])})"
            assert said in f["sentence"] or c["verdict"] == "holds", f["id"]
