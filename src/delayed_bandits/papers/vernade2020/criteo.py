"""The empirical delay law of a local copy of the Criteo attribution dataset (Diemert et al. 2017),
used by Vernade et al. 2020, Section 8 ("Heavy-tailed delays", Figures 2-3).

The dataset cannot be shipped. A user who has it (tab-separated, gzip, one row per impression with
columns including ``timestamp``, ``conversion`` and ``conversion_timestamp``, in seconds) points a
setting's ``criteo.path`` at it; the delays conversion_timestamp - timestamp of the converted
impressions become a ``delays.Empirical`` quantile table of log10(delay in seconds), rescaled by
``criteo.scale`` (0.01 in the paper) into rounds, the same form as the default table.
"""

from __future__ import annotations

import functools
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from delayed_bandits import delays
from delayed_bandits.errors import ConfigError

COLUMNS = ("timestamp", "conversion", "conversion_timestamp")
# Quantiles of the table: probabilities 0, 1/n, ..., 1. With n = 1000 the table's CDF is within
# 0.001 of the data's at every point (linear interpolation between neighbouring quantiles).
QUANTILES = 1000


def converted_delays(path: str | Path, where: str = "criteo.path") -> np.ndarray:
    """conversion_timestamp - timestamp (seconds) of every converted impression of the file.

    Raises ``ConfigError`` naming ``where`` if the file is missing, unreadable, lacks a column, or
    holds a non-numeric value, a conversion flag other than 0/1, a conversion before its
    impression, or no conversion at all."""
    try:
        return _read(Path(path))
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def _read(path: Path) -> np.ndarray:
    if not path.is_file():
        raise ConfigError(f"Criteo file {str(path)!r} does not exist")
    unreadable = (
        OSError,
        EOFError,
        zlib.error,
        UnicodeDecodeError,
        pd.errors.ParserError,
        pd.errors.EmptyDataError,
    )  # gzip.BadGzipFile is an OSError
    try:
        header = pd.read_csv(path, sep="\t", compression="infer", nrows=0).columns
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            raise ConfigError(
                f"{str(path)!r} lacks the column(s) {', '.join(missing)}; it needs "
                f"a header row naming {', '.join(COLUMNS)} (tab-separated)"
            )
        table = pd.read_csv(path, sep="\t", compression="infer", usecols=list(COLUMNS))
    except unreadable as exc:
        raise ConfigError(
            f"{str(path)!r} is not a readable tab-separated (gzip) Criteo file: {exc}"
        ) from exc
    flags = pd.to_numeric(table.conversion, errors="coerce")
    if not flags.isin((0, 1)).all():
        row = int((~flags.isin((0, 1))).to_numpy().argmax())
        raise ConfigError(
            f"{str(path)!r} column 'conversion' must hold 0 or 1; data row "
            f"{row + 1} has {table.conversion.iloc[row]!r}"
        )
    # unconverted impressions may carry any conversion_timestamp (-1 in the real dataset)
    converted = table[flags == 1]
    if converted.empty:
        raise ConfigError(f"{str(path)!r} has no converted impression (conversion = 1)")
    times = converted[["timestamp", "conversion_timestamp"]].apply(pd.to_numeric, errors="coerce")
    bad = times.isna().any(axis=1).to_numpy()
    if bad.any():
        raise ConfigError(
            f"{str(path)!r} has a non-numeric or missing timestamp in converted row "
            f"{int(bad.argmax()) + 1}"
        )
    delay = (times.conversion_timestamp - times.timestamp).to_numpy(dtype=np.float64)
    if (delay < 0).any():
        raise ConfigError(
            f"{str(path)!r} has a conversion before its impression "
            f"(conversion_timestamp < timestamp in converted row "
            f"{int(np.argmax(delay < 0)) + 1})"
        )
    return delay


@functools.lru_cache(maxsize=4)
def _table(path: str, mtime_ns: int, size: int) -> delays.Empirical:
    """The quantile table of one version of the file (the key holds its mtime and size, so an
    edited file is read again; the real dataset takes a while to parse)."""
    seconds = _read(Path(path))
    # log10 of a zero delay is -inf: a conversion within the second counts as 1 s (log10 = 0),
    # which floors to 0 rounds at any scale < 1, as the default table's 0.0 does.
    logs = np.log10(np.maximum(seconds, 1.0))
    probs = np.linspace(0.0, 1.0, QUANTILES + 1)
    values = np.maximum.accumulate(np.quantile(logs, probs))  # monotone despite rounding
    return delays.Empirical(tuple(probs.tolist()), tuple(values.tolist()), 1.0, True)


def empirical_delays(path: str | Path, scale: float, where: str = "criteo") -> delays.Empirical:
    """The delay law in rounds: floor(scale · 10^X), X the quantile table of log10(delay in
    seconds) of the file's converted impressions (Vernade et al. 2020 use scale = 0.01)."""
    if not scale > 0:
        raise ConfigError(f"{where}.scale: must be > 0, got {scale!r}")
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{where}.path: Criteo file {str(path)!r} does not exist")
    stat = path.stat()
    try:
        table = _table(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    except ConfigError as exc:
        raise ConfigError(f"{where}.path: {exc}") from exc
    return delays.Empirical(table.probs, table.values, float(scale), True)
