"""Writing outputs so that a failure never leaves a half-written file behind."""

from __future__ import annotations

import glob
import os
from contextlib import contextmanager
from html import escape
from pathlib import Path
from typing import Iterator


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; it replaces ``path`` only if the block succeeds.
    A job killed outright (SIGKILL, a node lost) cannot remove its temporary file, so the job
    that makes ``path`` again removes what such a run left."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{glob.escape(path.name)}.tmp*"):
        stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


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
