"""Failures: corrupt or truncated tables are refused with a message naming the file and the command
that regenerates it; a failing job leaves no output behind and says why; a run killed with SIGKILL
resumes after `--unlock` with the local profile, which reruns incomplete jobs by itself,
recomputing only what was unfinished."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from compare_runs import differences, same_file
from conftest import (
    BIN,
    CONFIG,
    SMOKE,
    SNAKEMAKE_ENV,
    config_files,
    copy_workflow,
    smoke_config,
    snakemake,
)
from delayed_bandits import algorithms
from delayed_bandits.cli import main
from delayed_bandits.outputs import write_parquet
from delayed_bandits.tables import BINDING_KEY, sidecar_path

FIG = ["--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017", "--figure", "fig2"]


def _simulate(
    out: Path,
    reps: str = "0-2",
    algorithm: str = "d-ucb",
    config: Path | None = None,
    settings: tuple[str, ...] = ("thetaL",),
) -> int:
    return main(
        [
            "simulate",
            "--config",
            *config_files(config),
            "--paper",
            "vernade2017",
            "--figure",
            "fig2",
            "--setting",
            *settings,
            "--algorithm",
            algorithm,
            "--reps",
            reps,
            "--out",
            str(out),
            "--events",
            str(out.with_suffix(".events.parquet")),
        ]
    )


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    """One figure's shards (a shard per algorithm, of every setting: its summary's record binds
    every curve of the figure; replications 0-2) and their summary."""
    work = tmp_path_factory.mktemp("tables")
    fig = smoke_config()["papers"]["vernade2017"]["fig2"]
    for algorithm in fig["algorithms"]:
        shard = work / f"{algorithm}/rep0-2.parquet"
        assert _simulate(shard, algorithm=algorithm, settings=tuple(fig["settings"])) == 0
    assert (
        main(
            [
                "aggregate",
                *FIG,
                "--out",
                str(work / "summary.csv"),
                *map(str, sorted(work.glob("*/rep0-2.parquet"))),
            ]
        )
        == 0
    )
    return work


def _binding_of(shard: Path) -> dict[bytes, bytes]:
    """The parquet metadata that records what made ``shard`` (``tables.BINDING_KEY``)."""
    return {BINDING_KEY: pq.read_schema(shard).metadata[BINDING_KEY]}


def _broken_copy(src: Path, dest: Path, cut: int) -> Path:
    """``src`` without its last ``cut`` bytes, under ``dest`` (same file name, so the same promise
    of replications)."""
    dest.mkdir(parents=True, exist_ok=True)
    data = src.read_bytes()
    (dest / src.name).write_bytes(data[: len(data) - cut])
    return dest / src.name


def _assert_refused(capsys, code: int, path: Path, out: Path, why: str) -> None:
    err = capsys.readouterr().err
    assert code == 2
    assert str(path) in err and why in err, err
    assert f"snakemake --cores 1 --force {path}" in err, err
    assert not out.exists()


@pytest.mark.probe("faults")
@pytest.mark.parametrize("cut", [1, 100, 10_000])
def test_truncated_shard_is_refused(tables: Path, tmp_path: Path, capsys, cut: int) -> None:
    bad = _broken_copy(tables / "d-ucb/rep0-2.parquet", tmp_path / "d-ucb", cut)
    out = tmp_path / "summary.csv"
    code = main(
        ["aggregate", *FIG, "--out", str(out), str(bad), str(tables / "d-klucb/rep0-2.parquet")]
    )
    _assert_refused(capsys, code, bad, out, "corrupt or truncated")


@pytest.mark.probe("faults")
def test_shard_missing_a_replication_is_refused(tables: Path, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "rep0-2.parquet"
    shard = pd.read_parquet(tables / "d-ucb/rep0-2.parquet")
    # written with a checksum of what it holds and the binding of the shard it was cut from: the
    # shape check, not the checksum nor the binding, refuses it
    write_parquet(shard[shard.replication != 1], bad, _binding_of(tables / "d-ucb/rep0-2.parquet"))
    out = tmp_path / "summary.csv"
    code = main(["aggregate", *FIG, "--out", str(out), str(bad)])
    _assert_refused(
        capsys, code, bad, out, "holds replications 0-2 (2 runs), its name promises 0-2 (3 runs)"
    )


def _claims(tables: Path, summary: Path, out: Path, shards: list[Path] | None = None) -> int:
    """The claims command on the figure's tables (``shards``: its runs, by default every shard)."""
    if shards is None:
        shards = sorted(tables.glob("*/rep0-2.parquet"))
    return main(
        [
            "claims",
            *FIG,
            "--summary",
            str(summary),
            "--out",
            str(out),
            "--events",
            *map(str, sorted(tables.glob("*/rep0-2.events.parquet"))),
            *(["--shards", *map(str, shards)] if shards else []),
        ]
    )


def test_intact_tables_pass(tables: Path, tmp_path: Path) -> None:
    assert _claims(tables, tables / "summary.csv", tmp_path / "claims.json") == 0
    assert (tmp_path / "claims.json").exists()


@pytest.mark.probe("faults")
@pytest.mark.parametrize(
    "cut",
    [
        3,  # inside the last line
        None,  # whole lines of the last curve
        "curve",  # exactly one whole curve
        "all",
    ],
)
def test_truncated_summary_is_refused(tables: Path, tmp_path: Path, capsys, cut) -> None:
    """Beside its record (summary.provenance.json), as a copy cut short leaves it: the sha256 of
    its bytes refuses it before it is parsed, whatever was lost."""
    text = (tables / "summary.csv").read_text()
    lines = text.splitlines(keepends=True)
    if cut is None:
        broken = "".join(lines[:-5])
    elif cut == "curve":
        broken = "".join(line for line in lines if ",discarding-ucb," not in line)
    elif cut == "all":
        broken = ""
    else:
        broken = text[:-cut]
    bad = tmp_path / "summary.csv"
    bad.write_text(broken)
    shutil.copy(sidecar_path(tables / "summary.csv"), sidecar_path(bad))
    out = tmp_path / "claims.json"
    _assert_refused(capsys, _claims(tables, bad, out), bad, out, "its sha256 is")


@pytest.mark.probe("faults")
def test_corrupt_events_table_is_refused(tables: Path, tmp_path: Path, capsys) -> None:
    bad = _broken_copy(tables / "d-ucb/rep0-2.events.parquet", tmp_path, 50)
    out = tmp_path / "claims.json"
    code = main(
        [
            "claims",
            *FIG,
            "--summary",
            str(tables / "summary.csv"),
            "--out",
            str(out),
            "--events",
            str(bad),
            "--shards",
            *map(str, sorted(tables.glob("*/rep0-2.parquet"))),
        ]
    )
    _assert_refused(capsys, code, bad, out, "corrupt or truncated")


def test_corrupt_shard_is_refused_by_claims(tables: Path, tmp_path: Path, capsys) -> None:
    """The claims read every run (tables["runs"]) through the same checked reader as the
    summary."""
    bad = _broken_copy(tables / "d-ucb/rep0-2.parquet", tmp_path / "d-ucb", 100)
    others = [p for p in sorted(tables.glob("*/rep0-2.parquet")) if p.parent.name != "d-ucb"]
    out = tmp_path / "claims.json"
    code = _claims(tables, tables / "summary.csv", out, [bad, *others])
    _assert_refused(capsys, code, bad, out, "corrupt or truncated")


def test_claims_without_every_curve_are_refused(tables: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "claims.json"
    code = _claims(tables, tables / "summary.csv", out, [tables / "d-ucb/rep0-2.parquet"])
    assert code == 2
    assert (
        "the shards given hold no runs of thetaL/d-klucb, thetaL/discarding-klucb, "
        "thetaL/discarding-ucb, thetaL-same-round/d-klucb, thetaL-same-round/discarding-klucb, "
        "thetaL-same-round/discarding-ucb\n" in capsys.readouterr().err
    )
    assert not out.exists()


def test_claims_without_shards_are_refused(tables: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "claims.json"
    code = main(["claims", *FIG, "--summary", str(tables / "summary.csv"), "--out", str(out)])
    assert code == 2
    assert "--shards: required, the claims of vernade2017 fig2" in capsys.readouterr().err
    assert not out.exists()


def test_failing_kernel_leaves_no_output(tmp_path: Path, monkeypatch) -> None:
    """A bad parameter reaching a kernel: the exception propagates (its traceback is what the
    job's log shows) and neither the shard nor its events file is written."""
    algo = algorithms.get("vernade2017", "d-ucb")

    def broken(*args):
        raise ValueError("window must be positive")

    registry = algorithms.registry
    monkeypatch.setattr(
        algorithms,
        "registry",
        lambda paper: {**registry(paper), "d-ucb": replace(algo, kernel=broken)},
    )
    out = tmp_path / "rep0-2.parquet"
    with pytest.raises(ValueError, match="window must be positive"):
        _simulate(out)
    assert not list(tmp_path.iterdir())


@pytest.mark.probe("faults")
def test_a_horizon_beyond_memory_is_refused_before_the_job_runs(tmp_path: Path) -> None:
    """A horizon far beyond this machine's memory is refused when the config is validated, as a
    real command, as a Snakemake job would run it, with its output redirected like a log."""
    config = smoke_config()
    config["papers"]["vernade2017"]["fig2"]["horizon"] = 10**11
    path = tmp_path / "huge.yaml"
    path.write_text(yaml.safe_dump(config))
    out = tmp_path / "results" / "rep0-0.parquet"
    log = tmp_path / "rep0-0.log"
    with log.open("w") as handle:
        run = subprocess.run(
            [
                f"{BIN}/delayed-bandits",
                "simulate",
                "--config",
                str(path),
                "--paper",
                "vernade2017",
                "--figure",
                "fig2",
                "--setting",
                "thetaL",
                "--algorithm",
                "d-ucb",
                "--reps",
                "0-0",
                "--out",
                str(out),
            ],
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=SNAKEMAKE_ENV,
        )
    assert run.returncode == 2
    text = log.read_text()
    assert "papers.vernade2017.fig2.horizon" in text and "more than this machine's" in text, text
    assert not out.parent.exists(), "the failed command left files behind"


@pytest.mark.probe("faults")
def test_out_of_memory_leaves_no_output_and_says_why(tmp_path: Path, monkeypatch, capsys) -> None:
    """A job that runs out of memory all the same (a node with less free memory than the
    machine that validated): no output, and a message that says what to do."""
    from delayed_bandits import simulate

    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 745. GiB")

    monkeypatch.setattr(simulate, "run_job", exhausted)
    out = tmp_path / "results" / "rep0-2.parquet"
    assert _simulate(out) == 1
    text = capsys.readouterr().err
    assert "out of memory" in text and "no output was written" in text and "mem_mb" in text, text
    assert not out.parent.exists(), "the failed command left files behind"


# --- the workflow, killed and resumed -------------------------------------------------------

TARGET = "vernade2017"  # 15 jobs of the smoke config, 6 of them shards: killed partway


PREFIXES = (f"smoke/results/{TARGET}/", f"smoke/figures/{TARGET}-")  # the smoke scale's outputs
KILL_AFTER = 3  # shards written when the machine "crashes"


def _outputs(work: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and modification time of every result and figure of TARGET."""
    files = [p for p in (work / "smoke/results" / TARGET).rglob("*") if p.is_file()]
    files += list((work / "smoke/figures").glob(f"{TARGET}-*"))
    return {str(p.relative_to(work)): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}


def _job_count(log: str, rule: str) -> int:
    """Jobs of ``rule`` in Snakemake's 'Job stats' table (0 when it ran none)."""
    found = re.search(rf"^{rule}\s+(\d+)$", log, re.MULTILINE)
    return int(found[1]) if found else 0


@pytest.mark.slow
def test_killed_run_resumes_and_recomputes_only_the_unfinished(
    tmp_path: Path, smoke_run: Path
) -> None:
    work = copy_workflow(tmp_path)
    shards = work / "smoke/results" / TARGET
    proc = subprocess.Popen(
        [f"{BIN}/snakemake", "--cores", "2", TARGET, "--configfile", "config/smoke.yaml"],
        cwd=work,
        env=SNAKEMAKE_ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 600
    try:
        while len(list(shards.rglob("rep*[0-9].parquet"))) < KILL_AFTER:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no progress in 10 minutes"
            time.sleep(0.05)
    finally:
        # A crash of the machine: Snakemake and every job it started die at once.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = _outputs(work)

    # Snakemake refuses to go on: first over the outputs of the jobs that were running (marked
    # incomplete), then over the lock the killed process left.
    plain = snakemake(work, "--cores", "2", TARGET)
    assert plain.returncode != 0
    assert "--rerun-incomplete" in plain.stderr or "--unlock" in plain.stderr, plain.stderr[-2000:]
    assert list((work / ".snakemake" / "locks").glob("*.lock")), "no lock left by the kill"
    locked = snakemake(work, "--cores", "2", "--rerun-incomplete", TARGET)
    assert locked.returncode != 0 and "--unlock" in locked.stderr, locked.stderr[-2000:]

    # The recovery the README documents: unlock, then the local profile (make figures) reruns
    # the incomplete jobs by itself, with no flag.
    assert snakemake(work, "--unlock").returncode == 0
    resumed = snakemake(work, "--profile", "workflow/profiles/default", "--cores", "2", TARGET)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = _outputs(work)

    kept = {p for p in before if after[p] == before[p]}
    rerun = {p for p in before if p not in kept}
    # Only jobs running at the kill (at most two, with two cores) may be redone, and a redone
    # output has the same bytes (a shard, the same values: the final comparison below); every
    # other finished output keeps its bytes and its mtime.
    jobs = {(str(Path(p).parent), Path(p).name.split(".")[0]) for p in rerun}
    assert len(jobs) <= 2, rerun
    assert all(after[p][0] == before[p][0] for p in rerun if not p.endswith(".parquet"))
    n_shards = len(list(shards.rglob("rep*[0-9].parquet")))
    kept_shards = sum(1 for p in kept if p.endswith(".parquet") and ".events." not in p)
    assert kept_shards >= KILL_AFTER - 2
    assert _job_count(resumed.stderr + resumed.stdout, "simulate_figure") == n_shards - kept_shards

    # And the end result is the uninterrupted run's: every summary, claim and figure byte for
    # byte, every shard value for value.
    assert differences(work, smoke_run, PREFIXES) == []


@pytest.mark.slow
def test_corrupt_shard_stops_the_workflow_until_regenerated(
    tmp_path: Path, smoke_run: Path
) -> None:
    work = copy_workflow(tmp_path)
    for kind in ("smoke", ".snakemake"):
        subprocess.run(["cp", "-a", str(smoke_run / kind), str(work)], check=True)
    shard = Path("smoke/results/vernade2017/fig2/rep0-2.parquet")
    figure = work / "smoke/figures/vernade2017-fig2.pdf"
    figure_before = figure.read_bytes(), figure.stat().st_mtime_ns
    data = (work / shard).read_bytes()
    (work / shard).write_bytes(data[: len(data) // 2])  # newer than the summary: it reruns

    failed = snakemake(work, "--cores", "1", TARGET)
    assert failed.returncode != 0
    log = (work / "smoke/logs/vernade2017/fig2/summary.log").read_text()
    assert f"{shard} is corrupt or truncated" in log, log
    assert f"snakemake --cores 1 --force {shard}" in log, log
    assert not (work / "smoke/results/vernade2017/fig2/summary.csv").exists()
    assert (figure.read_bytes(), figure.stat().st_mtime_ns) == figure_before

    # The command the message gives, then the workflow: back to the uninterrupted run's numbers.
    assert snakemake(work, "--cores", "1", "--force", str(shard)).returncode == 0
    assert snakemake(work, "--cores", "2", TARGET).returncode == 0
    assert same_file(work / shard, smoke_run / shard)
    assert differences(work, smoke_run, PREFIXES) == []


def test_a_rewritten_output_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    from delayed_bandits.outputs import atomic_path

    out = tmp_path / "rep0-2.parquet"
    stale = tmp_path / ".rep0-2.parquet.tmp4242.parquet"  # a writer killed with SIGKILL
    other = tmp_path / ".rep3-5.parquet.tmp4242.parquet"  # another output's: left alone
    stale.write_bytes(b"half"), other.write_bytes(b"half")
    with atomic_path(out) as tmp:
        tmp.write_bytes(b"whole")
    assert out.read_bytes() == b"whole"
    assert not stale.exists() and other.exists()
