"""Reading the workflow's intermediate tables, refusing any that is corrupt or truncated.

A shard or summary cut short by a full disk, a killed copy or a bad sector can still parse (a CSV
that ends on a line boundary does), and a flipped bit in a parquet page often still decodes, so a
shard's content is checked against the checksum it was written with (``outputs.read_parquet``),
and each reader also checks the table's shape: the columns it
must have, no missing values in them, and for shards the replications their file name promises.
A failure names the file and the command that regenerates it; nothing downstream gets to use it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Iterable

import pandas as pd

from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import read_parquet

SHARD_COLUMNS = ["setting", "algorithm", "replication", "t", "regret"]
_SHARD_NAME = re.compile(r"rep(\d+)-(\d+)(\.events)?\.parquet$")


class CorruptTableError(ConfigError):
    """A table on disk cannot be used; the message says which file and how to remake it."""


def regenerate_hint(path: str | Path) -> str:
    return (
        f"regenerate it with `snakemake --cores 1 --force {shlex.quote(str(path))}` (with the "
        "--configfile of the "
        "run that made it), then rerun the workflow"
    )


def _corrupt(path: str | Path, why: str) -> CorruptTableError:
    return CorruptTableError(f"{path} is corrupt or truncated ({why}); {regenerate_hint(path)}")


def _read(path: str | Path, reader) -> pd.DataFrame:
    if not Path(path).exists():
        raise FileNotFoundError(f"{path} does not exist; {regenerate_hint(path)}")
    try:
        return reader(path)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        # pyarrow's ArrowInvalid is a ValueError; an empty CSV raises pandas' EmptyDataError, too
        raise _corrupt(path, f"{type(exc).__name__}: {exc}") from None


def _require(
    table: pd.DataFrame, path: str | Path, columns: Iterable[str], complete: Iterable[str]
) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise _corrupt(path, f"missing columns {', '.join(missing)}")
    if table.empty:
        raise _corrupt(path, "no rows")
    holes = [c for c in complete if table[c].isna().any()]
    if holes:
        raise _corrupt(path, f"missing values in {', '.join(holes)}")


def read_shard(path: str | Path) -> pd.DataFrame:
    """A shard ``rep<first>-<last>.parquet``: regret for every one of the replications
    first..last, of each curve (setting, algorithm) it holds (one, those of a setting, or those of
    a figure), at the same checkpoints within a setting."""
    table = _read(path, read_parquet)
    _require(table, path, SHARD_COLUMNS, SHARD_COLUMNS)
    name = _SHARD_NAME.search(Path(path).name)
    if name:
        expected = set(range(int(name[1]), int(name[2]) + 1))
        for (setting, algorithm), rows in table.groupby(["setting", "algorithm"], sort=False):
            found = set(rows.replication.tolist())
            if found != expected:
                raise _corrupt(
                    path,
                    f"{setting}/{algorithm} holds replications {_span(found)}, "
                    f"its name promises {_span(expected)}",
                )
    per_run = table.groupby(["setting", "algorithm", "replication"]).t.apply(tuple)
    if (per_run.groupby(level="setting").nunique() != 1).any():  # settings' horizons may differ
        raise _corrupt(path, "its replications have different checkpoints within a setting")
    return table


def read_events(path: str | Path) -> pd.DataFrame:
    """An algorithm's side table ``rep<first>-<last>.events.parquet`` (may have no events)."""
    table = _read(path, read_parquet)
    missing = [c for c in ("setting", "algorithm", "replication") if c not in table.columns]
    if missing:
        raise _corrupt(path, f"missing columns {', '.join(missing)}")
    return table


def read_summary(
    path: str | Path, columns: Iterable[str], curves: Iterable[tuple[str, str]] = ()
) -> pd.DataFrame:
    """A figure's summary or ratios CSV: within a setting, every algorithm's curve at the same
    checkpoints, every (setting, algorithm) of ``curves`` present, and whole lines only (a ratio
    may be missing, where the baseline's regret is still 0)."""
    table = read_table(path, columns, ["setting", "algorithm", "t", "n_runs"])
    absent = sorted(set(curves) - set(zip(table.setting, table.algorithm)))
    if absent:
        raise _corrupt(path, "no rows for " + ", ".join(f"{s}/{a}" for s, a in absent))
    per_curve = table.groupby(["setting", "algorithm"]).t.apply(tuple)
    if (per_curve.groupby(level="setting").nunique() != 1).any():
        raise _corrupt(path, "its curves have different checkpoints (rows are missing)")
    return table


def read_table(path: str | Path, columns: Iterable[str], complete: Iterable[str]) -> pd.DataFrame:
    """Another CSV table of a figure (e.g. the arena's leaderboard): its ``columns``, no missing
    value in ``complete``, whole lines only."""
    table = _read(path, pd.read_csv)
    with open(path, "rb") as handle:
        handle.seek(-1, 2)
        if handle.read(1) != b"\n":
            raise _corrupt(path, "its last line is cut short")
    _require(table, path, list(columns), list(complete))
    return table


def _span(reps: set[int]) -> str:
    return f"{min(reps)}-{max(reps)} ({len(reps)} runs)" if reps else "none"
