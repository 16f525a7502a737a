"""The package's modules form layers without cycles, so a reader can start at the bottom.

Every ``.py`` under ``src/delayed_bandits`` is parsed with ``ast`` and every import of a
``delayed_bandits`` module is an edge, wherever it stands: at module level, or inside a function
(an import deferred into a function to dodge a cycle is still a cycle, only a hidden one). An edge
goes to the module imported (``from delayed_bandits import config`` imports the module
``config``; ``from delayed_bandits.kinds import Kind`` the module ``kinds``) and to every package
above it, whose ``__init__`` Python runs first: importing
``delayed_bandits.papers.vernade2017.policies`` runs ``delayed_bandits.papers`` (the registry) and
``delayed_bandits.papers.vernade2017`` (the paper's registration). A package is its ``__init__``.

What is not an edge: the registry's ``importlib.import_module`` calls (``papers.registered``,
``Paper.experiment``, ``Paper.checks``, ``Paper.plots``, ``Paper.commands``), which load the
papers' packages and modules by name at run time, the arena's (``papers.BUILT_IN``) and the
plug-ins' among them. That is the registry's plug-in mechanism, the one place where a lower layer
reaches a higher one, on purpose: the registry imports no paper, so a new paper is a new folder,
and the arena, which imports every paper, sits above them all.

The checks: no cycle; every module in a layer of ``LAYERS``; no import from a higher layer. Each
is first run on a small synthetic graph, to show it finds what it should."""

from __future__ import annotations

import ast
import fnmatch
from itertools import pairwise
from pathlib import Path

import pytest

PACKAGE = "delayed_bandits"
SRC = Path(__file__).resolve().parents[1] / "src" / PACKAGE

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundations",
        (
            PACKAGE,
            "errors",
            "yamlio",
            "kindtype",
            "outputs",
            "progress",
            "style",
            "software",
            "quoted",
            "benchmarks",
        ),
    ),
    (
        "model and tables",
        (
            "delays",
            "environment",
            "indices",
            "queues",
            "references",
            "preconditions",
            "tables",
            "aggregate",
            "grid",
        ),
    ),
    ("registry", ("papers", "papers.*")),
    (
        "registry lookups",
        (
            "kinds",
            "algorithms",
            "resources",
            "seeds",
            "claims",
            "findings",
            "curves",
            "layout",
            "captions",
        ),
    ),
    ("config", ("config", "provenance")),
    ("papers' modules", ("papers.*.*",)),
    ("arena", ("arena", "arena.*", "arena.views.*", "lab")),
    (
        "commands",
        (
            "commands",
            "quoting",
            "simulate",
            "plotting",
            "bench",
            "cost",
            "speed",
            "render",
            "verify",
            "verdicts",
            "pages",
            "cli",
            "arena.cli",
        ),
    ),
]
"""Bottom to top: a module imports from its own layer or those below, never from one above.
Patterns are module names under ``delayed_bandits`` (``PACKAGE`` itself is the package's
``__init__``), where ``*`` stands for one part of a dotted name: ``papers.*`` is a paper's
registration (``papers/<paper>/__init__.py``), ``papers.*.*`` any other module of a paper. A name
without ``*`` wins over a pattern with one: ``arena.cli``, the arena's commands, is a command, the
rest of ``arena.*`` the arena."""

Edge = tuple[str, str]
Where = tuple[str, int]  # (file relative to the repository, line)


def module_of(path: Path, src: Path = SRC) -> str:
    """``src/delayed_bandits/arena/entrants.py`` -> ``delayed_bandits.arena.entrants``; a
    package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(src: Path = SRC) -> dict[str, Path]:
    """Every module of the package, by name."""
    return {module_of(p, src): p for p in sorted(src.rglob("*.py"))}


def _ancestors(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``: the packages Python runs before ``name``."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, int]]:
    """(module imported, line) of every import of a package module in ``path``, at any depth (in
    a function, under ``if TYPE_CHECKING``: all count): the module named and the packages above
    it."""
    is_package = path.name == "__init__.py"
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the importing module's package, up level - 1
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # ``from a import b``: the module a.b when b is one, else a name of module a
            targets = [
                f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                for alias in node.names
            ]
        for target in targets:
            if target != PACKAGE and not target.startswith(PACKAGE + "."):
                continue
            for module in _ancestors(target) + [target]:
                if module != name:
                    found.append((module, node.lineno))
    return found


def graph(src: Path = SRC) -> tuple[dict[str, set[str]], dict[Edge, Where]]:
    """The import graph of the package's modules, and where each edge is first written."""
    mods = modules(src)
    root = src.parents[1]
    edges: dict[str, set[str]] = {name: set() for name in mods}
    where: dict[Edge, Where] = {}
    for name, path in mods.items():
        for target, line in imports(name, path, set(mods)):
            edges[name].add(target)
            previous = where.get((name, target))
            if previous is None or line < previous[1]:
                where[(name, target)] = (str(path.relative_to(root)), line)
    return edges, where


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``edges``, as the list of its nodes with the first repeated at the end
    (``[a, b, a]``); None when the graph is acyclic. Depth-first, without recursion."""
    done: set[str] = set()
    for start in sorted(edges):
        if start in done:
            continue
        path, on_path = [start], {start}
        stack = [iter(sorted(edges.get(start, ())))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                node = path.pop()
                on_path.discard(node)
                done.add(node)
            elif nxt in on_path:
                return path[path.index(nxt) :] + [nxt]
            elif nxt not in done:
                path.append(nxt)
                on_path.add(nxt)
                stack.append(iter(sorted(edges.get(nxt, ()))))
    return None


def layer_of(module: str) -> int | None:
    """Index in ``LAYERS`` of the module's layer (None: in no layer); a name matched exactly wins
    over a pattern with ``*``."""
    short = module[len(PACKAGE) + 1 :] if module != PACKAGE else PACKAGE
    matches = [
        ("*" in p, index)
        for index, (_, patterns) in enumerate(LAYERS)
        for p in patterns
        if fnmatch.fnmatchcase(short, p) and short.count(".") == p.count(".")
    ]
    return min(matches)[1] if matches else None


def upward(edges: dict[str, set[str]], where: dict[Edge, Where]) -> list[str]:
    """Every import from a higher layer, as ``file:line: module (layer) imports module (layer)``."""
    bad = []
    for module, targets in sorted(edges.items()):
        low = layer_of(module)
        for target in sorted(targets):
            high = layer_of(target)
            if low is not None and high is not None and high > low:
                file, line = where[(module, target)]
                bad.append(
                    f"{file}:{line}: {module} ({LAYERS[low][0]}) imports {target} "
                    f"({LAYERS[high][0]})"
                )
    return bad


def _describe(cycle: list[str], where: dict[Edge, Where]) -> str:
    return "\n".join(
        f"  {a} -> {b}   ({':'.join(map(str, where[(a, b)]))})" for a, b in pairwise(cycle)
    )


# -- the checks on synthetic graphs: they find what they should ------------------------------------


def test_the_cycle_detector_finds_a_cycle_and_only_then():
    cyclic = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"a"}}
    cycle = find_cycle(cyclic)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) == {"a", "b", "c"}
    assert all(b in cyclic[a] for a, b in pairwise(cycle))
    assert find_cycle({"x": {"x"}}) == ["x", "x"]
    # a diamond is no cycle
    assert find_cycle({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) is None
    assert find_cycle({}) is None


def test_imports_in_functions_relative_imports_and_parent_packages_are_edges(tmp_path):
    pkg = tmp_path / PACKAGE
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from delayed_bandits import high\n")
    (pkg / "high.py").write_text("from delayed_bandits.low import f\n")
    (pkg / "sub" / "__init__.py").write_text("from .. import low\n")
    (pkg / "sub" / "leaf.py").write_text("import os\n")
    (pkg / "top.py").write_text("import delayed_bandits.sub.leaf\n")
    edges, where = graph(pkg)
    assert edges[f"{PACKAGE}.low"] == {PACKAGE, f"{PACKAGE}.high"}
    assert edges[f"{PACKAGE}.top"] == {PACKAGE, f"{PACKAGE}.sub", f"{PACKAGE}.sub.leaf"}
    assert where[(f"{PACKAGE}.low", f"{PACKAGE}.high")][1] == 2
    assert f"{PACKAGE}.low" in edges[f"{PACKAGE}.sub"]  # relative import
    assert find_cycle(edges) == [f"{PACKAGE}.high", f"{PACKAGE}.low", f"{PACKAGE}.high"]


def test_an_import_from_a_higher_layer_is_named_with_its_line():
    low, high = f"{PACKAGE}.errors", f"{PACKAGE}.cli"
    edges = {low: {high}, high: {low}}
    where = {
        (low, high): ("src/delayed_bandits/errors.py", 7),
        (high, low): ("src/delayed_bandits/cli.py", 3),
    }
    assert upward(edges, where) == [
        (
            "src/delayed_bandits/errors.py:7: delayed_bandits.errors (foundations) imports "
            "delayed_bandits.cli (commands)"
        )
    ]


# -- the package -----------------------------------------------------------------------------------


def test_the_package_has_no_import_cycle():
    edges, where = graph()
    cycle = find_cycle(edges)
    assert cycle is None, (
        "import cycle in src/delayed_bandits (module- and function-level "
        "imports both count):\n" + _describe(cycle, where)
    )


def test_every_module_has_a_layer():
    missing = sorted(m for m in modules() if layer_of(m) is None)
    assert not missing, (
        f"modules in no layer of tests/test_layers.py LAYERS: "
        f"{', '.join(missing)}; add each to the lowest layer it may sit in"
    )


def test_no_module_imports_from_a_higher_layer():
    bad = upward(*graph())
    assert not bad, "imports from a higher layer (tests/test_layers.py LAYERS):\n  " + "\n  ".join(
        bad
    )


@pytest.mark.parametrize(
    "module, layer",
    [
        (f"{PACKAGE}.errors", "foundations"),
        (f"{PACKAGE}.papers", "registry"),
        (f"{PACKAGE}.papers.vernade2017", "registry"),
        (f"{PACKAGE}.papers.vernade2017.experiment", "papers' modules"),
        (f"{PACKAGE}.arena", "arena"),
        (f"{PACKAGE}.arena.experiment", "arena"),
        (f"{PACKAGE}.arena.views.heatmap", "arena"),
        (f"{PACKAGE}.arena.cli", "commands"),
        (f"{PACKAGE}.cli", "commands"),
    ],
)
def test_the_layers_place_packages_and_their_modules_apart(module, layer):
    index = layer_of(module)
    assert index is not None and LAYERS[index][0] == layer


def test_the_arena_is_above_the_papers_and_no_paper_imports_it():
    """The arena runs every paper's algorithms; a paper that imported it would tie the papers to
    the arena's crossing of them (and close a cycle through it)."""
    index = {name: i for i, (name, _) in enumerate(LAYERS)}
    assert index["papers' modules"] < index["arena"] < index["commands"]
    edges, where = graph()
    into = [
        f"{':'.join(map(str, where[(module, target)]))}: {module} imports {target}"
        for module, targets in sorted(edges.items())
        if module.startswith(f"{PACKAGE}.papers")
        for target in sorted(targets)
        if target == f"{PACKAGE}.arena" or target.startswith(f"{PACKAGE}.arena.")
    ]
    assert not into, "paper modules importing the arena:\n  " + "\n  ".join(into)
    assert any(t.startswith(f"{PACKAGE}.papers.") for t in edges[f"{PACKAGE}.arena.experiment"])
