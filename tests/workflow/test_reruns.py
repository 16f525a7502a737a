"""An edit of the package's sources makes the results it could change out of date by itself: every
rule that runs ``delayed-bandits`` takes a hash of the sources as a parameter (the simulating
modules' for the rules that simulate, ``software.simulation_sha256``; the whole package's for the
others, ``software.source_sha256``), and Snakemake reruns a job whose parameters changed
(docs/auditing.md, "When results are redone")."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import BIN, SNAKEMAKE_ENV, run, smoke_config
from delayed_bandits import software


def test_the_source_hash_follows_edits_not_touches(tmp_path: Path) -> None:
    package = tmp_path / "delayed_bandits"
    shutil.copytree(software.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = software.source_sha256(package)
    assert before == software.source_sha256()
    kernel = package / "queues.py"
    os.utime(kernel, (1, 1))  # a touch, or a fresh clone's new modification times
    assert software.source_sha256(package) == before
    kernel.write_text(kernel.read_text() + "\n# an edit\n")
    assert software.source_sha256(package) != before
    kernel.rename(package / "renamed.py")
    assert software.source_sha256(package) not in (before, software.source_sha256())


def test_the_simulation_hash_follows_the_simulating_modules_only(tmp_path: Path) -> None:
    package = tmp_path / "delayed_bandits"
    shutil.copytree(software.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    named = [p.relative_to(package).as_posix() for p in software.simulation_files(package)]
    for pattern in software.SIMULATION:  # a renamed module would leave its pattern naming none
        assert [n for n in named if Path(n).match(pattern)], pattern
    for folder in (
        "arena",
        "papers/manegueu2020",
        "papers/pikeburke2018",
        "papers/thune2019",
        "papers/vernade2017",
        "papers/vernade2020",
    ):
        assert {f"{folder}/{m}.py" for m in ("experiment", "kernels", "policies")} <= set(named)
    assert not [n for n in named if n.endswith(("claims.py", "plots.py", "digest.py"))]
    sim, source = software.simulation_sha256(package), software.source_sha256(package)
    assert sim == software.simulation_sha256() != source
    claims = package / "papers" / "vernade2017" / "claims.py"
    claims.write_text(claims.read_text() + "\n# an unrelated edit\n")
    assert software.simulation_sha256(package) == sim
    assert software.source_sha256(package) != source
    kernel = package / "papers" / "vernade2017" / "kernels.py"
    kernel.write_text(kernel.read_text() + "\n# an edit of a kernel\n")
    assert software.simulation_sha256(package) != sim
    # what a simulating module imports is in, named by no pattern: the observation layer, and a
    # new module that a kernel comes to import, relatively or not
    assert {"arena/observe.py", "grid.py"} <= set(named)
    sim = software.simulation_sha256(package)
    (package / "shortcut.py").write_text("PEEK = True\n")
    (package / "arena" / "late.py").write_text("LATE = 1\n")
    assert software.simulation_sha256(package) == sim
    kernel.write_text(kernel.read_text() + "from delayed_bandits.shortcut import PEEK\n")
    arena = package / "arena" / "kernels.py"
    arena.write_text(arena.read_text() + "from .late import LATE\n")
    added = {p.relative_to(package).as_posix() for p in software.simulation_files(package)}
    assert {"shortcut.py", "arena/late.py"} <= added
    sim = software.simulation_sha256(package)
    (package / "shortcut.py").write_text("PEEK = False\n")
    assert software.simulation_sha256(package) != sim


def test_the_environment_names_the_versions_and_the_lock() -> None:
    env = software.environment()
    assert {"python", "numpy", "numba", "snakemake", "lock_sha256", "source_sha256"} <= set(env)
    assert env["simulation_sha256"] == software.simulation_sha256()
    assert env["numpy"] == __import__("numpy").__version__
    assert env["source_sha256"] == software.source_sha256()


def test_lock_hash_is_what_setup_recorded(tmp_path: Path) -> None:
    assert software.lock_sha256(tmp_path) == software.UNKNOWN
    (tmp_path / software.LOCK_MARKER).write_text("f" * 64 + "\n")
    assert software.lock_sha256(tmp_path) == "f" * 64


def _dry_run(work: Path, pythonpath: Path) -> subprocess.CompletedProcess:
    env = dict(SNAKEMAKE_ENV, PYTHONPATH=str(pythonpath))
    return run([f"{BIN}/snakemake", "-n", "--configfile", "config/smoke.yaml"], work, env)


@pytest.mark.slow
def test_an_edit_of_the_sources_reruns_the_jobs(smoke_run: Path, tmp_path: Path) -> None:
    """A finished smoke run, with the package taken from a copy of its sources (PYTHONPATH comes
    before the editable install): nothing to do while the copy is unchanged; after an edit of a
    claim, the tables and figures are out of date and the runs are not; after an edit of a
    kernel, every job is, and says why."""
    work = tmp_path / "run"
    shutil.copytree(smoke_run, work, symlinks=True)
    src = tmp_path / "src"
    shutil.copytree(
        software.PACKAGE_DIR, src / "delayed_bandits", ignore=shutil.ignore_patterns("__pycache__")
    )
    same = _dry_run(work, src)
    assert same.returncode == 0, same.stderr[-2000:]
    assert "Nothing to be done" in same.stdout + same.stderr, (same.stdout + same.stderr)[-2000:]

    claims = src / "delayed_bandits" / "papers" / "vernade2017" / "claims.py"
    claims.write_text(claims.read_text() + "\n# an edit\n")
    tables = _dry_run(work, src)
    assert tables.returncode == 0, tables.stderr[-2000:]
    text = tables.stdout + tables.stderr
    assert "Params have changed since last execution" in text, text[-2000:]
    assert re.search(r"^(claims|summarise)\s+\d+", text, re.MULTILINE), text[-3000:]
    assert not re.search(r"^(simulate\w*|contest)\s+\d+", text, re.MULTILINE), text[-3000:]

    kernel = src / "delayed_bandits" / "queues.py"
    kernel.write_text(kernel.read_text() + "\n# an edit\n")
    edited = _dry_run(work, src)
    assert edited.returncode == 0, edited.stderr[-2000:]
    text = edited.stdout + edited.stderr
    assert "Params have changed since last execution" in text, text[-2000:]
    jobs = re.search(r"^total\s+(\d+)", text, re.MULTILINE)
    shards = len(list((work / "smoke/results").rglob("rep*-*[0-9].parquet")))
    assert jobs and int(jobs[1]) > shards > 0, text[-3000:]


@pytest.mark.slow
def test_a_changed_seed_reruns_the_shards_and_says_so_briefly(smoke_run: Path, tmp_path: Path):
    """``--config seed=3`` changes every shard's spec: each is out of date, and its rerun reason
    names the changed params by their hash, not the whole spec (once 1.7 MB a line)."""
    work = tmp_path / "run"
    shutil.copytree(smoke_run, work, symlinks=True)
    args = [f"{BIN}/snakemake", "-n", "--configfile", "config/smoke.yaml", "--config", "seed=3"]
    dry = run(args, work)
    text = dry.stdout + dry.stderr
    assert dry.returncode == 0, text[-2000:]
    shards = len(list((work / "smoke/results").rglob("rep*-*[0-9].parquet")))
    assert text.count("Params have changed since last execution") >= shards > 0, text[-2000:]
    # the reasons that name changed params are short; a reason listing the input files updated
    # by other jobs (rule all's: every figure) is as long as its list, and is not a dump
    params = [line for line in text.splitlines() if "Params have changed" in line]
    assert max(map(len, params)) < 2000 and len(text) < 400 * shards + 200_000


LOADED = """
import json, sys
from delayed_bandits import curves, simulate
made = json.load(open(sys.argv[1]))
for paper, figures in made["papers"].items():
    name, fig = next((n, f) for n, f in figures.items() if "replications" in f)
    setting, algorithm = curves.curves(paper, name, fig)[0]
    simulate.run_job(made, paper, name, [setting], [algorithm], 0, 0)
print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()
                        if n.startswith("delayed_bandits") and getattr(m, "__file__", None))))
"""


def test_a_run_loads_no_package_module_outside_the_simulating_ones(tmp_path: Path) -> None:
    """What the hash of the simulating modules covers, checked against what a process that ran a
    job of each paper imported, by name included (the registry loads experiments so). The config
    comes merged, as the workflow's jobs get it (``--merged``)."""
    merged = tmp_path / "merged.json"
    merged.write_text(json.dumps(smoke_config()))
    done = subprocess.run(
        [sys.executable, "-c", LOADED, str(merged)], capture_output=True, text=True, check=True
    )
    loaded = {Path(p).resolve() for p in json.loads(done.stdout.splitlines()[-1])}
    assert loaded - set(software.simulation_files()) == set()
    assert len(loaded) > 20
