"""Each statistical rule is worded once, beside the code that applies it: the arena's tie rule and
precision target in ``arena.ties``, the claims' verdict rule in ``claims``. A caption, schema
description, notebook, document or docstring that restates a rule in its own words drifts when the
rule changes (a notebook kept the previous edition's tie rule), so this guard fails on the phrases
that state one anywhere but in those modules and in the docs' quoted blocks, which
``delayed-bandits quote --write`` rewrites from them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from delayed_bandits import quoted

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
DEFINITIONS = {"src/delayed_bandits/arena/ties.py", "src/delayed_bandits/claims.py"}
"""Where the rules are worded: the only files allowed to state them."""

RESTATED = re.compile(
    r"\bwithin (?:the |its )?(?:equivalence )?margin\b"
    r"|\bupper end of (?:its|the) (?:\S+ ){0,3}(?:difference|interval)"
    r"|\blower end (?:is )?(?:above|beyond) (?:the |its )?margin\b"
    r"|\bdifference from the (?:best|lowest) within\b"
    r"|\bwithin \S+ of its standard errors\b"
    r"|\bhalf-width\b.{0,60}\bat most\b"
    r"|\b(?:at|by) (?:Z ?= ?)?(?:2|two|\$?Z\$?) standard errors\b"
    r"|\(at 2 SE\b"
    r"|\bslope ?/ ?SE \$?>",
    re.IGNORECASE | re.DOTALL,
)
"""Phrases that state a rule (the tie rule's interval ends and margin, the precision target's
half-width, the verdict rule's standard errors; not the ±2 SE band a plot draws); the words may
break across lines."""


def _texts(path: Path) -> list[tuple[str, str]]:
    """(where, text) of what ``path`` says by hand: a notebook's cells one by one, a document
    without its quoted blocks, any other file whole."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        return [
            (f"cell {cell.get('id', i)}", "".join(cell["source"]))
            for i, cell in enumerate(json.loads(text)["cells"])
        ]
    return [("", quoted.outside(text) if path.suffix == ".md" else text)]


def _files() -> list[Path]:
    patterns = ("README.md", "docs/**/*.md", "notebooks/*.ipynb", "config/*.yaml", "src/**/*.py")
    found = {p for pattern in patterns for p in ROOT.glob(pattern)}
    found |= set(ROOT.glob("src/**/*.yaml"))
    return sorted(p for p in found if p.relative_to(ROOT).as_posix() not in DEFINITIONS)


def restated(path: Path) -> list[str]:
    """Each phrase of ``path`` that states a rule, by its line (and cell, in a notebook)."""
    found = []
    for where, text in _texts(path):
        flat = re.sub(r"\s+", " ", text)
        starts = [m.start() for m in re.finditer(r"\S+", text)]
        for m in RESTATED.finditer(flat):
            # the match's word in the unflattened text gives its line
            word = flat.count(" ", 0, m.start()) - (1 if flat.startswith(" ") else 0)
            line = text.count("\n", 0, starts[min(word, len(starts) - 1)]) + 1
            found.append(f"{', '.join(filter(None, [where, f'line {line}']))}: {m[0]!r}")
    return found


@pytest.mark.parametrize(
    "phrase",
    [
        "a cell is tied-best when the upper end of its paired difference interval is",
        "bold = tied-best, its 95 % paired-bootstrap difference from the best within\n10 % of",
        "  *tied-best* when its mean paired difference from the best is within 2 of its standard"
        " errors;",
        "faded: worse, its lower end above the margin",
        "the half-width of its paired difference interval is at most this fraction",
        "they establish the opposite, at 2 standard errors where",
        "fails when they establish the opposite (at 2 SE, or by its own test)",
    ],
)
def test_the_guard_finds_a_restated_rule(phrase: str, tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text(f"before\n{phrase}\nafter\n")
    assert restated(doc)
    doc.write_text(f"<!-- quoted: x -->\n{phrase}\n<!-- /quoted: x -->\n")
    assert not restated(doc)


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_rule_is_restated_outside_its_definition(path: Path) -> None:
    found = restated(path)
    assert not found, (
        f"{path.relative_to(ROOT)} states a rule in its own words (read it from arena.ties or "
        f"claims, or quote it with delayed-bandits quote --write): {found}"
    )
