"""What a reader sees, in a real browser: the Snakemake report and a rendered notebook of the smoke
run, opened in headless Chromium (Debian's ``chromium``; installed here when missing and we may).

A page is served on the loopback address beside a small harness page that loads it in a frame and
writes what it finds into its own DOM, which ``chromium --dump-dom`` prints: the images of the
page (each must have loaded, with a width), and the length of its visible text (not blank).
The report shows its figures one at a time, so each figure embedded in it is also loaded as an
image by the harness. To repeat by hand: ``chromium --headless --no-sandbox
--screenshot=out.png reports/arena.html`` (docs/auditing.md)."""

from __future__ import annotations

import base64
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from conftest import snakemake

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

HARNESS = """<!doctype html><html><body>
<iframe id="page" src="{page}" style="width:1400px;height:1000px"></iframe>
<div id="extra">{images}</div>
<script>
// TeX a reader would see raw in the prose: a $...$ span holding a TeX command, or a command
// alone (\\alpha, \\frac); the code cells, which may hold TeX in strings, are not prose
const RAW_TEX = /\\$[^$\\n]*\\\\[A-Za-z]+[^$]*\\$|\\\\(?:frac|sum|tilde|alpha|beta|ell|mathbb|sqrt|min|max|ln|log|le|ge|in|dots)\\b/g;
// the rendered markdown of a notebook page, or the whole text of any other page
const prose = doc => [...doc.querySelectorAll(".jp-RenderedMarkdown")].map(e => e.innerText).join("\\n")
  || (doc.body ? doc.body.innerText : "");
document.getElementById("page").onload = () => setTimeout(() => {{
  const doc = document.getElementById("page").contentDocument;
  const loaded = img => img.complete && img.naturalWidth > 0;
  const result = {{
    images: doc.images.length,
    broken: [...doc.images].filter(i => !loaded(i)).map(i => i.src.slice(0, 60)),
    text: doc.body ? doc.body.innerText.trim().length : 0,
    raw_tex: prose(doc).match(RAW_TEX) || [],
    math: doc.getElementsByTagName("math").length,
    math_blank: [...doc.getElementsByTagName("math")].filter(m => !(m.getBoundingClientRect().width > 0)).length,
    extra: document.getElementById("extra").children.length,
    extra_broken: [...document.getElementById("extra").children].filter(i => !loaded(i)).length,
  }};
  const out = document.createElement("pre");
  out.id = "result";
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
}}, 3000);
</script></body></html>"""


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium, installed with apt when missing and we are root."""
    found = shutil.which("chromium")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=600)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            env=env,
            capture_output=True,
            timeout=1200,
        )
        found = shutil.which("chromium")
    if found is None:
        pytest.fail(
            "chromium is not installed and could not be installed here: "
            "apt-get install chromium (Debian), then rerun"
        )
    return found


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # pytest shows what a failure needs, not each request
        pass


def _embedded_images(html: str) -> list[str]:
    """The PNG figures a page embeds as data (the report keeps them base64-encoded)."""
    return sorted(
        set(re.findall(r"data:image/png[^\"',;]*(?:;[^\"',;]*)*?;base64,[A-Za-z0-9+/=]+", html))
    )


def _open(chromium: str, root: Path, page: str, images: list[str]) -> dict:
    """What the harness finds of ``page`` (served from ``root``) in headless Chromium."""
    tags = "".join(f'<img src="{src}">' for src in images)
    (root / "_harness.html").write_text(HARNESS.format(page=page, images=tags))
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/_harness.html"
        dom = subprocess.run(
            [chromium, *CHROMIUM_FLAGS, "--virtual-time-budget=20000", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        server.shutdown()
    found = re.search(r'<pre id="result">(.*?)</pre>', dom.stdout, re.DOTALL)
    assert found, f"the harness wrote no result:\n{dom.stderr[-2000:]}"
    return json.loads(found[1].replace("&quot;", '"'))


def _png_ok(data_uri: str) -> bool:
    return base64.b64decode(data_uri.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_a_rendered_notebook_typesets_its_formulas_offline(smoke_run: Path, chromium: str) -> None:
    """Thune et al.'s notebook, the richest in formulas: every formula drawn (MathML, with a
    width), no TeX left raw in what a reader sees, and nothing the page would fetch from the
    network (the browser here has none)."""
    html = (smoke_run / "smoke/reports/thune2019.html").read_text()
    assert not re.search(r"<(?:script|link)[^>]+(?:src|href)=\"https?://", html)
    seen = _open(chromium, smoke_run, "smoke/reports/thune2019.html", [])
    assert seen["math"] > 50 and seen["math_blank"] == 0, seen
    assert seen["raw_tex"] == [], seen["raw_tex"]


@pytest.mark.slow
def test_the_harness_sees_raw_tex(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "raw.html").write_text(
        "<html><body><p>regret $\\tilde N_k(t) = \\sum_s x_s$ shown raw</p></body></html>"
    )
    seen = _open(chromium, tmp_path, "raw.html", [])
    assert seen["raw_tex"] and seen["math"] == 0, seen


@pytest.mark.slow
def test_a_rendered_notebook_shows_every_figure(smoke_run: Path, chromium: str) -> None:
    html = (smoke_run / "smoke/reports/arena.html").read_text()
    figures = _embedded_images(html)
    assert figures and all(map(_png_ok, figures))
    seen = _open(chromium, smoke_run, "smoke/reports/arena.html", [])
    assert seen["images"] == html.count("<img") >= 2 and seen["broken"] == [], seen
    assert seen["text"] > 2000, seen  # not a blank page


@pytest.mark.slow
def test_the_report_opens_and_every_figure_loads(
    smoke_run: Path, chromium: str, tmp_path: Path
) -> None:
    run = snakemake(smoke_run, "--report", "report-browser.html")
    assert run.returncode == 0, run.stderr[-2000:]
    html = (smoke_run / "report-browser.html").read_text()
    figures = _embedded_images(html)
    # every figure of the run is in the report (PNG; the PDFs are downloads)
    assert len(figures) >= len(list((smoke_run / "smoke/figures").glob("*.png")))
    seen = _open(chromium, smoke_run, "report-browser.html", figures)
    assert seen["text"] > 200, seen  # the report's page is drawn, not blank
    assert seen["broken"] == [], seen
    assert seen["extra"] == len(figures) and seen["extra_broken"] == 0, seen


@pytest.mark.slow
def test_the_harness_sees_a_broken_image_and_a_blank_page(chromium: str, tmp_path: Path) -> None:
    (tmp_path / "broken.html").write_text('<html><body><img src="missing.png"></body></html>')
    seen = _open(chromium, tmp_path, "broken.html", ["data:image/png;base64,AAAA"])
    assert seen["images"] == 1 and len(seen["broken"]) == 1
    assert seen["text"] == 0 and seen["extra_broken"] == 1
