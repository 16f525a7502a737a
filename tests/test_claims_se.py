"""The SE multiple of the verdict rule (``claims.Z``) is typed once: every claim module's texts
take it from ``claims.zse`` and its computations from ``claims.Z``. A claim module that writes
"2 SE" in a string, or multiplies a standard error by a literal number, fails here, naming the
file and line (docstrings may name the constant, "Z SE"; comments are free)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from delayed_bandits import claims

SRC = Path(claims.__file__).parent
MODULES = sorted(SRC.glob("papers/*/claims.py")) + [SRC / "arena" / "claims.py"]
# "2 SE", "2 paired SE", "-2 SE", "2 standard errors", with any number for 2 but 1 (a value's
# own "± 1 SE" is no multiple)
TYPED = re.compile(r"(?<![\w.{])(?!1 )\d+(\.\d+)? (paired |standard )?(SE|standard errors?)\b")
SE_NAMES = re.compile(r"(^|_)se$")


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def typed_multiples(source: str) -> list[tuple[int, str]]:
    """(line, text) of every SE multiple typed in ``source``: a string constant (an f-string's
    literal parts included) naming a number of SE, and a number times a name ending in ``se``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = TYPED.search(node.value)
            if match:
                found.append((node.lineno, match.group(0)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            sides = (node.left, node.right)
            number = [
                s for s in sides if isinstance(s, ast.Constant) and type(s.value) in (int, float)
            ]
            named = [s for s in sides if SE_NAMES.search(_name(s))]
            if number and named:
                found.append((node.lineno, ast.unparse(node)))
    return found


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_claim_modules_take_the_se_multiple_from_the_constant(module: Path) -> None:
    found = typed_multiples(module.read_text(encoding="utf-8"))
    assert not found, f"{module.relative_to(SRC)} types the SE multiple (use claims.Z / zse): " + (
        ", ".join(f"line {line}: {text!r}" for line, text in found)
    )


@pytest.mark.parametrize(
    "source",
    [
        'x = "below by 2 SE"',
        'x = f"{a} above it by 2 paired SE"',
        'x = "fails: < -2 SE"',
        "x = mean - 2 * se",
        "x = fit.se * 2.0",
        "x = 1.96 * gap_se",
    ],
)
def test_a_typed_multiple_is_caught(source: str) -> None:
    assert typed_multiples(source)


def test_the_constant_and_the_docstrings_pass() -> None:
    source = '"""Judged at Z SE."""\nw = "mean ± 1 SE"\nx = f"below by {zse()}"\ny = mean - Z * se\nz = 2 * n\n'
    assert typed_multiples(source) == []
    assert claims.zse() == f"{claims.Z:g} SE"
    assert claims.zse("paired SE", z=3) == "3 paired SE"
