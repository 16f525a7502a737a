"""The README stays a front page, and the docs it links to stay where it says they are: cheap checks
of the text alone, no workflow run."""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

from conftest import ROOT
from delayed_bandits import config as dbconfig
from delayed_bandits import papers

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
DECISIONS = sorted((ROOT / "docs" / "decisions").glob("*.md"))  # linked from its own index

# [text](target): a target without a scheme is a path relative to the page
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _pages() -> list[Path]:
    return [README, *DOCS, *DECISIONS]


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 160, f"README.md has {len(lines)} lines; move detail to docs/"


def test_front_page_links_every_docs_page():
    text = README.read_text(encoding="utf-8")
    missing = [p.name for p in DOCS if f"docs/{p.name}" not in text]
    missing += [] if "docs/decisions/README.md" in text else ["decisions/README.md"]
    assert not missing, f"docs pages not linked from README.md: {missing}"


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path):
    broken = []
    for target in _LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor on the same page
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, f"{page.name}: links to missing files: {broken}"


def _readme_figure_ids() -> list[str]:
    """The figure ids in the first column of the README's table of figures."""
    text = README.read_text(encoding="utf-8")
    table = text.split("## Figures and verdicts", 1)[1].split("\n## ", 1)[0]
    ids = []
    for row in table.splitlines():
        if row.startswith(("| `", "| [`")):
            ids += re.findall(r"`([a-z0-9]+-[A-Za-z0-9]+)`", row.split("|")[1])
    return ids


def test_readme_figures_are_targets():
    """Every figure of the table is `figures/<id>.pdf` of some rule: a configured figure
    (papers.<paper>.<figure>, rule plot) or one of a paper's extra targets (the arena's views)."""
    cfg = dbconfig.load(ROOT / "config" / "config.yaml")
    configured = {f"{paper}-{fig}" for paper, figs in cfg["papers"].items() for fig in figs}
    targets = set(configured)
    for paper in cfg["papers"]:
        extra = papers.get(paper).extra_targets
        targets |= {Path(t).stem for t in extra if t.startswith("figures/")}
    ids = _readme_figure_ids()
    assert len(ids) >= len(cfg["papers"]), ids
    assert set(ids) <= targets, f"not a figure target: {sorted(set(ids) - targets)}"
    missing = sorted(configured - set(ids))
    assert not missing, f"figures missing from the README's table: {missing}"


def test_every_figure_has_its_page_linked_from_the_readme():
    """Each figure and view of the config has its page (docs/figures/<id>.md, ``pages``), and
    the README's table links each of its figures to it."""
    from delayed_bandits import pages

    cfg = dbconfig.load(ROOT / "config" / "config.yaml")
    names = [f.name for f in pages.figures(cfg)]
    missing = [n for n in names if not (ROOT / pages.PAGES / f"{n}.md").is_file()]
    assert not missing, f"no page in {pages.PAGES}: {missing}"
    table = README.read_text(encoding="utf-8").split("## Figures and verdicts", 1)[1]
    unlinked = [n for n in _readme_figure_ids() if f"[`{n}`](docs/figures/{n}.md)" not in table]
    assert not unlinked, (
        f"README's table names these figures without linking their page: {unlinked}"
    )


def test_artifact_evaluation_covers_every_figure():
    """docs/artifact-evaluation.md has a command for every configured figure's claims."""
    text = (ROOT / "docs" / "artifact-evaluation.md").read_text(encoding="utf-8")
    cfg = dbconfig.load(ROOT / "config" / "config.yaml")
    missing = [
        f"{paper}/{fig}"
        for paper, figs in cfg["papers"].items()
        for fig in figs
        if f"results/{paper}/{fig}/claims.json" not in text
    ]
    assert not missing, f"figures without a command in docs/artifact-evaluation.md: {missing}"


def test_citation_lists_every_reproduced_paper():
    """CITATION.cff cites each reproduced paper: its authors (the registration's title starts with
    their family names, then the venue and year) under a reference of that year."""
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    cited = {
        (ref["year"], tuple(a["family-names"] for a in ref["authors"]))
        for ref in cff["references"]
        if ref["type"] == "conference-paper"
    }
    checked = 0
    for paper in papers.ids():
        match = re.match(
            r"^(?P<authors>[^()]+?), (?P<venue>[A-Za-z]+) (?P<year>\d{4}) \(",
            papers.get(paper).title,
        )
        if match is None:
            continue  # not a paper (the arena)
        authors = tuple(match["authors"].split(", "))
        assert (int(match["year"]), authors) in cited, f"{paper}: not in CITATION.cff"
        checked += 1
    assert checked >= 5


def test_release_metadata_agrees() -> None:
    """One version in pyproject.toml, the package, CITATION.cff, .zenodo.json and the changelog's
    newest entry; every paper cited with its proceedings page or DOI."""
    import json
    import tomllib

    import delayed_bandits

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    zenodo = json.loads((ROOT / ".zenodo.json").read_text(encoding="utf-8"))
    newest = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert delayed_bandits.__version__ == cff["version"] == zenodo["version"] == version
    assert newest and newest[1] == version
    assert cff["authors"] and zenodo["creators"] and cff["license"] == zenodo["license"] == "MIT"
    papers_cited = [r for r in cff["references"] if r["type"] == "conference-paper"]
    assert len(papers_cited) >= 5
    assert all(r.get("url") or r.get("doi") for r in papers_cited), papers_cited


def test_the_criteo_table_says_its_source_and_licence() -> None:
    """Each copy of the quantile table in config/config.yaml has its source and licence in the
    comment lines just above it, which point to THIRD_PARTY_NOTICES.md."""
    lines = (ROOT / "config" / "config.yaml").read_text(encoding="utf-8").splitlines()
    tables = [i for i, line in enumerate(lines) if "values: [0.0, 1.827" in line]
    assert len(tables) == 2
    for i in tables:
        above = "\n".join(lines[max(0, i - 15) : i])
        assert "THIRD_PARTY_NOTICES.md" in above and "CC BY-NC-SA 4.0" in above, above
    notices = (ROOT / "THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    assert "CC BY-NC-SA 4.0" in notices and "bootstrap-conversions" in notices


def _fenced(text: str, language: str) -> list[str]:
    """The code blocks of ``text`` fenced as ``language`` (indented ones, in lists, too)."""
    blocks = re.findall(rf"^( *)```{language}\n(.*?)^\1```", text, re.MULTILINE | re.DOTALL)
    return [textwrap.dedent(body) for _, body in blocks]


def test_an_overlay_changing_a_delay_kind_replaces_the_law() -> None:
    """The overlay of docs/auditing.md makes a geometric law (with its mean) a Pareto law: the
    merged law is the overlay's alone."""
    [overlay] = _fenced((ROOT / "docs" / "auditing.md").read_text(encoding="utf-8"), "yaml")
    base = dbconfig.merged(ROOT / "config" / "config.yaml")
    merged = dbconfig.merge(base, yaml.safe_load(overlay))
    before = base["papers"]["vernade2017"]["fig2"]["settings"]["thetaL"]["delay"]
    after = merged["papers"]["vernade2017"]["fig2"]["settings"]["thetaL"]["delay"]
    assert before["kind"] == "geometric" and "mean" in before
    assert after == {"kind": "pareto", "alpha": 1.5}
    # the same kind with a new parameter still merges key by key
    same = dbconfig.merge(
        {"delay": {"kind": "exponential", "mean": 5, "bound": 30}},
        {"delay": {"kind": "exponential", "mean": 7}},
    )
    assert same == {"delay": {"kind": "exponential", "mean": 7, "bound": 30}}


def test_no_tracker_numbers_in_the_artifact() -> None:
    """The issue tracker does not ship with the artifact: say what was decided and why instead."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    found = []
    for name in tracked.stdout.splitlines():
        path = ROOT / name
        if path.is_file() and path.suffix in {
            ".py",
            ".md",
            ".yaml",
            ".smk",
            ".ipynb",
            ".rst",
            ".cff",
            "",
        }:
            text = path.read_text(encoding="utf-8", errors="ignore")
            found += [f"{name}: {hit}" for hit in re.findall(r"\b[Ii]ssues? #?\d+", text)]
    assert not found, found


# `leaderboard.py:123`, and the `:80-91` that continues such a list: line numbers go stale
_LINE_REFERENCE = re.compile(r"\.py:\d+|`:\d+(?:-\d+)?`")


def test_markdown_cites_code_by_name_not_by_line() -> None:
    """Code is cited by its function or class name (`leaderboard._ties`), which a reader can
    find after the file changes; a line number silently points elsewhere."""
    example = "see `kernels.py:70-72`, `:80`, not `leaderboard._ties` or `t:3`"
    assert len(_LINE_REFERENCE.findall(example)) == 2
    tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    found = [
        f"{name}:{number}: {hit}"
        for name in tracked.stdout.splitlines()
        if (ROOT / name).is_file()
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
        for hit in _LINE_REFERENCE.findall(line)
    ]
    assert not found, found
