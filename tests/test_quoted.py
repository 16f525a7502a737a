"""The numbers the docs quote are written by code from a run (``quoted``; the arena's
``arena.digest``, the papers' verdicts ``verdicts``; ``delayed-bandits quote``): the docs
hold the committed digests' blocks, no verdict count is typed outside them, and a rerun is held to
a digest number by number, its provenance and cost reported apart."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from delayed_bandits import claims, cli, quoted, quoting, speed, verdicts
from delayed_bandits.arena import digest as dg
from delayed_bandits.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
DOC = "intro\n<!-- quoted: a -->\nold a\n<!-- /quoted: a -->\nmiddle\n<!-- quoted: b -->\n<!-- /quoted: b -->\n"


def test_fill_rewrites_every_marked_block_and_nothing_else() -> None:
    filled = quoted.fill(DOC, {"a": "new a", "b": "| x |\n| 1 |\n"})
    assert filled == (
        "intro\n<!-- quoted: a -->\nnew a\n<!-- /quoted: a -->\nmiddle\n"
        "<!-- quoted: b -->\n| x |\n| 1 |\n<!-- /quoted: b -->\n"
    )
    assert quoted.stale(filled, {"a": "new a", "b": "| x |\n| 1 |"}) == []
    assert quoted.stale(filled, {"a": "newer a", "b": "| x |\n| 1 |"}) == ["a"]


def test_a_block_within_a_line_is_a_table_cell() -> None:
    row = "| fig | <!-- quoted: c -->1 / 2 / 3<!-- /quoted: c --> | words |\n"
    assert quoted.names(row) == ["c"]
    assert quoted.fill(row, {"c": "4 / 5 / 6\n"}) == row.replace("1 / 2 / 3", "4 / 5 / 6")
    assert quoted.outside(row) == "| fig | <!-- quoted: c --><!-- /quoted: c --> | words |\n"
    with pytest.raises(ConfigError, match=r"x.md: the block\(s\) c stand within a line"):
        quoted.fill(row, {"c": "4\n5"}, "x.md")


def test_a_block_without_generated_text_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"docs/x.md: no generated text for the block\(s\) b"):
        quoted.fill(DOC, {"a": ""}, "docs/x.md")


def test_the_docs_quote_the_committed_digests(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    arena = json.loads((ROOT / "docs/data/arena-full.json").read_text())
    papers = json.loads((ROOT / "docs/data/papers.json").read_text())
    timed = json.loads((ROOT / "docs/data/speed.json").read_text())
    given = (
        set(dg.blocks(arena))
        | set(verdicts.blocks(papers))
        | set(speed.blocks(timed))
        | set(dg.declared())
        | set(quoting.rule_blocks())
    )
    for doc in quoting.QUOTING:
        assert set(quoted.names((ROOT / doc).read_text())) <= given, doc
    figures = [f"{f['paper']}-{f['figure']}" for f in papers["figures"]]
    for doc in ("README.md", "docs/reproduction.md"):  # every figure's counts, the headline,
        names = set(quoted.names((ROOT / doc).read_text()))  # the verdict per paper, its rule
        assert {
            "papers-headline",
            "findings-verdict-rule",
            *(f"{f}-verdicts" for f in figures),
        } <= names, doc
        # the verdict per paper: in one line each on the front page, with sentences beside
        assert {"README.md": "papers-verdicts-short"}.get(doc, "papers-verdicts") in names
    ids = quoted.names((ROOT / "docs/artifact-evaluation.md").read_text())
    assert {f"{f}-claim-ids" for f in figures} <= set(ids)
    assert cli.main(["quote"]) == 0


def test_the_headline_counts_findings_and_the_verdict_per_paper_names_each_short_one() -> None:
    papers = json.loads((ROOT / "docs/data/papers.json").read_text())
    given = verdicts.blocks(papers)
    headline, per_paper = given["papers-headline"], given["papers-verdicts"].splitlines()
    assert f"the 5 papers make {len(papers['findings'])} findings" in headline
    assert claims.phrase(papers["faithful"])[:-1] in headline  # claims, the faithful reading
    assert claims.phrase(papers["totals"])[:-1] not in headline  # not every claim pooled
    # each paper's line, then one line per finding that does not reproduce wholly
    short = [
        f
        for f in papers["findings"]
        if f["verdict"] in ("does not reproduce", "reproduces in part")
    ]
    assert len(per_paper) == len(papers["papers"]) + len(short)
    for f in short:
        assert f"  - `{f['id']}` ({f['location']}): {f['sentence']}" in per_paper
    front = given["papers-verdicts-short"].splitlines()
    assert len(front) == len(papers["papers"])
    assert all(f"`{f['id']}` ({f['verdict']})" in given["papers-verdicts-short"] for f in short)


def test_the_committed_cell_tables_are_those_the_committed_digest_was_made_from() -> None:
    """Every cell of the citable run can be read without a rerun: its leaderboards and the
    answer per regime family are committed beside the digest, each checked against its record
    when read, and they give the digest's numbers again."""
    committed = json.loads((ROOT / "docs/data/arena-full.json").read_text())
    run = quoting.tables_dir(ROOT / quoting.QUOTED["arena"][0])
    names = {path.parts[2] + "/" + path.name for path in dg.tables(run)}
    assert names == {
        "regret/leaderboard.csv",
        "regret/families.csv",
        "window/leaderboard.csv",
        f"{dg.SWITCHING}/leaderboard.csv",
    }
    board = dg._board(run, "regret")
    assert json.loads(json.dumps(dg._wins(board))) == committed["wins"]
    assert json.loads(json.dumps(dg._families(run))) == committed["families"]
    assert board.setting.nunique() == committed["settings"]


def test_the_arenas_claims_are_its_own_counted_apart() -> None:
    arena = dg.blocks(json.loads((ROOT / "docs/data/arena-full.json").read_text()))
    for name in ("readme-arena", "arena-claims"):
        assert "own claims hold" in arena[name] and "reproductions" not in arena[name], name
    assert arena["arena-regret-claim-ids"].startswith(
        "| claim id | statement | motivated by (no paper makes the claim) |"
    )


def test_the_verdicts_state_a_subset_scale_and_a_complete_one_unchanged() -> None:
    papers = json.loads((ROOT / "docs/data/papers.json").read_text())
    figure = papers["figures"][0]
    cell = f"{figure['paper']}-{figure['figure']}-verdicts"
    complete = verdicts.blocks(papers)
    assert papers["scale"] == "paper" and complete["papers-headline"].startswith("At paper scale,")
    assert " scale" not in complete[cell]
    label = "paper scale, a subset: 8 of 112 settings (only: geometric100, pareto1, K10)"
    subset = verdicts.blocks({**papers, "scale": label})
    assert subset["papers-headline"].startswith(f"At **{label}** (these counts are the subset's;")
    assert subset[cell] == f"{complete[cell]} at {label}"
    smoke = verdicts.blocks({**papers, "scale": "smoke"})
    assert smoke["papers-headline"].startswith("At **smoke** scale (not the paper scale")
    assert smoke[cell] == f"{complete[cell]} at smoke scale"


# A verdict count: a table's "holds / fails / inconclusive", "N of M claims hold", "N hold, M fail",
# "N fail, M inconclusive" (the words may break across lines).
TYPED_COUNT = re.compile(
    r"\b\d+\s*/\s*\d+\s*/\s*\d+\b"
    r"|\b\d+\s+of\s+\d+\s+(?:claims|reproductions|checks)\s+holds?\b"
    r"|\b\d+\s+(?:(?:claims?|reproductions?|checks?)\s+)?holds?,\s+\d+\s+fails?\b"
    r"|\b\d+\s+fails?,\s+\d+\s+inconclusive\b"
)


@pytest.mark.parametrize(
    "typed",
    [
        "| `vernade2017-fig1` | Sec. 7, Fig. 1 | 3 / 0 / 2 | reproduces |",
        "58 of 149 claims hold, 52 fail, 39 inconclusive.",
        "Over the five papers: 126 claims, 99 hold, 18 fail, 9 inconclusive.",
        "the code's widths beat TS in every panel (4 hold, 1 fails), and",
        "(Figure 1: 1 holds, 3 fail, 1\n  inconclusive; Figure 3: 1 fails, 1 inconclusive)",
    ],
)
def test_the_guard_finds_a_typed_verdict_count(typed: str) -> None:
    assert TYPED_COUNT.search(quoted.outside(f"before\n{typed}\nafter\n"))
    quoted_only = f"<!-- quoted: x -->\n{typed}\n<!-- /quoted: x -->\n"
    assert not TYPED_COUNT.search(quoted.outside(quoted_only))


@pytest.mark.parametrize(
    "doc",
    [
        "README.md",
        *sorted(
            p.relative_to(ROOT / "docs").as_posix()
            for p in (ROOT / "docs").rglob("*.md")
            # the figures' pages are written whole from a run (pages.py, tests/test_pages.py)
            if p.parent != ROOT / "docs" / "figures"
        ),
    ],
)
def test_no_verdict_count_is_typed_outside_a_quoted_block(doc: str) -> None:
    path = ROOT / doc if doc == "README.md" else ROOT / "docs" / doc
    typed = quoted.outside(path.read_text())
    found = [
        f"line {typed.count(chr(10), 0, m.start()) + 1}: {m[0]!r}"
        for m in TYPED_COUNT.finditer(typed)
    ]
    assert not found, f"{doc}: verdict counts typed by hand (quote them from a digest): {found}"


def test_differences_name_each_field_by_its_path() -> None:
    digest = {
        "a": 1,
        "rows": [{"x": 1.5, "y": [1, 2]}, {"x": 2.0, "id": "c"}],
        "only": "here",
        "b": True,
    }
    rerun = {
        "a": 1,
        "rows": [{"x": 1.5, "y": [1, 3]}, {"x": 2.5, "id": "c"}, {"x": 3.0}],
        "b": 1,
        "new": 0,
    }
    assert quoted.differences(digest, digest) == []
    assert quoted.differences(digest, rerun) == [
        "rows[0].y[1]: 2 in the digest, 3 in the rerun",
        "rows[1 'c'].x: 2.0 in the digest, 2.5 in the rerun",
        "rows: 2 items in the digest, 3 in the rerun",
        "only: 'here' in the digest, absent in the rerun",
        "b: True in the digest, 1 in the rerun",
        "new: absent in the digest, 0 in the rerun",
    ]


def _provenance(commit: str, source: str, simulation: list[str]) -> dict[str, Any]:
    return {"git_commits": [commit], "source_sha256": [source], "simulation_sha256": simulation}


def test_the_information_says_what_differs_besides_the_numbers() -> None:
    made = {
        "provenance": {"regret": _provenance("a" * 40, "1" * 64, ["s" * 64])},
        "cost": {"cpu_s": 1.0},
    }
    same = quoted.information(made, made)
    assert same == "provenance the same; the simulation code is the same"
    later = {
        "provenance": {"regret": _provenance("b" * 40, "2" * 64, ["s" * 64])},
        "cost": {"cpu_s": 2.0},
    }
    said = quoted.information(made, later)
    assert said.startswith(
        f"provenance differs: commits {'a' * 12} in the digest, {'b' * 12} in the rerun"
    )
    assert "the simulation code is the same" in said and "cost[" not in said
    assert "cost (measured, not checked) differs in 1 field(s), e.g. cost.cpu_s: 1.0" in said
    changed = {"provenance": {"regret": _provenance("b" * 40, "2" * 64, ["t" * 64])}}
    assert "the simulation code differs" in quoted.information(made, changed)
    old = {"provenance": {"regret": _provenance("a" * 40, "1" * 64, [])}}
    assert "unknown (the digest records no hash" in quoted.information(old, later)
    assert quoted.checked(made) == {}


@pytest.mark.parametrize("block", ["arena-wins", "arena-handling-base"])
def test_a_hand_edited_number_is_caught(block: str, tmp_path: Path, capsys) -> None:
    """A block of the run's digest, or of the entrants' declarations (an entrant added or moved
    without ``quote entrants --write``), edited by hand fails the check."""
    committed = json.loads((ROOT / "docs/data/arena-full.json").read_text())
    edited = dg.blocks(committed) | dg.declared() | quoting.rule_blocks()
    edited[block] += "\n| a row typed by hand |"
    doc = tmp_path / "arena.md"
    doc.write_text(quoted.fill((ROOT / "docs/arena.md").read_text(), edited))
    assert cli.main(["quote", "--docs", str(doc)]) == 1
    assert f"block {block} is not what" in capsys.readouterr().err


def _later(run: Path, where: Path) -> Path:
    """A rerun of ``run`` at another commit after an unrelated source edit: the same results,
    their provenance recording another commit and package hash, the same simulation hash."""
    later = where / run.name
    for part in ("results", "benchmarks"):
        shutil.copytree(run / part, later / part)
    for side in (later / "results").glob("*/*/summary.provenance.json"):
        record = json.loads(side.read_text())
        record["shards"]["git_commits"] = ["f" * 40]
        for env in record["shard_environments"]:
            env["source_sha256"] = "e" * 64
        side.write_text(json.dumps(record))
    return later


@pytest.mark.slow
def test_an_arena_rerun_is_held_to_the_digest_number_by_number(
    smoke_run: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(ROOT)  # the run's config files, and the other committed digest
    run = smoke_run / "smoke"
    doc, made = tmp_path / "arena.md", tmp_path / "digest.json"
    shutil.copy(ROOT / "docs/arena.md", doc)
    args = ["quote", "--digest", str(made), "--docs", str(doc)]
    assert cli.main([*args, "--run", str(run), "--write"]) == 0
    d = json.loads(made.read_text())
    assert d["scale"] == "smoke" and d["settings"] == 34 and set(d["base_means"]) == {0.4, 0.02}
    assert d["cost"]["simulate_jobs"] > 0 and d["cost"]["cpu_s"] > 0
    assert d["provenance"]["regret"]["simulation_sha256"]  # the shards recorded it
    # the smoke run has the switching figure: a row per setting, each entrant against the best
    # fixed arm, whose regret against each round's best is the early lead x T/2 = 0.2 x 1000 at mu 0.4
    switching = {row["setting"]: row for row in d[dg.SWITCHING]}
    assert len(switching) == 4
    assert switching["uniform_switch-K3-large"]["offset"] == pytest.approx(200)
    assert "arena-switching" in dg.blocks(d)
    # the window study at T/10 too (its entrants are anytime): the smoke window's first horizon
    assert d["window_early"]["horizon"] == 200 and "arena-window-early" in dg.blocks(d)
    assert quoted.stale(doc.read_text(), dg.blocks(d) | dg.declared() | quoting.rule_blocks()) == []
    # its per-cell tables beside it, with their records: every figure's leaderboard, the families
    copies = quoting.tables_dir(made)
    assert dg.tables(copies) == dg.tables(run) and len(dg.tables(run)) == 4
    assert json.loads(json.dumps(dg._wins(dg._board(copies, "regret")))) == d["wins"]
    capsys.readouterr()
    assert cli.main([*args, "--run", str(run)]) == 0
    assert "numbers agree with the run in" in capsys.readouterr().out
    later = _later(run, tmp_path / "later")
    assert cli.main([*args, "--run", str(later)]) == 0  # the same numbers, another commit
    out = capsys.readouterr().out
    assert f"{made}: numbers agree with the run in {later}; provenance differs: commits" in out
    assert "package sources (sha256)" in out and "the simulation code is the same" in out
    i, at_t = next(
        (i, w) for i, w in enumerate(d["wins"]) if w["horizon"] == d["horizon"] and w["settings"]
    )
    at_t["wins"] += 1  # a count the wins table quotes
    made.write_text(json.dumps(d))
    assert cli.main([*args, "--run", str(later)]) == 1
    err = capsys.readouterr().err
    assert f"{made}: 1 number(s) differ from the run in {later}:" in err
    assert f"  wins[{i}].wins: {at_t['wins']} in the digest, {at_t['wins'] - 1} in the rerun" in err
    assert "block arena-wins is not what" in err and "provenance differs" in err


@pytest.mark.slow
def test_the_papers_verdicts_are_quoted_and_held_to_a_rerun(
    smoke_run: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(ROOT)
    run = smoke_run / "smoke"
    docs = [tmp_path / Path(doc).name for doc in quoting.QUOTING]
    for doc, to in zip(quoting.QUOTING, docs):
        shutil.copy(ROOT / doc, to)
    made, figures = tmp_path / "papers.json", tmp_path / "figures"
    args = ["quote", "papers", "--digest", str(made), "--docs", *map(str, docs)]
    assert cli.main([*args, "--run", str(run), "--write", "--pages", str(figures)]) == 0
    d = json.loads(made.read_text())
    # a page per figure, with the commands the run's Snakemake recorded (pages.detailed_summary)
    page = (figures / "vernade2017-fig2.md").read_text()
    assert "delayed-bandits claims --merged" in page and "(no command recorded" not in page
    assert (figures / "arena-curves.md").is_file()
    files = sorted((run / "results").glob("*/*/claims.json"))
    papers = [f for f in files if f.parent.parent.name != "arena"]
    rows = [c for f in papers for c in json.loads(f.read_text())]
    assert d["scale"] == "smoke" and len(d["figures"]) == len(papers)
    quoted_ids = sorted(c["id"] for f in d["figures"] for c in f["claims"])
    assert quoted_ids == sorted(c["id"] for c in rows)
    assert claims.phrase(d["totals"]) == claims.count(rows)  # every claim, counted once
    assert d["findings"]  # and the findings, from the same claims
    assert sum(sum(p["verdicts"]["reproduction"].values()) for p in d["papers"]) == sum(
        sum(f["verdicts"]["reproduction"].values()) for f in d["figures"]
    )
    readme = docs[0].read_text()
    assert "At **smoke** scale" in readme and claims.phrase(d["faithful"])[:-1] in readme
    fig1 = d["figures"][0]["faithful"]["reproduction"]
    counts = f"{fig1['holds']} / {fig1['fails']} / {fig1['inconclusive']}"
    assert f"<!-- quoted: vernade2017-fig1-verdicts -->{counts} at smoke scale<" in readme
    capsys.readouterr()
    later = _later(run, tmp_path / "later")
    assert cli.main([*args, "--run", str(later)]) == 0
    assert "numbers agree with the run in" in capsys.readouterr().out
    flipped = d["figures"][0]["claims"][0]
    flipped["verdict"] = "fails" if flipped["verdict"] != "fails" else "holds"
    made.write_text(json.dumps(d))
    assert cli.main([*args, "--run", str(later)]) == 1
    assert f"  figures[0].claims[0 {flipped['id']!r}].verdict: " in capsys.readouterr().err


def test_quote_names_what_it_lacks(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert cli.main(["quote", "--write"]) == 2
    assert "--write: needs --run" in capsys.readouterr().err
    assert cli.main(["quote", "entrants", "--run", str(tmp_path)]) == 2
    assert "entrants' declarations, not from a run's digest" in capsys.readouterr().err
    assert cli.main(["quote", "--run", str(tmp_path)]) == 2
    assert "holds no arena results" in capsys.readouterr().err
    assert cli.main(["quote", "papers", "--run", str(tmp_path)]) == 2
    assert "holds no papers' claims" in capsys.readouterr().err
    assert cli.main(["quote", "papers", "--digest", str(tmp_path)]) == 2
    assert f"{tmp_path}: a directory, not a digest" in capsys.readouterr().err
    assert cli.main(["quote", "--digest", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert (
        "none.json: no digest; write it from its run: delayed-bandits quote arena --run full" in err
    )
