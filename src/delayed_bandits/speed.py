"""Where a run's time goes: the speed digest that docs/speed.md quotes (``delayed-bandits quote
speed --run . --write``), from Snakemake's benchmark of every job of the run (``benchmarks/``)
and pytest's timing of every test of ``make test`` and ``make test-slow`` (``test-times/``,
JUnit XML, which both targets write).

A job's stage is its benchmark's name without its replication range (``rep0-9`` is a
simulation, ``contest10-79`` the arena's contest, ``summary`` a summary, and so on; a rendered
notebook's is ``notebook``), and its paper the benchmark's first folder (``reports`` for the
notebooks). The seconds are each job's
CPU time (its log's own count, ``benchmarks``) and pytest's per-test wall time.
The times are under ``cost``, which a check of a rerun leaves out (``quoted.checked``): two runs
never take the same time, but they run the same jobs and the same tests. So is ``provenance``:
what the jobs' shards recorded (``quoted.pooled``) and the commit each tier's tests ran at
(``<tier>.commit.json``, which the test session writes beside its XML: tests/conftest.py), so
that the page states what it measured, not what its prose remembers."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from delayed_bandits import benchmarks, provenance, quoted
from delayed_bandits.errors import ConfigError

TEST_TIMES = "test-times"  # under the run's directory: <tier>.xml, written by make test, test-slow
TIERS = ("fast", "slow")  # make test, make test-slow
SHOWN_FILES = 15  # test files a tier's table lists, the slowest; one row sums the rest
EVERY_PAPER = "(every paper)"  # the job at benchmarks/'s top: the run's claims page
REPORTS, NOTEBOOK = "reports", "notebook"  # benchmarks/reports/<notebook>.tsv: a rendering
COMMIT_SUFFIX = ".commit.json"  # beside <tier>.xml: provenance.git_state of the tests' tree
UNRECORDED = "not recorded"  # a tier timed without its commit file, or jobs without records


def _jobs(run: Path) -> pd.DataFrame:
    jobs = benchmarks.read(run)
    paper = [p.split("/")[0] if "/" in p else EVERY_PAPER for p in jobs.job]
    return jobs.assign(paper=paper, stage=jobs.stage.where([p != REPORTS for p in paper], NOTEBOOK))


def _tests(run: Path) -> pd.DataFrame:
    rows = []
    timed = [tier for tier in TIERS if (run / TEST_TIMES / f"{tier}.xml").is_file()]
    if not timed:
        raise ConfigError(
            f"--run: {run / TEST_TIMES} holds no {', '.join(f'{t}.xml' for t in TIERS)} (run "
            "`make test` there first, and `make test-slow` for the end-to-end tier)"
        )
    for tier in timed:
        path = run / TEST_TIMES / f"{tier}.xml"
        for case in ET.parse(path).iter("testcase"):
            module = case.get("classname", "").split("::")[0]
            rows.append(
                {
                    "tier": tier,
                    "file": "tests/" + "/".join(module.split(".")[1:]) + ".py",
                    "s": float(case.get("time", 0.0)),
                }
            )
    return pd.DataFrame(rows)


def write_commit(xml: Path, tree: Path) -> Path:
    """Write, beside a test session's JUnit XML ``xml``, the commit of the tree ``tree`` that the
    session runs (``provenance.git_state``), which ``digest`` reads; its path."""
    path = xml.with_suffix(COMMIT_SUFFIX)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(provenance.git_state(tree)) + "\n")
    return path


def _commits(run: Path) -> dict[str, Any]:
    """What the run's shards recorded (every figure's summary record, ``quoted.pooled``), and
    the git state each timed tier ran at (None where its session wrote none)."""
    tiers = {}
    for tier in TIERS:
        if (run / TEST_TIMES / f"{tier}.xml").is_file():
            path = run / TEST_TIMES / f"{tier}{COMMIT_SUFFIX}"
            tiers[tier] = json.loads(path.read_text()) if path.is_file() else None
    records = sorted((run / "results").glob("*/*/summary.provenance.json"))
    shards = quoted.pooled(provenance.digested(json.loads(p.read_text())) for p in records)
    return {**shards, "tests": tiers}


def test_seconds(d: Mapping[str, Any]) -> dict[str, float]:
    """Each test file's time in the digest ``d``, both tiers added."""
    out: dict[str, float] = {}
    for row in d["cost"]["tests"]:
        out[row["file"]] = out.get(row["file"], 0.0) + row["s"]
    return out


def digest(run: Path) -> dict[str, Any]:
    """The speed digest of the run in ``run``: every job's stage and CPU time, and every test
    file's tier and time."""
    jobs, tests = _jobs(run), _tests(run)
    by_paper = jobs.groupby("paper").agg(
        jobs=("cpu_s", "size"),
        cpu_s=("cpu_s", "sum"),
        longest_s=("s", "max"),
        peak_mb=("peak_mb", "max"),
    )
    by_stage = jobs.groupby("stage").agg(jobs=("cpu_s", "size"), cpu_s=("cpu_s", "sum"))
    by_file = tests.groupby(["tier", "file"]).agg(tests=("s", "size"), s=("s", "sum"))
    return {
        "provenance": _commits(run),
        "jobs": {paper: int(n) for paper, n in by_paper.jobs.items()},
        "stages": {stage: int(n) for stage, n in by_stage.jobs.items()},
        "tests": {f"{tier} {file}": int(n) for (tier, file), n in by_file.tests.items()},
        "cost": {
            "papers": [
                {
                    "paper": p,
                    "cpu_s": float(r.cpu_s),
                    "longest_s": float(r.longest_s),
                    "peak_mb": float(r.peak_mb),
                }
                for p, r in by_paper.iterrows()
            ],
            "stages": [{"stage": s, "cpu_s": float(r.cpu_s)} for s, r in by_stage.iterrows()],
            "tests": [
                {"tier": tier, "file": file, "s": float(r.s)}
                for (tier, file), r in by_file.iterrows()
            ],
        },
    }


def _table(header: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _measured(made: Mapping[str, Any]) -> str:
    """Which commits the tables measured: the jobs' and each tier's."""

    def named(commits: list[str], dirty: bool = False) -> str:
        shown = ", ".join(f"`{c[:12]}`" for c in commits) or UNRECORDED
        return shown + (" (modified)" if dirty else "")

    tiers = {"fast": "`make test`", "slow": "`make test-slow`"}
    parts = [f"`make figures`' jobs ran at commit {named(made['git_commits'])}"]
    parts += [
        f"{tiers[t]} at "
        + (UNRECORDED if state is None else named([state["git_commit"]], bool(state["git_dirty"])))
        for t, state in made["tests"].items()
    ]
    return "Measured: " + "; ".join(parts) + "."


def blocks(d: Mapping[str, Any]) -> dict[str, str]:
    """docs/speed.md's blocks: the commits measured, the jobs' CPU time by paper and by stage,
    and the tests' time by file in each tier, the largest first."""
    cost = d["cost"]
    papers = sorted(cost["papers"], key=lambda r: -r["cpu_s"])
    stages = sorted(cost["stages"], key=lambda r: -r["cpu_s"])
    total = sum(r["cpu_s"] for r in papers)
    out = {
        "speed-measured": _measured(d["provenance"]),
        "speed-papers": _table(
            ("paper", "jobs", "CPU s", "share", "longest job, s", "largest peak RSS, MB"),
            [
                (
                    r["paper"],
                    d["jobs"][r["paper"]],
                    f"{r['cpu_s']:,.0f}",
                    f"{r['cpu_s'] / total:.0%}",
                    f"{r['longest_s']:,.0f}",
                    f"{r['peak_mb']:,.0f}",
                )
                for r in papers
            ]
            + [
                (
                    "total",
                    sum(d["jobs"].values()),
                    f"{total:,.0f}",
                    "100%",
                    f"{max(r['longest_s'] for r in papers):,.0f}",
                    f"{max(r['peak_mb'] for r in papers):,.0f}",
                )
            ],
        ),
        "speed-stages": _table(
            ("stage", "jobs", "CPU s", "per job, s"),
            [
                (
                    f"`{r['stage']}`",
                    d["stages"][r["stage"]],
                    f"{r['cpu_s']:,.0f}",
                    f"{r['cpu_s'] / d['stages'][r['stage']]:.1f}",
                )
                for r in stages
            ],
        ),
    }
    for tier in TIERS:
        files = sorted((r for r in cost["tests"] if r["tier"] == tier), key=lambda r: -r["s"])
        if not files:
            out[f"speed-tests-{tier}"] = f"Not timed in this digest (no {TEST_TIMES}/{tier}.xml)."
            continue
        spent = sum(r["s"] for r in files)
        count = {r["file"]: d["tests"][f"{tier} {r['file']}"] for r in files}
        rest = files[SHOWN_FILES:]
        out[f"speed-tests-{tier}"] = _table(
            ("file", "tests", "s", "share"),
            [
                (f"`{r['file']}`", count[r["file"]], f"{r['s']:,.1f}", f"{r['s'] / spent:.0%}")
                for r in files[:SHOWN_FILES]
            ]
            + (
                [
                    (
                        f"the other {len(rest)} files",
                        sum(count[r["file"]] for r in rest),
                        f"{sum(r['s'] for r in rest):,.1f}",
                        f"{sum(r['s'] for r in rest) / spent:.0%}",
                    )
                ]
                if rest
                else []
            )
            + [("total", sum(count.values()), f"{spent:,.0f}", "100%")],
        )
    return out
