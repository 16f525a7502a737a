"""One declaration per entrant: every list that groups the arena's entrants (the curves' families,
the handling × base tables of the claims, the digest and the docs) is computed from the entrants'
declarations (``Entrant.family``, ``handling``, ``base``), and no count or list of the built-in
entrants is typed anywhere else, so a new built-in entrant touches its module, its ``BUILT_IN``
line and its config line (``docs/extending.md``)."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import numpy as np
import pytest

from conftest import ROOT, FirstArm, arena_draw
from delayed_bandits import quoted
from delayed_bandits.arena import claims, digest, experiment
from delayed_bandits.arena.entrants import (
    CONVERSIONS,
    LABELLED,
    SETTLED,
    Base,
    Handling,
    from_policy,
)
from delayed_bandits.arena.experiment import BUILT_IN
from delayed_bandits.arena.views import families
from delayed_bandits.errors import ConfigError

IDS = {e.id for e in BUILT_IN}
N = len(BUILT_IN)
# A count of the entrants typed as a number: "28 entrants", "x 28 algorithms", "80 * 112 * 28".
TYPED_COUNT = re.compile(
    rf"(?<![\d.]){N}\s+(?:built-in\s+)?(?:entrants|algorithms|curves)\b"
    rf"|(?:(?<!\*)\*|\bx|×)\s*{N}(?![\d.])|(?<![\d.]){N}\s*(?:\*(?!\*)|×)"
)
# Lists of entrants that name them on purpose: the subjects of a claim or a comparison, chosen by
# what it states (the delay-aware methods a claim holds against ignoring delays, the pairs of
# Vernade et al. 2017's learners, which has no TS, the pairs that isolate one factor), not a
# grouping a new entrant would join.
SUBJECTS = {
    ("claims.py", "DELAY_AWARE"),
    ("claims.py", "WINDOWED"),
    ("digest.py", "COMPARISONS"),
}
# Records of measured runs, true of the run they describe whatever is declared since.
RECORDS = {"docs/speed.md"}


def test_every_built_in_entrant_has_a_family_and_the_curves_read_them() -> None:
    assert all(e.family for e in BUILT_IN), [e.id for e in BUILT_IN if not e.family]
    assert families.FAMILIES == experiment.families()
    members = [a for _, algs in families.FAMILIES for a in algs]
    assert sorted(members) == sorted(IDS) and len(members) == N
    named = [name for name, _ in families.FAMILIES]
    assert named[: len(experiment.FAMILIES)] == list(experiment.FAMILIES)


def test_the_handling_base_tables_read_the_declarations() -> None:
    cells = {(e.handling, e.base): e.id for e in BUILT_IN if e.handling}
    table = experiment.crossing()
    assert {(h, b): e.id for h, row in table.items() for b, e in row.items()} == cells
    assert list(table) == list(experiment.HANDLINGS)
    assert digest.CROSSING == {
        h.name: tuple(cells.get((h, b), "") for b in experiment.BASES) for h in table
    }
    assert digest.BASES == tuple(b.header for b in experiment.BASES)
    assert claims.CROSSED == {
        b.name: tuple(cells[(h, b)] for h in experiment.HANDLINGS[:3]) for b in experiment.BASES
    }
    for handling, row in table.items():  # the docs' table: a row per handling, every cell's id
        line = next(
            x
            for x in digest.declared()["arena-handling-base"].splitlines()
            if handling.description in x
        )
        assert all(f"(`{e.id}`)" in line for e in row.values())


def test_a_new_built_in_entrant_joins_every_list_from_its_declaration(monkeypatch) -> None:
    """A toy built-in entrant with a family, a handling and a base of its own: the families, the
    crossing tables and the docs' block take it in, with nothing else edited."""
    toy = replace(
        next(e for e in BUILT_IN if e.id == "ts"),
        id="toy",
        label="Toy",
        family="Toy et al. 2031",
        handling=Handling("guess", "guess the outcome (Toy et al. 2031)"),
        base=Base("a toy base", "toy base"),
    )
    monkeypatch.setattr(experiment, "ALGORITHMS", [*experiment.ALGORITHMS, toy])
    assert experiment.families()[-1] == ("Toy et al. 2031", ("toy",))
    table = experiment.crossing()
    assert list(table)[-1] == toy.handling and table[toy.handling] == {toy.base: toy}
    assert experiment.columns(table)[-1] == toy.base
    block = digest.declared()["arena-handling-base"]
    assert "| toy base | information model |" in block
    assert "| guess the outcome (Toy et al. 2031) | n/a | n/a | n/a | Toy (`toy`) |" in block
    with pytest.raises(ConfigError, match="toy and toy2 both declare the cell"):
        experiment.crossing([toy, replace(toy, id="toy2")])
    with pytest.raises(ConfigError, match="give both or neither"):
        replace(toy, base=None)


def _literal_lists(path) -> list[tuple[str, list[str]]]:
    """(the name assigned, if any, the built-in ids) of every literal list, tuple, set or dict
    in ``path`` that names at least three built-in entrants."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        name = next((t.id for t in targets if isinstance(t, ast.Name)), "")
        for value in [node.value] if isinstance(node, ast.Assign) else []:
            strings = [
                c.value
                for c in ast.walk(value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
            named = [s for s in strings if s in IDS]
            if len(named) >= 3:
                found.append((name, named))
    return found


def test_no_list_of_entrants_is_typed_outside_their_declarations() -> None:
    """The arena names its entrants once, in ``experiment.BUILT_IN`` (and the config, which
    chooses the curves to run); a list of three or more ids anywhere else in it is a list a new
    entrant would have to join, unless it names the subjects of a claim (``SUBJECTS``). (The
    papers' own modules name their algorithms, some of which share an arena id.)"""
    arena = ROOT / "src" / "delayed_bandits" / "arena"
    typed = [
        (path.relative_to(arena).as_posix(), name, ids)
        for path in sorted(arena.rglob("*.py"))
        if path != arena / "experiment.py"
        for name, ids in _literal_lists(path)
        if (path.relative_to(arena).as_posix(), name) not in SUBJECTS
    ]
    assert not typed, f"lists of entrants typed outside their declarations: {typed}"


def test_the_guard_finds_a_typed_count() -> None:
    for typed in (f"{N} entrants", f"80 * 112 * {N} * 50", f"14 regimes x {N} algorithms"):
        assert TYPED_COUNT.search(typed), typed
    for fine in (f"0.{N}", f"{N} settings", f"in all {N} cells", f"{N}.5 s", f"2**{N}"):
        assert not TYPED_COUNT.search(fine), fine


def _scanned() -> list[str]:
    files = [
        *(ROOT / "src").rglob("*.py"),
        *(ROOT / "src").rglob("*.yaml"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "config").glob("*.yaml"),
        *(ROOT / "docs").rglob("*.md"),
        ROOT / "README.md",
    ]
    return sorted(
        p.relative_to(ROOT).as_posix()
        for p in files
        if p.relative_to(ROOT).as_posix() not in RECORDS and p != ROOT / __file__
    )


@pytest.mark.parametrize("path", _scanned())
def test_no_count_of_the_entrants_is_typed(path: str) -> None:
    """The number of built-in entrants is typed nowhere: code counts the declarations, and the
    docs quote what a run had (``quoted`` blocks, left out here). A count in this file's guard
    examples is built from ``len(BUILT_IN)``."""
    text = (ROOT / path).read_text(encoding="utf-8")
    text = quoted.outside(text) if path.endswith(".md") else text
    found = [
        f"line {text.count(chr(10), 0, m.start()) + 1}: {m[0]!r}"
        for m in TYPED_COUNT.finditer(text)
    ]
    assert not found, f"{path}: the number of entrants typed (count the declarations): {found}"


class _Converts(FirstArm):
    """A policy of the conversions model: choose, played, observe."""


class _Outcomes:
    """A policy that needs every outcome: observe_outcome, not observe."""

    def __init__(self, problem, rng):
        pass

    def choose(self, t):
        return 0

    def played(self, t, arm):
        pass

    def observe_outcome(self, s, arm, reward, delay):
        pass


class _Both(_Converts):
    def observe_outcome(self, s, arm, reward, delay):
        pass


class _Chooses:
    def __init__(self, problem, rng):
        pass

    def choose(self, t):
        return 0


def test_a_policy_class_is_checked_against_its_information_model_at_load() -> None:
    """A declaration that does not match its class fails when the entrant is declared, naming it
    and what to declare, instead of with a bare AttributeError inside a simulation job."""
    with pytest.raises(
        ConfigError, match="entrant 'mine': _Outcomes has observe_outcome, not "
    ) as exc:
        from_policy("mine", "Mine", "mine", _Outcomes)
    assert "information=SETTLED" in str(exc.value) and "information=LABELLED" in str(exc.value)
    for information in (SETTLED, LABELLED):
        from_policy("mine", "Mine", "mine", _Outcomes, information=information)
        with pytest.raises(ConfigError, match="entrant 'mine': _Converts has observe, not obs"):
            from_policy("mine", "Mine", "mine", _Converts, information=information)
    with pytest.raises(ConfigError, match="entrant 'mine': _Chooses has no played, observe;"):
        from_policy("mine", "Mine", "mine", _Chooses)
    with pytest.raises(ConfigError, match="_Chooses has no played, observe_outcome;"):
        from_policy("mine", "Mine", "mine", _Chooses, information=LABELLED)
    # a class with both methods serves either model; a factory that is no class is not inspected
    for information in (CONVERSIONS, SETTLED, LABELLED):
        from_policy("mine", "Mine", "mine", _Both, information=information)
    from_policy("mine", "Mine", "mine", lambda problem, rng: _Outcomes(problem, rng))


def test_the_check_at_load_spares_the_job_its_attribute_error() -> None:
    """What the check prevents: the same class, declared by a factory that is not inspected,
    fails only once it runs, with an AttributeError that names neither entrant nor declaration."""
    st, draw = arena_draw(1, 200)
    unchecked = from_policy("mine", "Mine", "mine", lambda problem, rng: _Outcomes(problem, rng))
    with pytest.raises(AttributeError, match="no attribute 'observe'"):  # at a conversion
        unchecked.reference(st, draw, np.array([200]), 0)


def test_an_entrant_is_declared_tuned_to_the_horizon_exactly_when_it_is_told_t() -> None:
    """``Entrant.horizon_tuned`` (the rows the early heatmap marks) agrees with what each entrant
    is said to be told: T first in its ``knows``."""
    for entrant in BUILT_IN:
        told_t = re.match(r"T\b", entrant.knows(experiment.BENCH)) is not None
        assert entrant.horizon_tuned == told_t, entrant.id
