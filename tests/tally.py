"""The tally of the reliability probes, made by the probes themselves: docs/auditing.md's marked
block ``<!-- quoted: probe-tally -->`` is what the last full run of them produced, never typed.

A probe is a test marked ``@pytest.mark.probe("group")``: each of its cases is one bad input,
fault or hostile entrant tried, and its outcome is one of ``OUTCOMES``. A case's outcome is what
the test records through the ``probe`` fixture (``probe.saw``, ``probe.cli``, ``probe.refused``),
or, when it records none, what the test's result says: passed, it was refused with a named error
(a probe asserts that); failed, see ``from_failure``. ``conftest.py`` collects them and, at the
end of a session that ran every probe, holds the block to them (``check``)."""

from __future__ import annotations

import subprocess
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

REFUSED = "refused with a named error"
TRACEBACK = "traceback"
SILENT = "silently wrong"
HANG = "hang"
OUTCOMES = (REFUSED, TRACEBACK, SILENT, HANG)
"""What became of a case: the goal is every case refused with a named error."""

MARK = "@pytest.mark.probe("
"""How a test file marks a probe: a session that leaves out such a file ran only some probes."""

PROPERTY = "probe_outcome"
"""The key of a case's outcome among the test's ``user_properties`` (pytest carries them from
pytest-xdist's workers to the process that reports)."""

DOC = Path(__file__).resolve().parents[1] / "docs" / "auditing.md"
BLOCK = "probe-tally"
WRITE = "DELAYED_BANDITS_WRITE_TALLY"
"""Set to 1, a full run of the probes rewrites the block instead of failing on a stale one."""


def of_cli(code: int | None, err: str) -> str:
    """The outcome of a command that should have refused its input: ``code`` None when it did not
    end in time (a hang), a traceback in its output, exit code 0 (accepted: whatever it wrote is
    wrong), else a refusal with a named error."""
    if code is None:
        return HANG
    if "Traceback (most recent call last)" in err:
        return TRACEBACK
    return SILENT if code == 0 else REFUSED


def from_failure(excinfo: pytest.ExceptionInfo) -> str:
    """The outcome of a probe that failed without recording one: a timeout is a hang, an
    assertion that quotes a traceback (``"Traceback" not in err``) or any exception but an
    assertion is a traceback, any other assertion a wrong result taken silently."""
    if excinfo.errisinstance(subprocess.TimeoutExpired):
        return HANG
    if not excinfo.errisinstance(AssertionError) or "Traceback" in str(excinfo.value):
        return TRACEBACK
    return SILENT


@dataclass
class Probe:
    """The ``probe`` fixture: what a probe test records of its cases."""

    node: pytest.Item
    seen: int = 0

    def saw(self, outcome: str, cases: int = 1) -> None:
        """Record ``cases`` cases of ``outcome`` (one of ``OUTCOMES``)."""
        if outcome not in OUTCOMES:
            raise ValueError(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)}")
        self.node.user_properties.append((PROPERTY, (outcome, cases)))
        self.seen += cases

    def cli(self, code: int | None, err: str) -> str:
        """Record the outcome of a command that should refuse its input (``of_cli``), and
        return it, for the test to assert."""
        outcome = of_cli(code, err)
        self.saw(outcome)
        return outcome

    @contextmanager
    def refused(self, error: type[BaseException], match: str = "") -> Iterator[list]:
        """A block that should raise ``error`` with ``match`` in its message: recorded as refused
        when it does, as a traceback when something else escapes, as silently wrong when nothing
        does; the test fails in the last two cases. Yields a list that holds the error raised."""
        caught: list[BaseException] = []
        try:
            yield caught
        except error as exc:
            caught.append(exc)
            self.saw(REFUSED if match in str(exc) else TRACEBACK)
            assert match in str(exc), f"{exc!r} does not say {match!r}"
            return
        except BaseException:
            self.saw(TRACEBACK)
            raise
        self.saw(SILENT)
        pytest.fail(f"nothing was raised; expected {error.__name__} ({match!r})")


@dataclass
class Tally:
    """The probes of a session: the cases seen by group and outcome, and the probe tests
    collected, deselected and reported (to tell a full run of them from a partial one)."""

    cases: Counter = field(default_factory=Counter)  # (group, outcome) -> cases
    collected: set[str] = field(default_factory=set)
    deselected: set[str] = field(default_factory=set)
    reported: set[str] = field(default_factory=set)
    problem: str = ""  # what ``check`` found wrong with the block, at the session's end

    def add(self, group: str, outcome: str, cases: int) -> None:
        self.cases[group, outcome] += cases

    def merge(self, other: dict) -> None:
        """Add what a pytest-xdist worker collected (``to_worker_output``)."""
        self.collected |= set(other["collected"])
        self.deselected |= set(other["deselected"])

    def to_worker_output(self) -> dict:
        return {"collected": sorted(self.collected), "deselected": sorted(self.deselected)}

    def complete(self) -> bool:
        """Whether every probe test ran: each test file that marks a probe was collected, and
        every probe collected was reported, none deselected."""
        files = {nodeid.partition("::")[0] for nodeid in self.collected}
        tests = Path(__file__).parent
        marking = {
            f"tests/{path.relative_to(tests).as_posix()}"
            for path in tests.rglob("test_*.py")
            if MARK in path.read_text(encoding="utf-8")
        }
        return marking <= files and not self.deselected and self.collected <= self.reported

    def markdown(self) -> str:
        """The block: one row per group of probes, cases by outcome, and the total."""
        groups = sorted({group for group, _ in self.cases})
        rows = ["| probes | tried | " + " | ".join(OUTCOMES) + " |", "|---" * 6 + "|"]
        for name, counts in [
            *((g, [self.cases[g, o] for o in OUTCOMES]) for g in groups),
            ("**total**", [sum(self.cases[g, o] for g in groups) for o in OUTCOMES]),
        ]:
            rows.append(f"| {name} | {sum(counts)} | " + " | ".join(map(str, counts)) + " |")
        return "\n".join(rows) + "\n"


def check(tally: Tally, write: bool) -> str:
    """Nothing ("") when docs/auditing.md's block is ``tally``'s table (after writing it, with
    ``write``); else what is wrong and how to regenerate it."""
    from delayed_bandits import quoted

    text = DOC.read_text(encoding="utf-8")
    blocks = {BLOCK: tally.markdown()}
    if write:
        DOC.write_text(quoted.fill(text, blocks, str(DOC)), encoding="utf-8")
        return ""
    if BLOCK not in quoted.names(text):
        return f"{DOC}: no block <!-- quoted: {BLOCK} --> to hold the probes' tally"
    if quoted.stale(text, blocks, str(DOC)):
        return (
            f"{DOC}: the block {BLOCK} is not what the probes gave; rerun them with {WRITE}=1 "
            f"to write it. The probes gave:\n{tally.markdown()}"
        )
    return ""
