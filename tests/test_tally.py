"""The probes' tally (tests/tally.py): outcomes classified, the table made, and a partial run of
the probes told from a full one, so that docs/auditing.md's block is held only to a full run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import tally


@pytest.mark.parametrize(
    "code, err, outcome",
    [
        (2, "delayed-bandits x: error: --out d is a directory", tally.REFUSED),
        (1, "Traceback (most recent call last):\n  ...\nKeyError: 'gap'", tally.TRACEBACK),
        (0, "", tally.SILENT),
        (None, "", tally.HANG),
    ],
)
def test_a_commands_outcome(code, err: str, outcome: str) -> None:
    assert tally.of_cli(code, err) == outcome


@pytest.mark.parametrize(
    "error, outcome",
    [
        (subprocess.TimeoutExpired("x", 1), tally.HANG),
        (KeyError("gap"), tally.TRACEBACK),
        (AssertionError("'Traceback' in err"), tally.TRACEBACK),
        (AssertionError("exit code 0"), tally.SILENT),
    ],
)
def test_a_failed_probes_outcome(error: BaseException, outcome: str) -> None:
    try:
        raise error
    except BaseException:
        assert tally.from_failure(pytest.ExceptionInfo.from_current()) == outcome


def test_the_table_counts_by_group_and_outcome() -> None:
    found = tally.Tally()
    found.add("faults", tally.REFUSED, 3)
    found.add("entrants", tally.REFUSED, 2)
    found.add("entrants", tally.TRACEBACK, 1)
    lines = found.markdown().splitlines()
    assert lines[0] == (
        "| probes | tried | refused with a named error | traceback | silently wrong | hang |"
    )
    assert lines[2:] == [
        "| entrants | 3 | 2 | 1 | 0 | 0 |",
        "| faults | 3 | 3 | 0 | 0 | 0 |",
        "| **total** | 6 | 5 | 1 | 0 | 0 |",
    ]


def test_only_a_run_of_every_probe_is_complete() -> None:
    tests = Path(tally.__file__).parent
    every = {
        f"tests/{path.relative_to(tests).as_posix()}::test_x"
        for path in tests.rglob("test_*.py")
        if tally.MARK in path.read_text(encoding="utf-8")
    }
    assert {
        "tests/test_named_errors.py::test_x",
        "tests/arena/test_entrant_rules.py::test_x",
    } <= every
    found = tally.Tally(collected=set(every), reported=set(every))
    assert found.complete()
    assert not tally.Tally(collected=set(every), reported=set(every) - {min(every)}).complete()
    assert not tally.Tally(collected=every - {min(every)}, reported=set(every)).complete()
    deselected = tally.Tally(collected=set(every), reported=set(every), deselected={"x"})
    assert not deselected.complete()
