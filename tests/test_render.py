"""Rendered notebooks read the same offline: formulas typeset as MathML when the page is made, and
a page template that loads nothing from the network (the browser's view:
tests/workflow/test_browser.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter

from delayed_bandits.render import TEMPLATE, TEMPLATES, Formulas, NotebookError


def _page(markdown: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(markdown)])
    formulas = Formulas()
    nb.cells[0].source = formulas.hide(nb.cells[0].source)
    exporter = HTMLExporter(extra_template_basedirs=[str(TEMPLATES)], template_name=TEMPLATE)
    return formulas.show(exporter.from_notebook_node(nb)[0])


def test_formulas_become_mathml_and_code_stays() -> None:
    formulas = Formulas()
    text = formulas.hide(
        "loss $\\ell_t^a \\in [0, 1]$, `$x$` as code, a price of $5 and $10, and\n"
        "$$\\sum_{s \\le t} x_s$$"
    )
    assert "`$x$`" in text and "$5 and $10" in text and "\\ell" not in text
    assert [m.count('display="inline"') for m in formulas.mathml] == [1, 0]
    assert 'display="block"' in formulas.mathml[1] and "<msubsup>" in formulas.mathml[0]


def test_a_formula_wrapped_onto_a_line_of_its_own_is_no_list_item() -> None:
    """A line of a wrapped formula that starts with "+ " (Thune et al.'s oracle bound) made a
    bullet of itself; hidden before the markdown is read, it stays in its paragraph."""
    page = _page("its regret is $15\\min_\\beta x + 10e^2K\n+ 5$ (the **oracle bound**).")
    body = page[page.index("<body") :]
    assert "<li>" not in body and "<strong>oracle bound</strong>" in body
    assert re.search(r"<math [^>]*><mrow>.*<mn>5</mn>.*</math>", body)


def test_a_formula_in_a_heading_leaves_its_anchor_whole() -> None:
    """nbconvert gives a heading an anchor named after its text: the formula is TeX there, and
    MathML only in the heading's text."""
    page = _page("## Regret at $T$ against time")
    heading = re.search(r"<h2[^>]*>.*?</h2>", page, re.DOTALL)[0]
    assert 'id="Regret-at-T-against-time"' in heading and "#Regret-at-T-against-time" in heading
    assert heading.count("<math") == 1, heading


def network_scripts(page: str) -> list[str]:
    """The scripts and stylesheets of ``page`` that name an http(s) address: a source, or an
    address a script imports (nbconvert's mermaid loader imports its module from a CDN)."""
    tags = re.findall(r"<(?:script|link)\b[^>]*>(?:.*?</script>)?", page, re.DOTALL)
    return [tag[:200] for tag in tags if re.search(r"https?://", tag)]


def test_the_page_loads_nothing_from_the_network() -> None:
    page = _page("a formula $x^2$")
    assert network_scripts(page) == []
    assert "mathjax" not in page.lower() and "mermaid" not in page.lower() and "<math" in page


def test_a_page_with_widget_state_loads_nothing_from_the_network() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("text")])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    exporter = HTMLExporter(extra_template_basedirs=[str(TEMPLATES)], template_name=TEMPLATE)
    assert network_scripts(exporter.from_notebook_node(nb)[0]) == []


def test_the_probe_of_network_scripts_finds_a_cdn_import() -> None:
    page = '<script type="module">\nconst m = await import("https://cdn.example/m.mjs");</script>'
    assert network_scripts(page + '<script src="x.js"></script>') == [page[:200]]


def test_every_notebook_cell_has_a_fixed_id(root: Path) -> None:
    """A cell without an id gets a random one at each render, and the page differs per run."""
    missing = [
        f"{path.name} cell {i}"
        for path in sorted((root / "notebooks").glob("*.ipynb"))
        for i, cell in enumerate(json.loads(path.read_text())["cells"])
        if not cell.get("id")
    ]
    assert missing == []


@pytest.mark.slow
def test_every_rendered_page_loads_nothing_from_the_network(smoke_run: Path) -> None:
    pages = sorted((smoke_run / "smoke" / "reports").glob("*.html"))
    assert pages
    assert {page.name: network_scripts(page.read_text()) for page in pages} == {
        page.name: [] for page in pages
    }


def test_a_formula_latex2mathml_cannot_read_names_itself() -> None:
    with pytest.raises(NotebookError, match=re.escape("\\left( x")):
        Formulas().hide("unbalanced: $\\left( x$")
