"""End to end: the smoke config through the whole Snakemake workflow in a temporary directory,
then the report and the notebooks the workflow rendered on its results."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Callable

import nbformat
import pandas as pd
import pytest

from conftest import ROOT, smoke_config, snakemake
from delayed_bandits import config, curves, grid, kinds
from delayed_bandits import papers as registry
from delayed_bandits.claims import count
from delayed_bandits.cli import main

SMOKE = smoke_config()
FIGURES = [(paper, fig) for paper, figs in SMOKE["papers"].items() for fig in figs]


def _runs(run: Path, paper: str, figure: str, cfg: dict) -> Callable[[str, str], int]:
    """The runs a curve (setting, algorithm) of the figure has: every replication, but where the
    figure screens (the arena's screen, curves.first_stage), the screen's alone of an entrant the
    plan (screen.json) does not send to the contest."""
    first, total = curves.first_stage(cfg), int(cfg["replications"])
    if first == total:
        return lambda setting, algorithm: total
    plan = json.loads((run / f"smoke/results/{paper}/{figure}/screen.json").read_text())
    going = {(s, a) for s, algorithms in plan["settings"].items() for a in algorithms}
    return lambda setting, algorithm: total if (setting, algorithm) in going else first


@pytest.mark.slow
def test_figures_summaries_and_claims(smoke_run: Path) -> None:
    for paper, fig in FIGURES:
        cfg = SMOKE["papers"][paper][fig]
        for ext in ("pdf", "png"):
            out = smoke_run / f"smoke/figures/{paper}-{fig}.{ext}"
            assert out.stat().st_size > 5000
        claims = json.loads((smoke_run / f"smoke/results/{paper}/{fig}/claims.json").read_text())
        assert claims, f"{fig} has no claims"
        page = (smoke_run / f"smoke/results/{paper}/{fig}/claims.html").read_text()
        own = not registry.get(paper).reproduces  # the arena's claims: no paper makes them
        assert count(claims, own) in page  # reproductions (or own claims) and checks apart
        assert html.escape(claims[0]["statement"]) in page
        for c in claims:
            assert {"id", "statement", "paper_ref", "measured", "expected", "holds"} <= set(c)
            assert c["holds"] is None or isinstance(c["holds"], bool)  # None: inconclusive
            # the three-valued rule (claims.py): a failure says what may explain it
            assert c["holds"] is not False or c["note"].strip(), (paper, fig, c["id"])
        if not kinds.simulated(cfg):  # drawn from the configuration: no shard, no summary
            assert sorted(
                p.name for p in (smoke_run / f"smoke/results/{paper}/{fig}").iterdir()
            ) == ["claims.html", "claims.json", "claims.provenance.json"], (paper, fig)
            continue
        summary = pd.read_csv(smoke_run / f"smoke/results/{paper}/{fig}/summary.csv")
        assert list(summary.columns) == [
            "setting",
            "algorithm",
            "t",
            "mean",
            "se",
            "q05",
            "q95",
            "n_runs",
        ]
        runs = _runs(smoke_run, paper, fig, cfg)
        assert list(summary.n_runs) == [
            runs(s, a) for s, a in zip(summary.setting, summary.algorithm)
        ]
        assert summary.t.max() == cfg["horizon"]
        assert set(summary.setting) == set(grid.settings(cfg))
        assert set(summary.algorithm) == set(cfg["algorithms"])
        sidecar = json.loads(
            (smoke_run / f"smoke/results/{paper}/{fig}/summary.provenance.json").read_text()
        )
        assert sidecar["config"]["paths"] == ["config/config.yaml", "config/smoke.yaml"]
        assert (
            sidecar["table_sha256"]
            in (smoke_run / f"smoke/results/{paper}/{fig}/summary.provenance.html").read_text()
        )
        assert sidecar["replications"] == {
            s: {a: runs(s, a) for a in by_alg} for s, by_alg in sidecar["replications"].items()
        }
    report = (smoke_run / "smoke/results/claims.md").read_text()
    assert "reproductions hold" in report and "checks hold" in report
    assert "The arena's own claims, counted apart (no paper makes them): " in report
    assert "Scale: **smoke**" in report
    assert all(f"{paper} {fig}" in report for paper, fig in FIGURES)
    raw = pd.read_parquet(smoke_run / "smoke/results/vernade2017/fig2/rep0-2.parquet")
    assert list(raw.columns) == ["setting", "algorithm", "replication", "t", "regret"]
    assert set(raw.algorithm) == set(SMOKE["papers"]["vernade2017"]["fig2"]["algorithms"])
    for kind in ("logs", "benchmarks"):
        assert (
            (smoke_run / "smoke" / kind / "vernade2017/fig2/summary")
            .with_suffix(".log" if kind == "logs" else ".tsv")
            .exists()
        )


@pytest.mark.slow
def test_pikeburke_band_and_reimplementation_curves(smoke_run: Path) -> None:
    """ODAAF's delay-coefficient band and the odaaf-v-reimpl curve reach ratios.csv and the
    claims; variants add no per-curve paper claims of their own."""
    for fig in ("fig3a", "fig3b"):
        cfg = SMOKE["papers"]["pikeburke2018"][fig]
        ratios = pd.read_csv(smoke_run / f"smoke/results/pikeburke2018/{fig}/ratios.csv")
        assert set(ratios.algorithm) == set(cfg["algorithms"]) - {"qpm-d"}
        claims = json.loads(
            (smoke_run / f"smoke/results/pikeburke2018/{fig}/claims.json").read_text()
        )
        ids = [c["id"] for c in claims]
        for setting in cfg["settings"]:
            band = next(c for c in claims if c["id"] == f"{setting}-odaaf-coefficient-band")
            assert all(f"{k}: " in band["measured"] for k in (2, 4, 6))
        assert not any(v in i for i in ids for v in cfg["variants"])
    late = next(c for c in claims if c["id"] == "exp50-odaaf-v-eliminates-late")
    assert "odaaf-v-reimpl: eliminated in" in late["measured"]


@pytest.mark.slow
def test_the_families_and_an_entrants_page_come_from_the_smoke_run(
    smoke_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workflow makes the answer per regime family; entrant-page reads it with the
    leaderboard, and the page carries the family table's numbers."""
    families = pd.read_csv(smoke_run / "smoke/results/arena/regret/families.csv")
    ts = families[families.algorithm == "ts"]
    assert len(ts) == families.family.nunique() and (ts.ratio == 1.0).all()
    monkeypatch.chdir(smoke_run)
    main(["entrant-page", "d-ts", "--run", "smoke", "--out", str(tmp_path)])
    page = (tmp_path / "page.md").read_text()
    row = families[families.algorithm == "d-ts"].iloc[0]
    assert row.family in page and f"{row.ratio:.3g}" in page


@pytest.mark.slow
def test_rerun_has_nothing_to_do_and_single_rule_audit(smoke_run: Path) -> None:
    dry = snakemake(smoke_run, "-n")
    assert dry.returncode == 0
    assert "Nothing to be done" in dry.stdout + dry.stderr
    audit = snakemake(
        smoke_run, "-n", "-p", "smoke/figures/vernade2017-fig2.pdf", "--forcerun", "plot"
    )
    command = re.search(
        r"delayed-bandits plot --merged (\S+) --paper vernade2017 --figure fig2",
        audit.stdout + audit.stderr,
    )
    assert command is not None, audit.stdout + audit.stderr
    _, made_from = config.read_merged(smoke_run / command[1])
    assert made_from["paths"] == ["config/config.yaml", "config/smoke.yaml"]


@pytest.mark.slow
def test_report_builds(smoke_run: Path) -> None:
    run = snakemake(smoke_run, "--report", "report.html")
    assert run.returncode == 0, run.stderr[-2000:]
    html = (smoke_run / "report.html").read_text()
    assert len(html) > 10_000
    # each figure's provenance and claims are pages of the report, beside the figure
    assert "summary.provenance.html" in html and "claims.html" in html
    # each figure's caption says what its kind plots: not a ±2 SE band for every figure
    assert "percentile-bootstrap band" in html and "No regret is plotted" in html


@pytest.mark.slow
@pytest.mark.parametrize("notebook", sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_every_notebook_is_rendered_by_the_workflow(
    smoke_run: Path, root: Path, notebook: str
) -> None:
    """The workflow ran each notebook on its results (rule notebook) into reports/, with its
    outputs; the notebooks themselves are stored without outputs."""
    nb = nbformat.read(root / f"notebooks/{notebook}.ipynb", as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        "the notebook is stored with outputs"
    )
    html = (smoke_run / f"smoke/reports/{notebook}.html").read_text()
    assert "data:image/png;base64" in html  # its figures, embedded
    assert "Traceback" not in html and "Error" not in html.split("<body", 1)[1][:200]
    if notebook in SMOKE["papers"]:
        # the arena's claims are its own, counted as no paper's reproductions
        counted = "own claims hold" if notebook == "arena" else "reproductions hold"
        assert counted in html and (notebook == "arena" or "checks hold" in html)
        assert str(smoke_run / "smoke/results") in html
    else:  # arena-your-algorithm: its own policy, from a package it writes, in the leaderboard
        assert "dc-ts: Delay-corrected TS (mine)" in html
        assert "Delay-corrected TS (mine)" in html.rsplit("replications of T = ", 1)[1]


def test_a_failing_notebook_fails_its_rule_with_the_cell(tmp_path: Path, capsys) -> None:
    bad = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("1 / (x - 1)")]
    )
    nbformat.write(bad, tmp_path / "bad.ipynb")
    out = tmp_path / "reports" / "bad.html"
    code = main(
        [
            "render",
            "--notebook",
            str(tmp_path / "bad.ipynb"),
            "--results",
            str(tmp_path),
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "a cell failed" in err and "1 / (x - 1)" in err and "ZeroDivisionError" in err
    assert not out.exists()  # nothing half-written
