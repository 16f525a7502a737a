"""The cost estimate's timings (``delayed_bandits.cost``) are bound to the simulating code they
timed: an estimate from timings that did not say which code they timed was half the citable
run's cost, and timings of the code that ran came within about 10 % of it (docs/arena.md)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from delayed_bandits import cost, software
from delayed_bandits.errors import ConfigError


def test_measured_timings_carry_the_code_they_timed(tmp_path: Path) -> None:
    out = tmp_path / "timings.csv"
    cost.measure(1, ["uniform"], out, figures=["regret"], regimes=["uniform"])
    rows = list(csv.DictReader(out.open()))
    assert rows and {r["simulation_sha256"] for r in rows} == {software.simulation_sha256()}
    assert {r["algorithm"] for r in rows} == {"uniform", cost.DRAW}
    timed = cost._read([out])
    assert len(timed) == len(rows) and all(v >= 0 for v in timed.values())


def _write(path: Path, header: list[str], row: list[str]) -> Path:
    with path.open("w", newline="") as f:
        csv.writer(f).writerows([header, row])
    return path


def test_timings_of_other_code_or_without_it_are_refused(tmp_path: Path) -> None:
    key = ["regret", "uniform", "2", "0.4", "25", "ts"]
    old = _write(tmp_path / "old.csv", [*cost.COLUMNS[:-1], "cpu_s"], [*key, "0.1"])
    with pytest.raises(ConfigError, match="columns .* measure again"):
        cost._read([old])
    other = _write(tmp_path / "other.csv", [*cost.COLUMNS, "cpu_s"], [*key, "f" * 64, "0.1"])
    with pytest.raises(ConfigError, match="timed on simulating code ffffffffffff.*measure again"):
        cost._read([other])
