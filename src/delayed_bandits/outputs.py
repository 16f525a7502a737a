"""Writing outputs so that a failure never leaves a half-written file behind, and parquet tables
with a checksum of their content, verified when they are read, so that a flipped bit is found."""

from __future__ import annotations

import errno
import glob
import hashlib
import os
from contextlib import contextmanager
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping

from delayed_bandits.errors import ConfigError, OutputWriteError

if TYPE_CHECKING:
    import pandas as pd

# The key of a parquet file's key-value metadata that holds the sha256 of its content
# (``frame_sha256``).
CHECKSUM_KEY = b"delayed_bandits_sha256"


def check_target(path: str | Path) -> None:
    """``ConfigError`` naming ``path`` when it exists and is not a regular file (a directory, a
    device such as /dev/full, a pipe): an output replaces its target whole (``atomic_path``),
    which would put a file in the place of a device node, or fail on a directory."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise ConfigError(
            f"{path}: exists and is not a regular file (a directory, a device or a pipe); "
            "allowed: a new path, or a file to replace"
        )


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; it replaces ``path`` only if the block succeeds,
    and ``path`` must be a new path or a regular file (``check_target``). A job killed outright
    (SIGKILL, a node lost) cannot remove its temporary file, so the job that makes ``path``
    again removes what such a run left.

    An ``OSError`` while writing it (a full disk, a file-size limit: EFBIG, a read-only folder,
    ...) is an ``OutputWriteError`` naming ``path`` and the errno (``write_error``); one that
    names another file (an input read inside the block) passes as it is."""
    check_target(path)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}{path.suffix}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in path.parent.glob(f".{glob.escape(path.name)}.tmp*"):
            stale.unlink(missing_ok=True)
        yield tmp
        os.replace(tmp, path)
    except OutputWriteError:
        raise
    except OSError as exc:
        if exc.filename is not None and str(exc.filename) not in (str(tmp), str(path)):
            raise
        raise write_error(path, exc) from exc
    finally:
        tmp.unlink(missing_ok=True)


def write_error(path: Path, exc: OSError) -> OutputWriteError:
    """The named error of a failed write of ``path``: the file, the errno's name and what it
    means, and what to do about the common ones."""
    code = exc.errno
    name = errno.errorcode.get(code, "unknown errno") if code is not None else "no errno"
    hint = {
        errno.ENOSPC: "the disk is full: no space left on the device; free space there",
        errno.EFBIG: "the file is larger than the file-size limit (ulimit -f) or the file "
        "system allows; raise the limit",
        errno.EDQUOT: "the disk quota is exceeded; free space or raise the quota",
        errno.EROFS: "the file system is read-only; write the outputs elsewhere",
        errno.EACCES: "permission denied; make the folder writable",
    }.get(code, "see the errno")
    return OutputWriteError(
        code,
        f"could not write {path} (errno {code} {name}: {exc.strerror or exc}): {hint}; no output "
        "was written, and what was written is removed. Rerun the job",
        str(path),
    )


def html_page(title: str, body: str) -> str:
    """A self-contained HTML page (the Snakemake report shows HTML inline, JSON only as a
    download): ``title`` escaped as its heading, ``body`` HTML as it is."""
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>"
        "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}"
        "pre{white-space:pre-wrap}"
        f"</style></head><body><h1>{escape(title)}</h1>\n{body}\n</body></html>\n"
    )


class ChecksumError(ValueError):
    """A parquet table's content does not match the checksum it was written with (or it has
    none)."""


def frame_sha256(frame: pd.DataFrame) -> str:
    """sha256 of a table's content: its column names, and every value in order. Numbers are
    hashed as their bytes (NaN in one form, as a parquet round trip writes it), any other value
    as its text; so the same content read back gives the same checksum."""
    import numpy as np

    digest = hashlib.sha256()
    for name in frame.columns:
        column = frame[name]
        digest.update(f"{name}\0{len(column)}\0".encode())
        dtype = column.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
            values = column.to_numpy()
            if dtype.kind == "f":
                values = np.where(np.isnan(values), np.nan, values)
            digest.update(dtype.str.encode() + values.tobytes())
        else:
            digest.update("\0".join(map(str, column.tolist())).encode())
    return digest.hexdigest()


def write_parquet(
    frame: pd.DataFrame, path: str | Path, metadata: Mapping[bytes, bytes] | None = None
) -> None:
    """``frame.to_parquet(path, index=False)``, with the sha256 of its content (``frame_sha256``)
    and ``metadata`` in the file's key-value metadata."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    checksum = {CHECKSUM_KEY: frame_sha256(frame).encode()}
    merged = {**(table.schema.metadata or {}), **(metadata or {}), **checksum}
    pq.write_table(table.replace_schema_metadata(merged), path)


def read_parquet(path: str | Path) -> pd.DataFrame:
    """A table written by ``write_parquet``; ``ChecksumError`` when its content is not what was
    written (a flipped bit, a file edited or replaced) or it carries no checksum."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        frame = table.to_pandas()
        found = frame_sha256(frame)
    except MemoryError:
        raise
    except Exception as exc:
        # a flipped bit can make any step fail: pyarrow's ArrowException (not all ValueErrors),
        # a KeyError from a pandas metadata entry that lost its name, a UnicodeDecodeError...
        raise ChecksumError(f"its content cannot be decoded: {type(exc).__name__}: {exc}") from None
    recorded = (table.schema.metadata or {}).get(CHECKSUM_KEY)
    if recorded is None:
        raise ChecksumError("it carries no content checksum: it was not written by this version")
    if found != recorded.decode():
        raise ChecksumError(
            f"its content's sha256 is {found[:12]}..., not the {recorded.decode()[:12]}... it "
            "was written with"
        )
    return frame
