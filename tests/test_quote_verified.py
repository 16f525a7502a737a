"""`delayed-bandits quote papers --run X --write` passes on only the verdicts a run's claims
jobs wrote: each claims file is checked against its record (its sha256 and binding,
``tables.read_recorded``), as every table's reader checks a table, before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, smoke_config
from delayed_bandits import verdicts
from delayed_bandits.cli import main

FILES = ["config/config.yaml", "config/smoke.yaml"]
PAPER, FIGURE = "vernade2017", "fig1"


@pytest.fixture
def run(tmp_path: Path, monkeypatch) -> Path:
    """A smoke-scale run of one figure, made by the commands the workflow's jobs run, in a copy
    of the checkout's config and documents."""
    for item in ("config", "docs"):
        shutil.copytree(ROOT / item, tmp_path / item)
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    monkeypatch.chdir(tmp_path)
    fig = smoke_config()["papers"][PAPER][FIGURE]
    where = f"smoke/results/{PAPER}/{FIGURE}"
    given = ["--config", *FILES, "--paper", PAPER, "--figure", FIGURE]
    last = fig["replications"] - 1
    shard = f"{where}/rep0-{last}.parquet"
    main(
        [
            "simulate",
            *given,
            "--setting",
            *fig["settings"],
            "--algorithm",
            *fig["algorithms"],
            "--reps",
            f"0-{last}",
            "--out",
            shard,
        ]
    )
    main(["aggregate", *given, "--out", f"{where}/summary.csv", shard])
    main(
        [
            "claims",
            *given,
            "--summary",
            f"{where}/summary.csv",
            "--shards",
            shard,
            "--out",
            f"{where}/claims.json",
        ]
    )
    return tmp_path / "smoke"


@pytest.mark.probe("files and arguments")
def test_quote_refuses_a_flipped_verdict_and_writes_nothing(run: Path, capsys) -> None:
    assert verdicts.digest(run)["figures"][0]["figure"] == FIGURE  # the run as its jobs made it
    claims = run / "results" / PAPER / FIGURE / "claims.json"
    rows = json.loads(claims.read_text())
    rows[0]["holds"] = not rows[0]["holds"] if rows[0]["holds"] is not None else True
    claims.write_text(json.dumps(rows, indent=2) + "\n")
    docs = {
        p: p.read_bytes()
        for p in [run.parent / "README.md", *(run.parent / "docs").rglob("*")]
        if p.is_file()
    }
    code = main(["quote", "papers", "--run", str(run), "--write"])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert f"{claims}" in err and "claims.provenance.json records" in err, err
    assert {p: p.read_bytes() for p in docs} == docs
