"""Notebooks rendered as HTML pages: each analysis notebook of ``notebooks/`` is executed on the
workflow's results and written as ``reports/<notebook>.html``
(``docs/decisions/engineering.md#notebook-rule``).

The notebook runs unchanged, as a reader runs it in JupyterLab: from its own folder, reading the
results directory named by ``$DELAYED_BANDITS_RESULTS``. A cell that fails fails the render with
that cell's source and error, and leaves no page behind.

The page must read the same offline: its formulas are typeset when it is made, TeX to MathML
(``Formulas``), which browsers draw with no script, and the page loads nothing from the network
(the template ``data/nbconvert/offline``: JupyterLab's, without MathJax and require.js)."""

from __future__ import annotations

import os
import re
from html import escape
from pathlib import Path

from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import atomic_path

RESULTS_VARIABLE = "DELAYED_BANDITS_RESULTS"
TEMPLATES = Path(__file__).resolve().parent / "data" / "nbconvert"
TEMPLATE = "offline"

# Code (fenced blocks and inline spans) is left as written; a formula is $$...$$ (displayed) or
# $...$ (inline, not opened before a space nor closed after one, as in Jupyter's own parser).
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
# A word no notebook holds, numbered: where a formula stands until the page is made.
PLACEHOLDER = "DELAYEDBANDITSFORMULA"
_MATH = re.compile(r"(?<!\\)\$\$(.+?)\$\$|(?<![\\$])\$(?=\S)([^$]+?)(?<=[^\s\\])\$", re.DOTALL)


class NotebookError(ConfigError):
    """A notebook cell failed; the message holds the cell's source and its error."""


def mathml(tex: str, display: bool = False) -> str:
    """The MathML of a TeX formula (its whitespace, line breaks included, taken as spaces)."""
    from latex2mathml.converter import convert

    try:
        return convert(" ".join(tex.split()), display="block" if display else "inline")
    except Exception as exc:  # latex2mathml raises its own kinds for TeX it cannot read
        raise NotebookError(f"cannot typeset the formula {tex!r}: {exc}") from None


class Formulas:
    """The formulas of a notebook, typeset. The markdown renderer would take MathML apart (it
    reads each tag as a tag of its own), so ``hide`` puts a placeholder word where each formula
    stands, before the page is made, and ``show`` puts the MathML there in the finished page."""

    def __init__(self) -> None:
        self.tex: list[str] = []
        self.mathml: list[str] = []

    def _placeholder(self, match: re.Match[str]) -> str:
        display = match[1] is not None
        self.tex.append(" ".join((match[1] if display else match[2]).split()))
        self.mathml.append(mathml(self.tex[-1], display))
        return f"{PLACEHOLDER}{len(self.mathml) - 1}X"

    def hide(self, markdown: str) -> str:
        """``markdown`` with each formula replaced by a placeholder; code is left as it is."""
        pieces, start = [], 0
        for code in _CODE.finditer(markdown):
            pieces += [_MATH.sub(self._placeholder, markdown[start : code.start()]), code[0]]
            start = code.end()
        return "".join(pieces + [_MATH.sub(self._placeholder, markdown[start:])])

    def show(self, html: str) -> str:
        """``html`` with each placeholder replaced by its formula's MathML, or by its TeX within a
        tag (a heading's anchor carries the heading's text in its ``id`` and ``href``)."""
        found = re.compile(rf"{PLACEHOLDER}(\d+)X")
        in_tags = re.sub(
            r"<[^<>]*>",
            lambda tag: found.sub(lambda m: escape(self.tex[int(m[1])]), tag[0]),
            html,
        )
        return found.sub(lambda m: self.mathml[int(m[1])], in_tags)


def _hide_formulas(nb, formulas: Formulas) -> None:
    """Formulas of the markdown cells, and of code cells' markdown outputs (tables of claims)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = formulas.hide(cell.source)
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/markdown" in data:
                data["text/markdown"] = formulas.hide(data["text/markdown"])


def render(notebook: Path, results: Path, out: Path, timeout: int = 900) -> int:
    """Execute ``notebook`` on ``results`` and write it, with its outputs, as HTML to ``out``;
    returns the number of code cells run."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from nbconvert import HTMLExporter

    if not notebook.is_file():
        raise ConfigError(f"--notebook {notebook}: no such notebook")
    try:
        nb = nbformat.read(notebook, as_version=4)
        nbformat.validate(nb)
    except Exception as exc:  # nbformat raises its own kinds (NotJSONError, ValidationError, ...)
        raise ConfigError(
            f"--notebook {notebook}: not a Jupyter notebook ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}); give an .ipynb file of notebooks/"
        ) from None
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
    formulas = Formulas()
    _hide_formulas(nb, formulas)
    exporter = HTMLExporter(
        embed_images=True, extra_template_basedirs=[str(TEMPLATES)], template_name=TEMPLATE
    )
    html = formulas.show(exporter.from_notebook_node(nb)[0])
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
