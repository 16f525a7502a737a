"""The speed digest (``delayed_bandits.speed``): every job and every test counted once, by stage
and by file, and the times kept apart from what a rerun must reproduce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from delayed_bandits import benchmarks, provenance, quoted, speed
from delayed_bandits.errors import ConfigError

BENCH = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _job(run: Path, path: str, s: float, cpu: float) -> None:
    (run / "benchmarks" / path).parent.mkdir(parents=True, exist_ok=True)
    (run / "benchmarks" / path).write_text(BENCH + f"{s}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n")


def _tests(run: Path, tier: str, cases: list[tuple[str, float]]) -> None:
    (run / speed.TEST_TIMES).mkdir(exist_ok=True)
    body = "".join(
        f'<testcase classname="{c}" name="t{i}" time="{s}"/>' for i, (c, s) in enumerate(cases)
    )
    (run / speed.TEST_TIMES / f"{tier}.xml").write_text(
        f'<testsuites><testsuite name="pytest">{body}</testsuite></testsuites>'
    )


@pytest.fixture
def run(tmp_path: Path) -> Path:
    _job(tmp_path, "arena/regret/rep0-0.tsv", 20.0, 18.0)
    _job(tmp_path, "arena/regret/rep1-1.tsv", 22.0, 19.0)
    _job(tmp_path, "arena/regret/summary.tsv", 2.0, 1.5)
    _job(tmp_path, "vernade2017/fig1/rep0-199.tsv", 9.0, 8.0)
    _job(tmp_path, "claims.tsv", 1.0, 0.5)
    _tests(
        tmp_path,
        "fast",
        [("tests.test_a", 1.0), ("tests.test_a", 2.0), ("tests.arena.test_b", 0.5)],
    )
    return tmp_path


def test_jobs_by_paper_and_stage_and_tests_by_file(run: Path) -> None:
    d = speed.digest(run)
    assert d["jobs"] == {speed.EVERY_PAPER: 1, "arena": 3, "vernade2017": 1}
    assert d["stages"] == {"claims": 1, "rep": 3, "summary": 1}
    assert d["tests"] == {"fast tests/arena/test_b.py": 1, "fast tests/test_a.py": 2}
    papers = {r["paper"]: r for r in d["cost"]["papers"]}
    assert papers["arena"]["cpu_s"] == 38.5 and papers["arena"]["longest_s"] == 22.0
    blocks = speed.blocks(d)
    assert "| arena | 3 | 38 | 82% | 22 | 1 |" in blocks["speed-papers"]
    assert "| `rep` | 3 | 45 | 15.0 |" in blocks["speed-stages"]
    assert "| `tests/test_a.py` | 2 | 3.0 | 86% |" in blocks["speed-tests-fast"]
    assert blocks["speed-tests-slow"].startswith("Not timed")


def test_a_jobs_cpu_time_is_its_logs_count_where_the_log_has_one(run: Path) -> None:
    """Snakemake samples a long job's CPU every 30 s and misses its end; the job's own count, the
    last line of its log, replaces the sample. A log without that line (a failed job) does not."""
    log = run / "logs/arena/regret/rep0-0.log"
    log.parent.mkdir(parents=True)
    log.write_text(
        "delayed-bandits simulate ...\ndone in 41.50 s wall, 40.25 s CPU, peak RSS 300 MB\n"
    )
    (run / "logs/arena/regret/rep1-1.log").write_text("Traceback (most recent call last):\n")
    cpu = dict(zip(*benchmarks.read(run)[["job", "cpu_s"]].to_dict("list").values()))
    assert cpu["arena/regret/rep0-0.tsv"] == 40.25  # not the benchmark's 18.0
    assert cpu["arena/regret/rep1-1.tsv"] == 19.0
    assert benchmarks.logged_cpu_s(run / "logs/arena/regret/summary.log") is None


def test_a_rerun_is_held_to_its_jobs_and_tests_not_its_times(run: Path) -> None:
    d = speed.digest(run)
    _job(run, "arena/regret/rep0-0.tsv", 40.0, 36.0)  # slower, the same jobs
    assert quoted.differences(quoted.checked(d), quoted.checked(speed.digest(run))) == []
    _job(run, "arena/regret/rep2-2.tsv", 20.0, 18.0)  # one job more
    assert quoted.differences(quoted.checked(d), quoted.checked(speed.digest(run)))


def test_a_run_without_benchmarks_or_test_times_is_named(tmp_path: Path, run: Path) -> None:
    with pytest.raises(ConfigError, match="no benchmarks/"):
        speed.digest(tmp_path / "empty")
    (run / speed.TEST_TIMES / "fast.xml").unlink()
    with pytest.raises(ConfigError, match="make test"):
        speed.digest(run)


def test_the_digest_names_the_commits_it_measured(run: Path) -> None:
    """The page states which commits its tables measured, from the run: the jobs' from their
    shards' records, each tier's from the file its session wrote; never from prose."""
    blocks = speed.blocks(speed.digest(run))
    assert blocks["speed-measured"] == (
        "Measured: `make figures`' jobs ran at commit not recorded; `make test` at not recorded."
    )
    record = run / "results/arena/regret/summary.provenance.json"
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps(
            {
                "shards": {"git_commits": ["a" * 40, "b" * 40]},
                "shard_environments": [{"source_sha256": "s"}],
            }
        )
    )
    state = {"git_commit": "c" * 40, "git_dirty": True}
    (run / speed.TEST_TIMES / f"fast{speed.COMMIT_SUFFIX}").write_text(json.dumps(state))
    d = speed.digest(run)
    assert speed.blocks(d)["speed-measured"] == (
        f"Measured: `make figures`' jobs ran at commit `{'a' * 12}`, `{'b' * 12}`; "
        f"`make test` at `{'c' * 12}` (modified)."
    )
    assert "provenance" not in quoted.checked(d)  # another commit may measure the same suite


def test_a_timed_session_writes_its_commit_beside_its_times(tmp_path: Path) -> None:
    """What tests/conftest.py writes beside a --junitxml session's XML, read back above."""
    xml = tmp_path / speed.TEST_TIMES / "fast.xml"
    tree = Path(__file__).parent
    path = speed.write_commit(xml, tree)
    assert path == tmp_path / speed.TEST_TIMES / f"fast{speed.COMMIT_SUFFIX}"
    assert json.loads(path.read_text()) == provenance.git_state(tree)
    assert json.loads(speed.write_commit(xml, tmp_path).read_text()) == {
        "git_commit": provenance.UNKNOWN,
        "git_dirty": None,
    }  # outside a checkout
