"""Bad files and arguments that once ended in a traceback, each refused with a named error that
says what is allowed, leaving no output behind (docs/auditing.md). Probes of its tally."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import CONFIG, SMOKE
from delayed_bandits.cli import main

FIG3A = ["--config", str(CONFIG), str(SMOKE), "--paper", "pikeburke2018", "--figure", "fig3a"]


def _refused(probe, capsys, argv: list[str], *said: str) -> str:
    """Run the command ``argv``; record and check that it is refused, saying each of ``said``."""
    code = main(argv)
    err = capsys.readouterr().err
    assert probe.cli(code, err) == "refused with a named error", err
    for text in said:
        assert text in err, err
    return err


@pytest.mark.probe("files and arguments")
def test_a_config_that_is_not_utf8(tmp_path: Path, capsys, probe) -> None:
    overlay = tmp_path / "latin1.yaml"
    overlay.write_bytes("seed: 3 # café\n".encode("latin-1"))
    argv = ["validate", "--config", str(CONFIG), str(overlay)]
    _refused(probe, capsys, argv, f"config file '{overlay}' is not UTF-8 text", "save it as UTF-8")


@pytest.mark.probe("files and arguments")
def test_an_out_that_is_a_directory(tmp_path: Path, capsys, probe) -> None:
    claims = tmp_path / "claims.json"
    claims.write_text("[]\n")
    out = tmp_path / "taken"
    out.mkdir()
    argv = ["gather-claims", "--out", str(out), str(claims)]
    _refused(probe, capsys, argv, f"{out}: exists and is not a regular file")
    assert list(out.iterdir()) == []


@pytest.mark.probe("files and arguments")
@pytest.mark.parametrize(
    "text", ["{bad", "[1, 2]", '[{"id": "x"}]', "\udcff"], ids=["json", "list", "fields", "bytes"]
)
def test_gather_claims_on_a_file_that_is_no_claims(tmp_path: Path, capsys, probe, text) -> None:
    claims = tmp_path / "claims.json"
    claims.write_bytes(text.encode("utf-8", "surrogateescape"))
    out = tmp_path / "claims.md"
    argv = ["gather-claims", "--out", str(out), str(claims)]
    _refused(probe, capsys, argv, f"{claims} is not a claims file", "regenerate it with")
    assert not out.exists()


@pytest.mark.probe("files and arguments")
@pytest.mark.parametrize("text", ["hello\n", "{}\n", '{"cells": 3}\n'])
def test_render_on_a_file_that_is_no_notebook(tmp_path: Path, capsys, probe, text) -> None:
    notebook = tmp_path / "page.ipynb"
    notebook.write_text(text)
    out = tmp_path / "page.html"
    argv = ["render", "--notebook", str(notebook), "--results", str(tmp_path), "--out", str(out)]
    _refused(probe, capsys, argv, f"--notebook {notebook}: not a Jupyter notebook")
    assert not out.exists()


@pytest.mark.probe("files and arguments")
def test_quote_with_a_digest_that_is_a_directory(tmp_path: Path, capsys, probe) -> None:
    argv = ["quote", "--digest", str(tmp_path)]
    _refused(probe, capsys, argv, f"{tmp_path}: a directory, not a digest")


@pytest.mark.probe("files and arguments")
def test_quote_with_a_digest_that_is_not_json(tmp_path: Path, capsys, probe) -> None:
    digest = tmp_path / "digest.json"
    digest.write_text("{")
    _refused(probe, capsys, ["quote", "--digest", str(digest)], f"{digest}: not a JSON digest")


@pytest.mark.probe("files and arguments")
def test_claims_of_a_figure_that_reads_events_without_them(
    tmp_path: Path, capsys, monkeypatch, probe
) -> None:
    """Pike-Burke et al.'s Figure 3a reads the shards' events besides its ratios and runs: without
    ``--events`` its claims name the option (the tables read, the runs of ``--shards`` among
    them, are stubbed: this is about the one that was not given)."""
    from delayed_bandits import aggregate, tables

    monkeypatch.setattr(tables, "read_summary", lambda *args, **kwargs: pd.DataFrame())
    monkeypatch.setattr(aggregate, "read_runs", lambda *args, **kwargs: pd.DataFrame())
    out = tmp_path / "claims.json"
    given = ["--summary", "summary.csv", "--ratios", "ratios.csv", "--shards", "rep0-2.parquet"]
    given += ["--out", str(out)]
    _refused(probe, capsys, ["claims", *FIG3A, *given], "--events: required, pikeburke2018 fig3a")
    assert not out.exists()


@pytest.mark.probe("files and arguments")
def test_a_grid_overlay_without_an_axis_of_the_setting(tmp_path: Path, capsys, probe) -> None:
    grid = [{"key": "n_arms", "values": [3], "names": ["K3"]}]  # gap and base_mean gone
    overlay = tmp_path / "grid.yaml"
    overlay.write_text(yaml.safe_dump({"papers": {"arena": {"regret": {"grid": grid}}}}))
    argv = ["validate", "--config", str(CONFIG), str(SMOKE), str(overlay)]
    _refused(probe, capsys, argv, "papers.arena.regret.settings.", ": no gap; an arena setting")


@pytest.mark.probe("files and arguments")
def test_a_full_disk_inside_a_job(tmp_path: Path, capsys, monkeypatch, probe) -> None:
    """The disk fills while a shard is written: half a file is on disk when the write fails. The
    job says the disk is full, and removes what it wrote."""
    import pyarrow.parquet as pq

    def full(table, where, **kwargs) -> None:
        Path(where).write_bytes(b"PAR1" + bytes(4096))  # what fitted
        raise OSError(errno.ENOSPC, "No space left on device", str(where))

    monkeypatch.setattr(pq, "write_table", full)
    out = tmp_path / "shard" / "rep0-0.parquet"
    argv = ["simulate", "--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017"]
    argv += ["--figure", "fig2", "--setting", "thetaL", "--algorithm", "d-ucb", "--reps", "0-0"]
    argv += ["--out", str(out), "--events", str(out.with_suffix(".events.parquet"))]
    _refused(probe, capsys, argv, "the disk is full: no space left on the device")
    assert list(out.parent.iterdir()) == []


@pytest.mark.probe("files and arguments")
@pytest.mark.parametrize("code", [errno.EFBIG, errno.EACCES, errno.EROFS, errno.EDQUOT, errno.EIO])
def test_any_os_error_writing_a_shard_is_named(tmp_path: Path, monkeypatch, capsys, probe, code):
    """Every OS error on write, not only a full disk: the file and the errno named, and nothing
    left behind."""
    import pyarrow.parquet as pq

    def fails(table, where, **kwargs) -> None:
        Path(where).write_bytes(b"PAR1")
        raise OSError(code, os.strerror(code), str(where))

    monkeypatch.setattr(pq, "write_table", fails)
    out = tmp_path / "rep0-0.parquet"
    argv = ["simulate", "--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017"]
    argv += ["--figure", "fig2", "--setting", "thetaL", "--algorithm", "d-ucb", "--reps", "0-0"]
    name = errno.errorcode[code]
    _refused(
        probe, capsys, [*argv, "--out", str(out)], f"could not write {out} (errno {code} {name}"
    )
    assert json.dumps(sorted(p.name for p in tmp_path.iterdir())) == "[]"


@pytest.mark.probe("files and arguments")
def test_a_file_size_limit_in_aggregate_is_named(tmp_path: Path, probe) -> None:
    """A real EFBIG: ``aggregate``'s summary written under ``ulimit -f`` of 1 KB (Python ignores
    SIGXFSZ, so the write fails with EFBIG)."""
    import resource

    shard = tmp_path / "rep0-1.parquet"
    argv = ["simulate", "--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017"]
    argv += ["--figure", "fig2", "--setting", "thetaL", "--algorithm", "d-ucb", "--reps", "0-1"]
    assert main([*argv, "--out", str(shard)]) == 0
    out = tmp_path / "summary.csv"
    code = (
        "from delayed_bandits.cli import main; raise SystemExit(main("
        + repr(
            [
                "aggregate",
                "--config",
                str(CONFIG),
                str(SMOKE),
                "--paper",
                "vernade2017",
                "--figure",
                "fig2",
                "--out",
                str(out),
                str(shard),
            ]
        )
        + "))"
    )

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, resource.RLIM_INFINITY))

    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=limited,
    )
    assert probe.cli(done.returncode, done.stderr) == "refused with a named error", done.stderr
    assert f"errno {errno.EFBIG} EFBIG" in done.stderr and "ulimit -f" in done.stderr, done.stderr
    assert not out.exists()
