"""Every command the README and docs/ give runs verbatim, at the scale it names: the `snakemake`
and `delayed-bandits` commands of sh blocks, and those in code spans of prose and tables; and
`make report` after either scale. Apart from tests/docs/test_docs.py (the text alone), so that the
workers of `make test` share the dry runs out."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import copy_workflow, run
from test_docs import ROOT, _fenced, _pages

# `snakemake ...` or `delayed-bandits ...` in a code span of the prose or of a table (a span may
# wrap across lines); one with a placeholder (<paper>, [--paper P], ...) is a pattern, not a command
_SPAN = re.compile(r"`((?:snakemake|delayed-bandits) [^`]+)`")
_PLACEHOLDER = re.compile(r"[<\[…]|\.\.\.")
# Spans that name a command rather than give one: run, they would start a whole benchmark or
# stop for want of their required arguments.
_NAMES = {
    "delayed-bandits render",
    "delayed-bandits bench",
    "delayed-bandits simulate",
    "delayed-bandits validate",
    "delayed-bandits quote",
    "delayed-bandits leaderboard",
    "delayed-bandits families",
    "delayed-bandits screen",
}


def _documented_commands() -> list[str]:
    """Every `snakemake` and `delayed-bandits` command of the README and the docs, in their sh
    blocks (without the comment) and in code spans of prose and tables; the SLURM ones run in
    `make test-cluster`, the `make` targets are CI's and ``test_make_report_*``'s."""
    found = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for block in _fenced(text, "sh"):
            for line in block.splitlines():
                command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
                if command.startswith(("snakemake", "delayed-bandits")):
                    found.append(command)
        for span in _SPAN.findall(text):
            command = " ".join(span.split())
            if not _PLACEHOLDER.search(command) and command not in _NAMES:
                found.append(command)
    return list(dict.fromkeys(c for c in found if "slurm" not in c))


def _smoke(command: str) -> bool:
    """A command at the smoke scale: it names the smoke overlay, or the smoke run's folder as the
    run it reads (`delayed-bandits verify smoke`)."""
    return "config/smoke.yaml" in command or command.split()[-1] == "smoke"


# What a `snakemake` command that runs jobs needs to run as written (Snakemake refuses to start
# without a core count: "cores have to be specified"), and the options of one that runs none.
_CORES = ("--cores", "-c", "--jobs", "-j", "--profile")
_NO_JOBS = (
    "-n",
    "--dry-run",
    "--dryrun",
    "--unlock",
    "--lint",
    "--summary",
    "--detailed-summary",
    "--list-rules",
)


def _missing_cores(command: str) -> bool:
    """A `snakemake` command that would run jobs and names no core count (nor a profile that
    sets one): as written, it stops before any job."""
    args = shlex.split(command)
    if args[0] != "snakemake" or any(a in _NO_JOBS for a in args):
        return False
    return not any(a in _CORES or a.startswith(tuple(f"{c}=" for c in _CORES)) for a in args)


def test_documented_snakemake_commands_name_their_cores() -> None:
    """Each documented `snakemake` command runs as written: the dry runs below add `-n`, which
    would hide a missing --cores."""
    missing = [c for c in _documented_commands() if _missing_cores(c)]
    assert not missing, missing


def _run_verbatim(command: str, work: Path, dry: bool) -> None:
    args = shlex.split(command)
    if args[:2] == ["delayed-bandits", "bench"] or (
        args[:2] == ["delayed-bandits", "quote"] and ("--run" in args or "--write" in args)
    ):
        # A measurement of minutes (every arena kernel and its Python reference), a command
        # reading a run of an hour or more (the citable arena run of `make arena-full`, the
        # paper-scale run of `make figures`), or one rewriting the checkout's docs (`quote
        # entrants --write`; tests/docs/test_extending.py runs it in a copy of the repository),
        # not a step of a run: its arguments are parsed by the command's own parser, so a renamed
        # option fails.
        from delayed_bandits.cli import _parser

        _parser().parse_args(args[1:])
        return
    if dry and args[0] == "snakemake" and "-n" not in args and "--unlock" not in args:
        assert not _missing_cores(command), f"{command}: runs no job as written (no --cores)"
        args.insert(1, "-n")
    done = run(args, work)
    assert done.returncode == 0, f"{command}:\n{done.stderr[-2000:]}"
    if "-p" in args:
        assert "delayed-bandits " in done.stdout + done.stderr, command


def test_documented_commands_are_found() -> None:
    """The commands of prose and tables are seen, not only those of sh blocks: the artifact
    evaluation's check of every figure and its smoke-scale example among them."""
    commands = _documented_commands()
    text = (ROOT / "docs" / "artifact-evaluation.md").read_text(encoding="utf-8")
    checks = re.findall(r"^Check and draw: `([^`]+)`", text, re.MULTILINE)
    assert checks and set(checks) <= set(commands), sorted(set(checks) - set(commands))
    assert any(_smoke(c) and c.startswith("snakemake ") for c in commands), commands
    assert any(c.startswith("snakemake -n -p") for c in commands), commands


@pytest.mark.slow
def test_documented_commands_run_verbatim(tmp_path: Path) -> None:
    """Each paper-scale command runs as written, in a copy of the workflow, with the overlay
    example of docs/auditing.md as my.yaml; a `snakemake` command that would run jobs runs as a
    dry run (`-n` added: the paper scale takes minutes), and one that prints commands (`-p`) must
    print the jobs' commands; a `delayed-bandits bench` command is parsed, not run."""
    work = copy_workflow(tmp_path)
    [overlay] = _fenced((ROOT / "docs" / "auditing.md").read_text(encoding="utf-8"), "yaml")
    (work / "my.yaml").write_text(overlay)
    for command in _documented_commands():
        if not _smoke(command):
            _run_verbatim(command, work, dry=True)


@pytest.mark.slow
def test_documented_smoke_commands_run_for_real(smoke_run: Path, tmp_path: Path) -> None:
    """Each smoke-scale command runs as written, for real, in a copy of a finished smoke run (so
    each finds its target in the workflow and has, at most, its own jobs to do)."""
    work = tmp_path / "run"
    shutil.copytree(smoke_run, work, symlinks=True)
    commands = [c for c in _documented_commands() if _smoke(c)]
    assert commands
    for command in commands:
        _run_verbatim(command, work, dry=False)


def _make(work: Path, *args: str) -> subprocess.CompletedProcess:
    """``make ARGS`` with the repository's Makefile in ``work``, the environment taken as set up
    (``-o``: the setup target is not remade)."""
    return run(["make", "-f", str(ROOT / "Makefile"), "-o", ".venv/.installed", *args], work)


@pytest.mark.slow
def test_make_report_after_the_quick_check(smoke_run: Path, tmp_path: Path) -> None:
    """`make report` after the smoke run alone reports on it, in smoke/report.html."""
    work = tmp_path / "run"
    shutil.copytree(smoke_run, work, symlinks=True)
    (work / "report.html").unlink(missing_ok=True)  # another test's report of the same run
    done = _make(work, "report")
    assert done.returncode == 0, done.stderr[-2000:]
    page = work / "smoke" / "report.html"
    assert page.stat().st_size > 100_000 and not (work / "report.html").exists()


def test_make_report_without_a_run_says_which_run_it_needs(tmp_path: Path) -> None:
    run = _make(copy_workflow(tmp_path), "report")
    assert run.returncode != 0
    assert "make figures" in run.stderr and "config/smoke.yaml" in run.stderr, run.stderr
