"""Provenance: the JSON sidecar beside each summary, the metadata in each shard, and the simulate
command's progress line and closing log line.

One tiny figure of the smoke config (Vernade et al. 2017, Figure 2, setting thetaL) is simulated
through the CLI once for the module, in three shards; every output goes to pytest's tmp_path."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

import delayed_bandits
from conftest import CONFIG, SMOKE, config_files, copy_workflow, smoke_config, snakemake
from delayed_bandits import progress, provenance, seeds, tables
from delayed_bandits.aggregate import read_shards, summarise
from delayed_bandits.cli import main
from delayed_bandits.outputs import write_parquet
from delayed_bandits.simulate import run_shard

REPO = Path(__file__).resolve().parents[1]
PAPER, FIGURE, SETTING = "vernade2017", "fig2", "thetaL"
HORIZON = 1500  # papers.vernade2017.fig2.horizon in config/smoke.yaml
# Unequal replication counts per algorithm, so that the recorded counts are really counted.
SHARDS = [("d-ucb", 0, 2), ("d-ucb", 3, 5), ("d-klucb", 0, 1)]
LOG_LINE = re.compile(
    r"^shard (\S+) rep(\d+)-(\d+): (\d+) replications, ([\d,]+) agent-steps "
    r"in \d+\.\d s \(([\d,]+) steps/s\)$"
)


@dataclass(frozen=True)
class Run:
    shards: list[Path]
    summaries: list[Path]  # the same shards aggregated twice
    stderr: list[str]  # of each simulate command

    def sidecar(self, i: int = 0) -> dict[str, Any]:
        return json.loads(tables.sidecar_path(self.summaries[i]).read_text())


def _simulate(
    out: Path, algorithm: str, first: int, last: int, config: Path | None = None
) -> list[str]:
    return [
        "simulate",
        "--config",
        *config_files(config),
        "--paper",
        PAPER,
        "--figure",
        FIGURE,
        "--setting",
        SETTING,
        "--algorithm",
        algorithm,
        "--reps",
        f"{first}-{last}",
        "--out",
        str(out),
    ]


def _aggregate(out: Path, shards: list[Path], config: Path | None = None, *extra: str) -> list[str]:
    return [
        "aggregate",
        "--config",
        *config_files(config),
        "--paper",
        PAPER,
        "--figure",
        FIGURE,
        "--out",
        str(out),
        *extra,
        *map(str, shards),
    ]


def _main(argv: list[str]) -> tuple[int, str]:
    """Exit code and stderr of the CLI, run in this process (stderr is not a terminal)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    work = tmp_path_factory.mktemp("provenance")
    shards, stderr = [], []
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)  # git state is that of the working directory: the repository's here
        for algorithm, first, last in SHARDS:
            shards.append(work / f"{algorithm}-rep{first}-{last}.parquet")
            code, err = _main(_simulate(shards[-1], algorithm, first, last))
            assert code == 0, err
            stderr.append(err)
        summaries = [work / name / "summary.csv" for name in ("one", "two")]
        for summary in summaries:
            code, err = _main(_aggregate(summary, shards))
            assert code == 0, err
    return Run(shards, summaries, stderr)


def _head(path: Path) -> str:
    """The commit git itself reports for ``path``, or "unknown"."""
    try:
        return subprocess.run(
            ["git", "-C", str(path), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _sha256_of_yaml(path: Path | None, *keys: str) -> str:
    """The documented config hash, computed without the provenance module from ``path`` (a whole
    config) or, when None, from the smoke layers merged."""
    value = smoke_config() if path is None else yaml.safe_load(path.read_text())
    for key in keys:
        value = value[key]
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------------
# The sidecar
# --------------------------------------------------------------------------------------------


def test_sidecar_records_version_git_and_config(run: Run) -> None:
    side = run.sidecar()
    assert (side["paper"], side["figure"]) == (PAPER, FIGURE)
    assert side["version"] == delayed_bandits.__version__ == metadata.version("delayed-bandits")
    assert side["git_commit"] == _head(REPO)
    assert re.fullmatch(r"[0-9a-f]{40}", side["git_commit"]) or side["git_commit"] == "unknown"
    assert side["git_dirty"] in ((True, False) if side["git_commit"] != "unknown" else (None,))
    assert side["config"]["paths"] == [str(CONFIG), str(SMOKE)]
    assert side["config"]["overrides"] == {}
    assert side["config"]["sha256"] == _sha256_of_yaml(None)
    assert side["config"]["figure_sha256"] == _sha256_of_yaml(None, "papers", PAPER, FIGURE)
    assert side["created_utc"].endswith("+00:00")
    assert side["table_sha256"] == hashlib.sha256(run.summaries[0].read_bytes()).hexdigest()


def test_config_hash_follows_the_config(run: Run, tmp_path: Path) -> None:
    smoke = smoke_config()
    other_figure = smoke_config()
    other_figure["papers"][PAPER]["fig1"]["horizon"] += 1
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(other_figure, allow_unicode=True))
    out = tmp_path / "summary.csv"
    code, err = _main(_aggregate(out, run.shards, changed))
    assert code == 0, err
    side = json.loads(tables.sidecar_path(out).read_text())
    before = run.sidecar()["config"]
    # Another figure's change shows in the config's hash but not in this figure's.
    assert side["config"]["sha256"] == _sha256_of_yaml(changed) != before["sha256"]
    assert side["config"]["figure_sha256"] == before["figure_sha256"]
    this_figure = smoke_config()
    this_figure["papers"][PAPER][FIGURE]["checkpoints"] += 1
    assert tables.config_hash(this_figure) != tables.config_hash(smoke)
    assert tables.config_hash(this_figure["papers"][PAPER][FIGURE]) != before["figure_sha256"]
    # Key order is not content.
    assert tables.config_hash(dict(reversed(smoke.items()))) == before["sha256"]


def _states(seq: np.random.SeedSequence) -> list[int]:
    return seq.generate_state(4).tolist()


def test_recorded_seeds_rederive_every_replication(run: Run) -> None:
    side = run.sidecar()
    record = side["seeds"]
    assert record["root"] == smoke_config()["seed"]
    assert list(record["settings"]) == [SETTING]
    entry = record["settings"][SETTING]
    assert entry["seed_setting"] == SETTING
    for algorithm, count in side["replications"][SETTING].items():
        for r in range(count):
            env, policy = np.random.SeedSequence(entry["entropy"] + [r]).spawn(2)
            want_env, want_policy = seeds.replication_seeds(
                record["root"], PAPER, FIGURE, SETTING, r
            )
            assert (_states(env), _states(policy)) == (_states(want_env), _states(want_policy))


def test_sweep_of_an_algorithm_parameter_records_the_shared_stream() -> None:
    # manegueu2020 fig2 sweeps alpha_tilde with `environment: false`: every value of the sweep
    # faces the listed setting's draws, so its seeds are those of "main", not "main-01".
    smoke = smoke_config()
    record = provenance.seed_record(smoke, "manegueu2020", "fig2", ["main-01"])
    entry = record["settings"]["main-01"]
    assert entry["seed_setting"] == "main"
    env, _ = np.random.SeedSequence(entry["entropy"] + [4]).spawn(2)
    want, _ = seeds.replication_seeds(smoke["seed"], "manegueu2020", "fig2", "main", 4)
    assert _states(env) == _states(want)


def test_replication_counts_are_those_found_in_the_shards(run: Run) -> None:
    found = pd.concat([pd.read_parquet(p) for p in run.shards])
    counts = found.groupby("algorithm")["replication"].nunique().to_dict()
    assert counts == {"d-ucb": 6, "d-klucb": 2}
    assert run.sidecar()["replications"] == {SETTING: counts}


def test_wall_time_adds_the_shards_and_the_aggregation(run: Run) -> None:
    side = run.sidecar()
    shard_meta = [provenance.read_shard_metadata(p) for p in run.shards]
    simulated = sum(m["wall_time_s"] for m in shard_meta)
    assert side["shards"]["count"] == len(SHARDS)
    assert side["shards"]["without_metadata"] == 0
    assert (
        side["shards"]["agent_steps"]
        == sum(last - first + 1 for _, first, last in SHARDS) * HORIZON
    )
    assert side["shards"]["wall_time_s"] == pytest.approx(simulated, rel=1e-12)
    wall = side["wall_time_s"]
    assert wall["simulation"] == side["shards"]["wall_time_s"] > 0
    assert wall["aggregation"] > 0
    assert wall["total"] >= simulated
    assert wall["total"] == pytest.approx(wall["simulation"] + wall["aggregation"], rel=1e-12)


def test_shards_without_metadata_are_counted_not_timed(run: Run, tmp_path: Path) -> None:
    # A shard without provenance (its content checksum and binding only): the sidecar says its
    # time is missing.
    old = tmp_path / "old.parquet"
    frame = pd.read_parquet(run.shards[2])
    made_by = provenance.binding(smoke_config(), PAPER, FIGURE, [(SETTING, "d-klucb")])
    write_parquet(frame, old, provenance.binding_metadata(made_by))
    out = tmp_path / "summary.csv"
    code, err = _main(_aggregate(out, [*run.shards[:2], old]))
    assert code == 0, err
    side = json.loads(tables.sidecar_path(out).read_text())
    assert (side["shards"]["count"], side["shards"]["without_metadata"]) == (3, 1)
    assert side["shards"]["agent_steps"] == 6 * HORIZON
    assert out.read_bytes() == run.summaries[0].read_bytes()


def test_summary_is_bit_identical_while_the_sidecars_may_differ(run: Run) -> None:
    first, second = (p.read_bytes() for p in run.summaries)
    assert first == second
    sides = [run.sidecar(i) for i in range(2)]
    assert sides[0]["table_sha256"] == sides[1]["table_sha256"] == hashlib.sha256(first).hexdigest()
    # The volatile fields live only in the sidecar.
    assert b"wall" not in first and b"created" not in first
    assert list(pd.read_csv(run.summaries[0]).columns) == [
        "setting",
        "algorithm",
        "t",
        "mean",
        "se",
        "q05",
        "q95",
        "n_runs",
    ]


# --------------------------------------------------------------------------------------------
# The shards
# --------------------------------------------------------------------------------------------


def test_shard_metadata_records_the_run(run: Run) -> None:
    side = run.sidecar()
    for path, (algorithm, first, last) in zip(run.shards, SHARDS):
        meta = provenance.read_shard_metadata(path)
        assert meta is not None, path
        n = last - first + 1
        assert meta["replications"] == n
        assert meta["agent_steps"] == n * HORIZON
        assert meta["wall_time_s"] > 0
        assert meta["steps_per_s"] == pytest.approx(n * HORIZON / meta["wall_time_s"])
        assert meta["version"] == delayed_bandits.__version__
        assert (meta["git_commit"], meta["git_dirty"]) == (side["git_commit"], side["git_dirty"])
        assert json.loads(pq.read_schema(path).metadata[b"delayed_bandits"]) == meta


def test_shard_numbers_do_not_depend_on_progress_or_metadata(run: Run) -> None:
    config = smoke_config()
    calls: list[tuple[int, int, int]] = []
    plain, _ = run_shard(config, PAPER, FIGURE, SETTING, "d-ucb", 3, 5)
    watched, _ = run_shard(
        config, PAPER, FIGURE, SETTING, "d-ucb", 3, 5, progress=lambda *a: calls.append(a)
    )
    pd.testing.assert_frame_equal(plain, watched, check_exact=True)
    assert calls == [(1, 3, HORIZON), (2, 3, 2 * HORIZON), (3, 3, 3 * HORIZON)]
    stored = pd.read_parquet(run.shards[1])
    plain.insert(0, "algorithm", "d-ucb")
    plain.insert(0, "setting", SETTING)
    pd.testing.assert_frame_equal(stored, plain, check_exact=True)
    # Same summary as from the same frames without any metadata.
    assert summarise(read_shards(run.shards, None)).equals(
        summarise(pd.concat([pd.read_parquet(p) for p in run.shards], ignore_index=True))
    )


# --------------------------------------------------------------------------------------------
# Progress and the closing log line
# --------------------------------------------------------------------------------------------


def test_each_shard_logs_one_line_and_no_progress_off_a_terminal(run: Run) -> None:
    """The shard's line, then the closing lines every job's log ends with: the command as run,
    and its wall time, CPU time and peak memory."""
    for err, (algorithm, first, last) in zip(run.stderr, SHARDS):
        assert "\r" not in err
        lines = err.splitlines()
        assert len(lines) == 3, err
        assert (
            lines[1].startswith("delayed-bandits simulate ")
            and f"--reps {first}-{last}" in lines[1]
        )
        assert re.fullmatch(r"done in [\d.]+ s wall, [\d.]+ s CPU, peak RSS \d+ MB", lines[2]), err
        match = LOG_LINE.match(lines[0])
        assert match, lines[0]
        label, a, b, reps, steps, _ = match.groups()
        assert label == f"{PAPER}/{FIGURE}/{SETTING}/{algorithm}"
        assert (int(a), int(b), int(reps)) == (first, last, last - first + 1)
        assert int(steps.replace(",", "")) == (last - first + 1) * HORIZON


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(_simulate(tmp_path / "shard.parquet", "d-ucb", 0, 5)) == 0
    text = terminal.getvalue()
    frames = text.split("\r")[1:]
    assert len(frames) >= 2  # at least the last replication's status, then the closing line
    assert re.search(r"6/6 replications, [\d,.]+ rep/s, [\d,]+ steps/s, 0 s left", frames[-2])
    closing = frames[-1]
    # the shard's line over the live one (padded to erase it), then the command and its time
    assert closing.endswith("\n") and closing.count("\n") == 3
    assert LOG_LINE.match(closing.splitlines()[0].rstrip())
    assert closing.splitlines()[2].startswith("done in ")


def test_progress_redraws_at_most_a_few_times_a_second() -> None:
    now = [0.0]
    terminal = _Terminal()
    bar = progress.Progress("shard x", terminal, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] += 0.01  # 100 replications in one second
        bar(done, 100, done * 10)
    draws = terminal.getvalue().count("\r")
    assert draws <= 1 / progress.MIN_REDRAW_S + 2
    assert "100/100 replications, 100.0 rep/s, 1,000 steps/s, 0 s left" in terminal.getvalue()
    assert (bar.done, bar.steps) == (100, 1000)


def test_progress_is_silent_off_a_terminal_but_counts() -> None:
    stream = io.StringIO()
    bar = progress.Progress("shard x", stream, clock=lambda: 1.0)
    bar(3, 10, 300)
    assert stream.getvalue() == "" and (bar.done, bar.steps) == (3, 300)
    bar.finish("closing")
    assert stream.getvalue() == "closing\n"


def test_status_and_closing_line_text() -> None:
    assert (
        progress.status(37, 100, 55_500, 3.0)
        == "37/100 replications, 12.3 rep/s, 18,500 steps/s, 5 s left"
    )
    assert progress.status(1, 1000, 10, 5.0).endswith("1 h 23 min left")
    assert progress.summary("shard a/b/c/d rep0-99", 100, 1_000_000, 12.3) == (
        "shard a/b/c/d rep0-99: 100 replications, 1,000,000 agent-steps in 12.3 s (81,301 steps/s)"
    )


# --------------------------------------------------------------------------------------------
# Git state, bad input, the workflow's rule
# --------------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_state_of_a_checkout(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "tracked.txt").write_text("a\n")
    _git(tmp_path, "add", "tracked.txt")
    _git(tmp_path, "commit", "-q", "-m", "first")
    head = _git(tmp_path, "rev-parse", "HEAD")
    assert provenance.git_state(tmp_path) == {"git_commit": head, "git_dirty": False}
    (tmp_path / "untracked.txt").write_text("b\n")
    assert provenance.git_state(tmp_path)["git_dirty"] is False
    (tmp_path / "tracked.txt").write_text("changed\n")
    assert provenance.git_state(tmp_path) == {"git_commit": head, "git_dirty": True}


def test_git_state_unknown_outside_a_checkout_or_without_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unknown = {"git_commit": "unknown", "git_dirty": None}
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert provenance.git_state(tmp_path) == unknown
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert provenance.git_state(REPO) == unknown


def test_aggregate_rejects_bad_arguments_and_writes_nothing(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "summary.csv"
    code, err = _main(
        [
            "aggregate",
            "--config",
            str(CONFIG),
            str(SMOKE),
            "--paper",
            PAPER,
            "--figure",
            "fig9",
            "--out",
            str(out),
            *map(str, run.shards),
        ]
    )
    assert code == 2 and "figure 'fig9'" in err and "fig1, fig2, fig3" in err
    assert list(tmp_path.iterdir()) == []


def test_summarise_rule_writes_the_sidecar(tmp_path: Path) -> None:
    copy_workflow(tmp_path)
    target = f"smoke/results/{PAPER}/{FIGURE}/summary.csv"
    dry = snakemake(tmp_path, target, "-n", "-p", "--cores", "1", timeout=120)
    assert dry.returncode == 0, dry.stderr[-2000:]
    assert re.search(
        rf"delayed-bandits aggregate --merged \S+ --paper {PAPER} --figure {FIGURE} --out "
        rf"{target} --provenance-html smoke/results/{PAPER}/{FIGURE}/summary\.provenance\.html",
        dry.stdout + dry.stderr,
    )
