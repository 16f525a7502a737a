"""docs/decisions/ stays citable: every citation of a decisions page names a page and an anchor
that exist, code cites an entry rather than a whole page, and every page opens with a table of
contents that lists each of its anchors. Cheap checks of the text alone, no workflow run."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

# the checkout's top, wherever the tests folder is
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
DECISIONS = ROOT / "docs" / "decisions"
INDEX = "README"

# an anchor is an HTML id (GitHub drops `{#id}` but keeps these): short, lowercase, hyphenated
_ANCHOR = re.compile(r'<a id="([^"]*)"></a>')
_ANCHOR_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*decisions/)([\w.-]+?)\.md(?:#([\w-]*))?")
# the single file the pages replaced: its section names no longer lead anywhere (spelled in two
# parts here, so that a search of the checkout for the old name finds only real citations)
OLD = "decisions" + ".md"
_OLD_FILE = re.compile(rf"(?<![\w-]){re.escape(OLD)}\b")
_HEADING = re.compile(r"^(#+) ")
# an entry is a top-level item or a paragraph opening with its bold label
_ENTRY = re.compile(r'^(?:- )?(<a id="[^"]*"></a>)?\*\*')
_LOCAL_LINK = re.compile(r"\]\(([\w.-]+\.md)?#([^)\s]*)\)")
_TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".smk", ".ipynb", ".cff", ".toml", ".txt", ""}


def anchors_of(text: str) -> list[str]:
    return _ANCHOR.findall(text)


def citation_errors(name: str, text: str, pages: dict[str, set[str]], code: bool) -> list[str]:
    """``name:line: ...`` for each citation in ``text`` that leads nowhere: the old single file,
    a page or anchor that does not exist, or (in code, which a reader cannot click through) a
    page but the index without an anchor, or a path not from the top of the checkout."""
    errors = []
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{name}:{number}"
        if _OLD_FILE.search(line):
            errors.append(f"{where}: cites {OLD}; cite docs/decisions/<page>.md#<anchor>")
        for prefix, page, anchor in _CITATION.findall(line):
            cited = f"{prefix}{page}.md" + (f"#{anchor}" if anchor else "")
            if page not in pages:
                errors.append(f"{where}: {cited}: no page docs/decisions/{page}.md")
            elif anchor and anchor not in pages[page]:
                errors.append(f"{where}: {cited}: no anchor '{anchor}' in docs/decisions/{page}.md")
            elif code and page == INDEX:
                continue  # the index names the pages: cited as a whole, it is a path
            elif code and not anchor:
                errors.append(f"{where}: {cited}: name the entry, {cited}#<anchor>")
            elif code and prefix != "docs/decisions/":
                errors.append(f"{where}: {cited}: cite it from the top, as docs/decisions/...")
    return errors


def page_errors(name: str, text: str, pages: dict[str, set[str]]) -> list[str]:
    """What a decisions page gets wrong: an anchor badly named or given twice, a heading or entry
    without one, a table of contents that does not list every anchor but the title's in page
    order, or a link to a page or anchor that does not exist."""
    lines = text.splitlines()
    found = anchors_of(text)
    errors = [
        f"{name}: anchor '{a}' is not lowercase-hyphenated"
        for a in found
        if not _ANCHOR_NAME.fullmatch(a)
    ]
    errors += [
        f"{name}: anchor '{a}' given twice" for a in sorted(set(found)) if found.count(a) > 1
    ]
    for number, line in enumerate(lines, 1):
        if _HEADING.match(line):
            above = lines[number - 2] if number > 1 else ""
            if not _ANCHOR.fullmatch(above):
                errors.append(f"{name}:{number}: heading without an anchor on the line before")
        elif (entry := _ENTRY.match(line)) and not entry[1] and line != "**Contents**":
            errors.append(f"{name}:{number}: entry without an anchor before its label")
    if "**Contents**" not in lines:
        errors.append(f"{name}: no table of contents (**Contents** and its list)")
    else:
        start = lines.index("**Contents**") + 2
        end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
        listed = [
            a for line in lines[start:end] for page, a in _LOCAL_LINK.findall(line) if not page
        ]
        wanted = found[1:]  # the first anchor is the title's: the page itself
        if listed != wanted:
            missing = [a for a in wanted if a not in listed]
            extra = [a for a in listed if a not in wanted]
            errors.append(
                f"{name}: the table of contents lists {len(listed)} of {len(wanted)} anchors"
                f" (missing {missing}, not on the page {extra}), or not in page order"
            )
        before = [line for line in lines[: start - 2] if _HEADING.match(line)]
        if len(before) != 1 or not before[0].startswith("# "):
            errors.append(f"{name}: the table of contents does not follow the title directly")
    stem = name.rsplit("/", 1)[-1].removesuffix(".md")
    for number, line in enumerate(lines, 1):
        for page, anchor in _LOCAL_LINK.findall(line):
            target = page.removesuffix(".md") if page else stem
            if target not in pages or anchor not in pages[target]:
                errors.append(f"{name}:{number}: link to {page}#{anchor}, which does not exist")
    return errors


def _pages() -> dict[str, set[str]]:
    return {
        p.stem: set(anchors_of(p.read_text(encoding="utf-8")))
        for p in sorted(DECISIONS.glob("*.md"))
    }


def _text_files() -> list[Path]:
    """The checkout's files that may cite a page, tracked or new (ignored ones left out)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    here = Path(__file__).resolve()
    files = [ROOT / name for name in listed.stdout.splitlines()]
    # this file's own examples are broken on purpose
    return [p for p in files if p.suffix in _TEXT_SUFFIXES and p.is_file() and p.resolve() != here]


# --- the checks, on made-up text first: each broken citation is named with its file and line ---

_MADE_UP_PAGES = {"arena": {"arena", "ties", "ties-odaaf"}, "README": {"decisions"}}


def test_a_citation_of_a_missing_anchor_or_page_is_named_with_its_line() -> None:
    text = "\n".join(
        [
            "fine: docs/decisions/arena.md#ties-odaaf",
            "typo: see docs/decisions/arena.md#ties-odaf.",
            "no page: docs/decisions/arenas.md#ties",
            f'the old file: (docs/{OLD}, "The arena")',
        ]
    )
    assert citation_errors("src/x.py", text, _MADE_UP_PAGES, code=True) == [
        "src/x.py:2: docs/decisions/arena.md#ties-odaf: no anchor 'ties-odaf' in"
        " docs/decisions/arena.md",
        "src/x.py:3: docs/decisions/arenas.md#ties: no page docs/decisions/arenas.md",
        f"src/x.py:4: cites {OLD}; cite docs/decisions/<page>.md#<anchor>",
    ]


def test_code_names_the_entry_and_the_docs_may_name_the_page() -> None:
    text = (
        "the arena (docs/decisions/arena.md), or [its ties](decisions/arena.md#ties), all of"
        " them in docs/decisions/README.md"
    )
    assert citation_errors("docs/x.md", text, _MADE_UP_PAGES, code=False) == []
    assert citation_errors("src/x.py", text, _MADE_UP_PAGES, code=True) == [
        "src/x.py:1: docs/decisions/arena.md: name the entry, docs/decisions/arena.md#<anchor>",
        "src/x.py:1: decisions/arena.md#ties: cite it from the top, as docs/decisions/...",
    ]


_MADE_UP_PAGE = """<a id="arena"></a>
# The arena

**Contents**

- [Ties](#ties)

<a id="ties"></a>
## Ties

- <a id="ties-odaaf"></a>**ODAAF** plays in index order, as [the index](README.md#decisions) says.
- **ODAAF-V** has no anchor, and links to [a missing entry](#ties-odaafv).
"""


def test_a_page_whose_contents_miss_an_anchor_fails() -> None:
    assert page_errors("docs/decisions/arena.md", _MADE_UP_PAGE, _MADE_UP_PAGES) == [
        "docs/decisions/arena.md:12: entry without an anchor before its label",
        "docs/decisions/arena.md: the table of contents lists 1 of 2 anchors (missing"
        " ['ties-odaaf'], not on the page []), or not in page order",
        "docs/decisions/arena.md:12: link to #ties-odaafv, which does not exist",
    ]
    fixed = _MADE_UP_PAGE.replace(
        "- [Ties](#ties)\n", "- [Ties](#ties)\n  - [ODAAF](#ties-odaaf)\n"
    )
    fixed = fixed.replace(
        "- **ODAAF-V** has no anchor, and links to [a missing entry](#ties-odaafv).\n", ""
    )
    assert page_errors("docs/decisions/arena.md", fixed, _MADE_UP_PAGES) == []


# --- the checks, on the checkout ---


def test_the_index_lists_every_page() -> None:
    text = (DECISIONS / f"{INDEX}.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in DECISIONS.glob("*.md") if p.stem != INDEX)
    assert len(pages) >= 8, pages  # five papers, the arena, cross-cutting, engineering
    missing = [page for page in pages if f"]({page})" not in text]
    assert not missing, f"docs/decisions/{INDEX}.md does not list {missing}"


@pytest.mark.parametrize(
    "page",
    sorted(p.stem for p in DECISIONS.glob("*.md") if p.stem != INDEX),
)
def test_each_page_anchors_every_heading_and_entry_and_lists_them(page: str) -> None:
    name = f"docs/decisions/{page}.md"
    errors = page_errors(name, (ROOT / name).read_text(encoding="utf-8"), _pages())
    assert not errors, "\n".join(errors)


def test_every_citation_names_a_page_and_an_anchor_that_exist() -> None:
    pages = _pages()
    errors = []
    for path in _text_files():
        name = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8", errors="ignore")
        errors += citation_errors(name, text, pages, code=path.suffix != ".md")
    assert not errors, "\n".join(errors)
