"""Notebooks rendered as HTML pages: each analysis notebook of ``notebooks/`` is executed on the
workflow's results and written as ``reports/<notebook>.html`` (``docs/decisions.md``, "Notebooks
in the workflow").

The notebook runs unchanged, as a reader runs it in JupyterLab: from its own folder, reading the
results directory named by ``$DELAYED_BANDITS_RESULTS``. A cell that fails fails the render with
that cell's source and error, and leaves no page behind."""

from __future__ import annotations

import os
from pathlib import Path

from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import atomic_path

RESULTS_VARIABLE = "DELAYED_BANDITS_RESULTS"


class NotebookError(ConfigError):
    """A notebook cell failed; the message holds the cell's source and its error."""


def render(notebook: Path, results: Path, out: Path, timeout: int = 900) -> int:
    """Execute ``notebook`` on ``results`` and write it, with its outputs, as HTML to ``out``;
    returns the number of code cells run."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from nbconvert import HTMLExporter

    if not notebook.is_file():
        raise ConfigError(f"--notebook {notebook}: no such notebook")
    nb = nbformat.read(notebook, as_version=4)
    saved = os.environ.get(RESULTS_VARIABLE)
    os.environ[RESULTS_VARIABLE] = str(results.resolve())
    try:
        NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(notebook.parent.resolve())}},
            record_timing=False,  # each cell's start and end times: a page would differ per run
        ).execute()
    except CellExecutionError as exc:
        raise NotebookError(f"{notebook}: a cell failed\n{exc}") from None
    finally:
        if saved is None:
            del os.environ[RESULTS_VARIABLE]
        else:
            os.environ[RESULTS_VARIABLE] = saved
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = _coalesced(cell.outputs)
    html, _ = HTMLExporter(embed_images=True).from_notebook_node(nb)
    with atomic_path(out) as tmp:
        tmp.write_text(html, encoding="utf-8")
    return sum(cell.cell_type == "code" for cell in nb.cells)


def _coalesced(outputs: list) -> list:
    """A cell's outputs with consecutive stream outputs of one stream (stdout, stderr) joined:
    how a cell's printing is cut into messages depends on timing, and the page shows one block
    either way."""
    joined: list = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (
            output.output_type == "stream"
            and previous is not None
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            joined.append(output)
    return joined
