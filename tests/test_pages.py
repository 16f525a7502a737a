"""The page per figure (``pages``), from a fixture run: a claims file, a summary's
provenance made by ``provenance.build`` and a ``snakemake --detailed-summary`` text, with and
without the digest's findings. No workflow runs."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import ROOT
from delayed_bandits import config, pages, provenance, tables

SMOKE = ["config/config.yaml", "config/smoke.yaml"]
CLAIMS = [
    {
        "id": "fig2-thetaL-d-klucb-below-after-m",
        "statement": "d-KLUCB ends below Discarding UCB",
        "paper_ref": "Section 7, Figure 2",
        "measured": "41.6 ± 0.4 against 50.2 ± 0.5",
        "expected": "below",
        "holds": True,
        "note": "",
        "kind": "reproduction",
        "runs_needed": None,
    },
    {
        "id": "fig2-thetaL-d-ucb-better-early",
        "statement": "d-UCB better early",
        "paper_ref": "Section 7, Figure 2",
        "measured": "65.6 ± 0.3 against 46.1 ± 0.2",
        "expected": "below",
        "holds": False,
        "note": "crosses",
        "kind": "reproduction",
        "runs_needed": None,
    },
]
FINDINGS = [
    {
        "paper": "vernade2017",
        "id": "delay-corrected-better",
        "figures": ["vernade2017-fig2"],
        "statement": "the delay-corrected policies outperform Discarding",
        "location": "Section 7, p. 8",
        "verdict": "reproduces in part",
        "establishing": [{"id": "fig2-thetaL-d-klucb-below-after-m", "verdict": "holds"}],
        "qualifying": ["fig2-thetaL-d-ucb-better-early"],
        "sentence": "d-KLUCB ends at 41.6 against 50.2.",
    },
    {
        "paper": "vernade2017",
        "id": "elsewhere",
        "figures": ["vernade2017-fig1"],
        "statement": "not about Figure 2",
        "location": "Section 7",
        "verdict": "reproduces",
        "establishing": [],
        "qualifying": [],
        "sentence": "",
    },
]


def _summary(prefix: str) -> str:
    """A detailed summary as Snakemake writes it: a claims and a plot job of Figure 2 with their
    commands, a shard of Figure 1 (not this figure's) and one file made without a record."""
    rows = [
        (
            "output_file",
            "date",
            "rule",
            "log-file(s)",
            "input-file(s)",
            "shellcmd",
            "status",
            "plan",
        ),
        (
            f"{prefix}results/vernade2017/fig2/claims.json",
            "Sun Dec  6 03:00:00 2026",
            "claims",
            "-",
            f"{prefix}results/vernade2017/fig2/summary.csv,{prefix}results/vernade2017/fig2/rep0-7.parquet",
            "delayed-bandits claims --merged x.json --paper vernade2017 --figure fig2 --out c.json",
            "ok",
            "no update",
        ),
        (
            f"{prefix}figures/vernade2017-fig2.pdf",
            "-",
            "plot",
            "-",
            f"{prefix}results/vernade2017/fig2/summary.csv",
            "delayed-bandits plot --merged x.json --paper vernade2017 --figure fig2",
            "ok",
            "no update",
        ),
        (
            f"{prefix}figures/vernade2017-fig2.png",
            "-",
            "plot",
            "-",
            f"{prefix}results/vernade2017/fig2/summary.csv",
            "delayed-bandits plot --merged x.json --paper vernade2017 --figure fig2",
            "ok",
            "no update",
        ),
        (
            f"{prefix}results/vernade2017/fig2/rep0-7.parquet",
            "-",
            "simulate_figure",
            "-",
            "-",
            "-",
            "missing",
            "update pending",
        ),
        (
            f"{prefix}results/vernade2017/fig1/rep0-7.parquet",
            "-",
            "simulate_figure",
            "-",
            "-",
            "delayed-bandits simulate --figure fig1",
            "ok",
            "no update",
        ),
    ]
    return "\n".join("\t".join(r) for r in rows) + "\n"


@pytest.fixture
def run(tmp_path: Path, monkeypatch) -> Path:
    """A smoke run's folder holding Figure 2 of Vernade et al. 2017: its claims and provenance."""
    monkeypatch.chdir(ROOT)  # the config files the provenance names
    cfg = config.load(SMOKE, "vernade2017", None, "fig2")
    record = provenance.build(
        paper="vernade2017",
        figure="fig2",
        config=cfg,
        made_from=config.sources(SMOKE),
        git={"git_commit": "a" * 40, "git_dirty": False},
        replications={"thetaL": {"d-ucb": 8, "d-klucb": 8}},
        shards=[None],
        aggregation_s=0.5,
        created=datetime(2026, 12, 6, tzinfo=timezone.utc),
        hostname="here",
    )
    folder = tmp_path / "smoke" / "results" / "vernade2017" / "fig2"
    folder.mkdir(parents=True)
    made_by = provenance.claims_binding(cfg, "vernade2017", "fig2")
    tables.write_recorded(json.dumps(CLAIMS).encode(), folder / "claims.json", made_by)
    (folder / "summary.provenance.json").write_text(provenance.to_json(record))
    return tmp_path / "smoke"


def test_a_page_shows_the_figure_its_claims_and_how_it_was_made(run: Path) -> None:
    made = pages.build(run, {"figures": []}, _summary("smoke/"))
    assert len(made) == len(pages.figures(config.load(SMOKE)))  # every figure, run or not
    page = made[Path("vernade2017-fig2.md")]
    assert "not in the run" not in page
    waiting = made[Path("vernade2017-fig1.md")]  # a figure the run does not hold
    assert "This figure is not in the run this page was written from" in waiting
    assert "snakemake -n -p -F smoke/results/vernade2017/fig1/claims.json" in waiting
    assert "![vernade2017-fig2](../../smoke/figures/vernade2017-fig2.png)" in page
    assert "Run at the **smoke scale**" in page
    # the claims with verdicts and measured numbers, counted
    assert (
        "| `fig2-thetaL-d-ucb-better-early` | d-UCB better early | reproduction | Section 7, Figure 2 | 65.6 ± 0.3"
        in page
    )
    assert "1 of 2 reproductions hold, 1 fail" in page
    # the dry run names the claims job's output beside the drawing, with the overlay
    assert (
        "snakemake -n -p -F smoke/results/vernade2017/fig2/claims.json "
        "smoke/figures/vernade2017-fig2.pdf --configfile config/smoke.yaml" in page
    )
    # the commands the detailed summary recorded: this figure's, the drawing once for both files
    assert "delayed-bandits claims --merged x.json --paper vernade2017 --figure fig2" in page
    assert page.count("delayed-bandits plot --merged x.json") == 1
    assert "--figure fig1" not in page  # another figure's job
    assert "(no command recorded" in page  # the shard made outside this Snakemake
    assert page.index("rule `simulate_figure`") < page.index("rule `claims`")
    # config section, seeds, hashes, and the provenance as a table, not JSON
    assert "```yaml\ntitle: Vernade et al. 2017, Figure 2" in page and "replications: " in page
    assert "&id" not in page  # a setting's shared values written out, not as YAML anchors
    assert "| thetaL | thetaL |" in page
    assert f"Root seed {config.load(SMOKE)['seed']};" in page
    assert "| config sha256 (this figure's section) |" in page
    assert "| replications.thetaL.d-ucb | 8 |" in page and '"replications"' not in page
    # no findings in the digest: the claims' references stand for the paper's words
    assert "## Findings" not in page and "Section 7, Figure 2" in page


def test_a_page_lists_the_findings_naming_its_figure(run: Path) -> None:
    page = pages.build(run, {"figures": [], "findings": FINDINGS}, _summary("smoke/"))[
        Path("vernade2017-fig2.md")
    ]
    assert "## Findings" in page
    assert "### delay-corrected-better: reproduces in part" in page
    assert "> the delay-corrected policies outperform Discarding\n> — Section 7, p. 8" in page
    assert "Of the statement at Section 7, p. 8 (quoted above). d-KLUCB ends at 41.6" in page
    assert (
        "- establishing: `fig2-thetaL-d-klucb-below-after-m` (holds)" in page
        and "- qualifying: `fig2-thetaL-d-ucb-better-early`" in page
    )
    assert "not about Figure 2" not in page  # another figure's finding


def test_a_paper_scale_run_writes_at_the_top(tmp_path: Path) -> None:
    at = pages.Run.of(tmp_path, "paper")
    assert at == pages.Run(tmp_path, "")
    assert pages.Run.of(tmp_path / "smoke", "smoke") == pages.Run(tmp_path, "smoke/")
    fig = pages.Figure("vernade2017-fig2", "vernade2017", "fig2")
    assert pages.targets(at, [fig]) == [
        "results/vernade2017/fig2/claims.json",
        "figures/vernade2017-fig2.pdf",
    ]
    # a view of the arena's figure regret: its drawing alone
    view = pages.Figure("arena-curves", "arena", "regret")
    assert pages.targets(at, [view]) == ["figures/arena-curves.pdf"]


def test_every_figure_and_the_arenas_views_get_a_page(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    found = pages.figures(config.load(["config/config.yaml"]))
    names = [f.name for f in found]
    assert len([f for f in found if f.paper != "arena"]) == 17
    assert {"arena-regret", "arena-curves", "arena-early", "arena-ranks"} <= set(names)
    assert pages.Figure("arena-curves", "arena", "regret") in found


def test_a_checkout_without_a_run_gets_a_page_per_figure_waiting_for_it(
    monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)
    made = pages.build(tmp_path, {}, "")  # a folder with no run (the checkout may hold one)
    assert len(made) == len(pages.figures(config.load(["config/config.yaml"])))
    page = made[Path("manegueu2020-fig2.md")]
    assert "Run at the **paper scale**" in page and "![manegueu2020-fig2](../../figures/" in page
    assert page.count(pages.NOT_RUN) == 3  # under the image, the claims and the provenance


def test_the_provenance_reads_as_rows() -> None:
    rows = pages.provenance_rows({"a": {"b": [1, 2], "c": None}, "d": [{"e": "x"}]})
    assert rows == [("a.b", "1, 2"), ("a.c", "none"), ("d[0].e", "x")]
    page = pages.provenance_html({"a": {"b": "<x>"}}, "t")
    assert "<tr><th>a.b</th><td>&lt;x&gt;</td></tr>" in page and "<pre>" not in page


def test_a_document_of_several_pages_shows_each(run: Path) -> None:
    """The arena's curves: a PNG per page of its PDF (``plotting.page_png``), each shown."""
    fig = pages.Figure("arena-curves", "arena", "regret")
    at = pages.Run(run.parent, "smoke/")
    text = pages.render(
        fig, at, section={}, scale="smoke scale", rows=[], record=None, made_by=[], pages=2
    )
    assert "![arena-curves, page 2](../../smoke/figures/arena-curves-pages/page2.png)" in text
    assert "has 2 pages" in text
    one = pages.render(fig, at, section={}, scale="smoke scale", rows=[], record=None, made_by=[])
    assert "![arena-curves](../../smoke/figures/arena-curves.png)" in one and "page1" not in one


def test_every_page_of_a_document_is_a_png_of_its_own(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from delayed_bandits import plotting

    folder = tmp_path / "arena-curves-pages"
    folder.mkdir()
    (folder / "page3.png").write_bytes(b"a page of an earlier, longer document")
    doc = [plt.figure(figsize=(2, 2)) for _ in range(2)]
    plotting.save(doc, [tmp_path / "x.pdf", tmp_path / "x.png"], folder)
    assert sorted(p.name for p in folder.iterdir()) == ["page1.png", "page2.png"]
    assert (tmp_path / "x.png").read_bytes() == (folder / "page1.png").read_bytes()


def test_quote_papers_write_writes_the_pages(run: Path, tmp_path: Path, monkeypatch) -> None:
    """``quote papers --run R --write`` writes the digest and a page per figure into --pages,
    with the jobs of the run's detailed summary (stubbed here: no Snakemake runs)."""
    from delayed_bandits import cli

    monkeypatch.setattr(pages, "detailed_summary", lambda where, done, first: _summary("smoke/"))
    doc, out = tmp_path / "doc.md", tmp_path / "figures"
    doc.write_text("no blocks\n")
    args = ["quote", "papers", "--run", str(run), "--write", "--pages", str(out)]
    assert cli.main([*args, "--digest", str(tmp_path / "d.json"), "--docs", str(doc)]) == 0
    page = (out / "vernade2017-fig2.md").read_text()
    assert (
        "delayed-bandits claims --merged x.json" in page
        and "| `fig2-thetaL-d-ucb-better-early` |" in page
    )
    assert (out / "arena-curves.md").is_file()
