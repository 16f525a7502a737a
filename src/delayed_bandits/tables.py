"""Reading the workflow's intermediate tables, refusing any that is corrupt, truncated, or made by
another config; and writing the CSV tables with the record that lets them be checked.

A shard or summary cut short by a full disk, a killed copy or a bad sector can still parse (a CSV
that ends on a line boundary does), and a flipped bit in a parquet page often still decodes. So
every table carries the sha256 of its content, checked before it is parsed: a shard in its parquet
metadata (``outputs.read_parquet``), a CSV table (summary, ratios, leaderboard) in its
record beside it, ``<name>.provenance.json`` (``write_table``). Each reader also checks the
table's shape: the columns it must have, no missing values in them, and for shards the
replications their file name promises.

Every table also records what made its numbers (``Binding``: the root seed, the package's sources
and the spec of each curve, ``provenance.binding``); a reader given the binding its config expects
refuses a table made by another (a shard of seed 8 copied over one of seed 7). A failure names the
file and the command that regenerates it; nothing downstream gets to use it.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import atomic_path, read_parquet

SHARD_COLUMNS = ["setting", "algorithm", "replication", "t", "regret"]
_SHARD_NAME = re.compile(r"rep(\d+)-(\d+)(\.events)?\.parquet$")
# The key of a shard's (and an event table's) parquet metadata that holds its ``Binding`` (JSON).
BINDING_KEY = b"delayed_bandits_binding"
# The keys of a CSV table's record (``<name>.provenance.json``) that ``write_table`` fills in.
TABLE_SHA256 = "table_sha256"
BINDING = "binding"
# How every CSV table is written: the same bytes for the same numbers, run after run.
FLOAT_FORMAT = "%.10g"


class CorruptTableError(ConfigError):
    """A table on disk cannot be used; the message says which file and how to remake it."""


class ForeignTableError(CorruptTableError):
    """A table on disk was made by another config, or by other sources, than the reader's."""


def regenerate_hint(path: str | Path) -> str:
    return (
        f"regenerate it with `snakemake --cores 1 --force {shlex.quote(str(path))}` (with the "
        "--configfile of the "
        "run that made it), then rerun the workflow"
    )


def _corrupt(path: str | Path, why: str) -> CorruptTableError:
    return CorruptTableError(f"{path} is corrupt or truncated ({why}); {regenerate_hint(path)}")


@dataclass(frozen=True)
class Binding:
    """What a table's numbers were made from: the root seed, the sha256 of the modules that
    simulate (``software.simulation_sha256``: the code that made its runs) and, per curve (key
    ``<setting>/<algorithm>``), the sha256 of its spec (``provenance.curve_spec``: the seed, setting, algorithm, horizon and checkpoints).
    A shard records the curves it holds, a table made from shards every curve of its figure."""

    seed: int
    simulation_sha256: str
    curves: Mapping[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "simulation_sha256": self.simulation_sha256,
            "curves": dict(sorted(self.curves.items())),
        }

    @classmethod
    def from_dict(cls, value: Any, path: str | Path) -> Binding:
        """The binding a table recorded; a record that is not one is a corrupt table, and one
        bound to the whole package's sources (``source_sha256``, before runs were bound to the
        simulating modules) a foreign one, made by an earlier version."""
        if (
            isinstance(value, dict)
            and "source_sha256" in value
            and "simulation_sha256" not in value
        ):
            raise ForeignTableError(
                f"{path} was made by an earlier version of delayed-bandits, which bound a table "
                "to the whole package's sources (source_sha256), not to the modules that "
                f"simulate (simulation_sha256); {regenerate_hint(path)}"
            )
        try:
            curves = value["curves"]
            if not (isinstance(curves, dict) and all(isinstance(v, str) for v in curves.values())):
                raise TypeError("curves is not a mapping of sha256s")
            if not isinstance(value["seed"], int) or not isinstance(
                value["simulation_sha256"], str
            ):
                raise TypeError("seed or simulation_sha256 of the wrong type")
            return cls(value["seed"], value["simulation_sha256"], curves)
        except (KeyError, TypeError) as exc:
            raise _corrupt(path, f"its record of the config that made it is unreadable: {exc}")

    def only(self, curves: Iterable[str]) -> Binding:
        """The binding of a table that holds ``curves`` alone (a shard of some of them)."""
        return Binding(self.seed, self.simulation_sha256, {c: self.curves[c] for c in curves})


def canonical_json(value: Any) -> bytes:
    """UTF-8 JSON with sorted keys and no spaces: equal configs give equal bytes, whatever the
    YAML's key order, comments or anchors."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def config_hash(config: Any) -> str:
    """sha256 (hex) of the canonical JSON of a config, or of any part of it."""
    return hashlib.sha256(canonical_json(config)).hexdigest()


def curve_key(setting: str, algorithm: str) -> str:
    return f"{setting}/{algorithm}"


def check_binding(path: str | Path, recorded: Binding, expected: Binding) -> None:
    """``ForeignTableError`` naming ``path`` and the first difference, unless ``recorded`` is what
    ``expected`` gives for the curves it records (a shard may hold some of the figure's)."""
    why = None
    if recorded.seed != expected.seed:
        why = f"seed {recorded.seed}, where this config has seed {expected.seed}"
    elif recorded.simulation_sha256 != expected.simulation_sha256:
        why = (
            f"simulating modules {recorded.simulation_sha256[:12]}..., where these are "
            f"{expected.simulation_sha256[:12]}..."
        )
    else:
        for curve in sorted(recorded.curves):
            if curve not in expected.curves:
                why = f"curve {curve}, which this config's figure does not have"
            elif recorded.curves[curve] != expected.curves[curve]:
                why = f"curve {curve}: its setting, algorithm, horizon or checkpoints differ"
            if why:
                break
    if why:
        raise ForeignTableError(
            f"{path} was made by a different config ({why}); {regenerate_hint(path)}"
        )


def _regular(path: str | Path) -> None:
    """A table is a regular file: a missing one, a link, a directory or a device is named."""
    path = Path(path)
    if path.is_symlink():
        raise _corrupt(path, "it is a symbolic link, not the file a job wrote")
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist; {regenerate_hint(path)}")
    if not path.is_file():
        raise _corrupt(path, "it is not a regular file")


def _read(path: str | Path, reader: Callable[[Any], pd.DataFrame]) -> pd.DataFrame:
    _regular(path)
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


def _parquet_binding(path: str | Path) -> Binding:
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_schema(path).metadata or {}).get(BINDING_KEY)
        value = None if raw is None else json.loads(raw)
    except (OSError, ValueError) as exc:  # a flipped bit in the footer or the JSON
        raise _corrupt(path, f"its record of the config that made it: {exc}") from None
    if value is None:
        raise _corrupt(path, "it carries no record of the config that made it")
    return Binding.from_dict(value, path)


def read_shard(path: str | Path, binding: Binding | None) -> pd.DataFrame:
    """A shard ``rep<first>-<last>.parquet``: regret for every one of the replications
    first..last, of each curve (setting, algorithm) it holds (one, those of a setting, or those of
    a figure), at the same checkpoints within a setting; made by ``binding`` (what the reader's
    config gives; None reads a shard whatever made it, e.g. to look at it)."""
    table = _read(path, read_parquet)
    _require(table, path, SHARD_COLUMNS, SHARD_COLUMNS)
    if binding is not None:
        recorded = _parquet_binding(path)
        held = {
            curve_key(s, a) for s, a in table[["setting", "algorithm"]].drop_duplicates().values
        }
        if held - set(recorded.curves):
            raise _corrupt(
                path, f"it holds curves its record lacks: {sorted(held - set(recorded.curves))}"
            )
        check_binding(path, recorded, binding)
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


def read_events(path: str | Path, binding: Binding | None) -> pd.DataFrame:
    """An algorithm's side table ``rep<first>-<last>.events.parquet`` (may have no events), made
    by ``binding`` (as ``read_shard``)."""
    table = _read(path, read_parquet)
    missing = [c for c in ("setting", "algorithm", "replication") if c not in table.columns]
    if missing:
        raise _corrupt(path, f"missing columns {', '.join(missing)}")
    if binding is not None:
        check_binding(path, _parquet_binding(path), binding)
    return table


def sidecar_path(table: Path) -> Path:
    """The record of a CSV table: ``summary.provenance.json`` beside ``summary.csv``."""
    return table.with_name(f"{table.stem}.provenance.json")


def write_table(
    frame: pd.DataFrame, path: Path, binding: Binding, record: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Write ``frame`` as CSV (no index, ``FLOAT_FORMAT``) and its record beside it
    (``write_recorded``); the record is returned."""
    data = frame.to_csv(index=False, float_format=FLOAT_FORMAT).encode()
    return write_recorded(data, path, binding, record)


def write_recorded(
    data: bytes, path: Path, binding: Binding, record: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Write ``data`` to ``path`` and its record beside it (``sidecar_path``): the sha256 of the
    bytes, the ``binding`` of what they were made from, then ``record`` (a summary's
    provenance). Both or neither are replaced; the record is returned. A table, or a figure's
    claims (``claims.json``), which every reader checks (``read_recorded``)."""
    full = {TABLE_SHA256: hashlib.sha256(data).hexdigest(), BINDING: binding.as_dict()}
    full.update(record or {})
    with atomic_path(path) as tmp, atomic_path(sidecar_path(path)) as tmp_record:
        tmp.write_bytes(data)
        tmp_record.write_text(json.dumps(full, indent=2, ensure_ascii=False) + "\n")
    return full


def read_recorded(path: str | Path, binding: Binding | None) -> bytes:
    """The bytes of a file ``write_recorded`` wrote, when they are those its record gives the
    sha256 of (a lost row, a changed digit, a flipped verdict or a cut line is refused before it
    is parsed) and it was made by ``binding`` (None: any); ``CorruptTableError`` naming the file
    otherwise."""
    path = Path(path)
    _regular(path)
    sidecar = sidecar_path(path)
    try:
        record = json.loads(sidecar.read_bytes())
        recorded = record[TABLE_SHA256]
    except FileNotFoundError:
        raise _corrupt(path, f"its record {sidecar.name} is missing") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _corrupt(path, f"its record {sidecar.name} is unreadable: {exc!r}") from None
    data = path.read_bytes()
    found = hashlib.sha256(data).hexdigest()
    if found != recorded:
        raise _corrupt(
            path,
            f"its sha256 is {found[:12]}..., not the {str(recorded)[:12]}... {sidecar.name} records",
        )
    if binding is not None:
        check_binding(path, Binding.from_dict(record.get(BINDING), path), binding)
    return data


def _checked_csv(path: str | Path, binding: Binding | None) -> pd.DataFrame:
    """A CSV table checked as ``read_recorded`` checks it, parsed."""
    data = read_recorded(path, binding)
    try:
        return pd.read_csv(io.BytesIO(data))
    except (ValueError, pd.errors.ParserError) as exc:
        raise _corrupt(path, f"{type(exc).__name__}: {exc}") from None


def read_summary(
    path: str | Path,
    columns: Iterable[str],
    binding: Binding | None,
    curves: Iterable[tuple[str, str]] = (),
) -> pd.DataFrame:
    """A figure's summary or ratios CSV: within a setting, every algorithm's curve at the same
    checkpoints, every (setting, algorithm) of ``curves`` present, and whole lines only (a ratio
    may be missing, where the baseline's regret is still 0); checked as ``read_table``."""
    table = read_table(path, columns, ["setting", "algorithm", "t", "n_runs"], binding)
    absent = sorted(set(curves) - set(zip(table.setting, table.algorithm)))
    if absent:
        raise _corrupt(path, "no rows for " + ", ".join(f"{s}/{a}" for s, a in absent))
    per_curve = table.groupby(["setting", "algorithm"]).t.apply(tuple)
    if (per_curve.groupby(level="setting").nunique() != 1).any():
        raise _corrupt(path, "its curves have different checkpoints (rows are missing)")
    return table


def read_table(
    path: str | Path, columns: Iterable[str], complete: Iterable[str], binding: Binding | None
) -> pd.DataFrame:
    """A CSV table of a figure written by ``write_table`` (summary, ratios, the arena's
    leaderboard): its bytes those its record gives the sha256 of, made by ``binding`` (None:
    whatever made it), its ``columns``, no missing value in ``complete``."""
    table = _checked_csv(path, binding)
    _require(table, path, list(columns), list(complete))
    return table


def _span(reps: set[int]) -> str:
    return f"{min(reps)}-{max(reps)} ({len(reps)} runs)" if reps else "none"
