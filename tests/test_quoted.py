"""The numbers the docs quote of the arena are written by code from a run (``quoted``,
``papers.arena.digest``, ``delayed-bandits quote``): the docs hold the committed digest's blocks,
and a run's digest is what a rerun reproduces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from delayed_bandits import cli, quoted
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.arena import digest as dg

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


def test_a_block_without_generated_text_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"docs/x.md: no generated text for the block\(s\) b"):
        quoted.fill(DOC, {"a": ""}, "docs/x.md")


def test_the_docs_quote_the_committed_digest(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    committed = json.loads((ROOT / "docs/data/arena-full.json").read_text())
    for doc in ("README.md", "docs/arena.md"):
        text = (ROOT / doc).read_text()
        assert set(quoted.names(text)) <= set(dg.blocks(committed)), doc
    assert "readme-arena" in quoted.names((ROOT / "README.md").read_text())
    assert cli.main(["quote"]) == 0


def test_a_hand_edited_number_is_caught(tmp_path: Path, capsys) -> None:
    committed = json.loads((ROOT / "docs/data/arena-full.json").read_text())
    edited = dg.blocks(committed)
    edited["arena-wins"] += "\n| a row typed by hand |"
    doc = tmp_path / "arena.md"
    doc.write_text(quoted.fill((ROOT / "docs/arena.md").read_text(), edited))
    assert cli.main(["quote", "--docs", str(doc)]) == 1
    assert "block arena-wins is not what" in capsys.readouterr().err


def test_a_runs_digest_is_reproduced_and_a_changed_number_is_not(
    smoke_run: Path, tmp_path: Path, capsys
) -> None:
    run = smoke_run / "smoke"
    doc, made = tmp_path / "arena.md", tmp_path / "digest.json"
    shutil.copy(ROOT / "docs/arena.md", doc)
    args = ["quote", "--run", str(run), "--digest", str(made), "--docs", str(doc)]
    assert cli.main([*args, "--write"]) == 0
    d = json.loads(made.read_text())
    assert d["scale"] == "smoke" and d["settings"] == 28 and set(d["base_means"]) == {0.4, 0.02}
    assert d["cost"]["simulate_jobs"] > 0 and d["cost"]["cpu_s"] > 0
    assert quoted.stale(doc.read_text(), dg.blocks(d)) == []
    assert cli.main(args) == 0  # the run's digest again, and the docs its blocks
    at_t = next(w for w in d["wins"] if w["horizon"] == d["horizon"] and w["settings"])
    at_t["wins"] += 1  # a count the wins table quotes
    made.write_text(json.dumps(d))
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert "wins differs from the run" in err and "block arena-wins is not what" in err


def test_quote_needs_a_run_to_write_and_names_a_run_without_results(tmp_path: Path, capsys) -> None:
    assert cli.main(["quote", "--write"]) == 2
    assert "--write: needs --run" in capsys.readouterr().err
    assert cli.main(["quote", "--run", str(tmp_path)]) == 2
    assert "holds no arena results" in capsys.readouterr().err
