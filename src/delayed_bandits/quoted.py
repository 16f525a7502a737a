"""Numbers in the docs that cannot go stale: Markdown blocks written by code from a run's results
(the idea of showyourwork), never typed by hand.

A document marks each generated block ``<!-- quoted: NAME -->`` ... ``<!-- /quoted: NAME -->``,
on lines of their own around a block of lines, or within one line around a single-line text (a
table's cell).
``fill`` rewrites every marked block from a mapping of name to Markdown; ``stale`` says which
blocks differ from it. The blocks' text comes from a *digest* (a JSON file committed beside the
docs, made from the run by the paper's own code), so a test can hold the docs to the digest
without the run, and an auditor can hold the digest to a rerun (``delayed-bandits quote``).

A rerun is held to the digest number by number (``differences``, each difference by its field
path), except for what a rerun cannot be expected to reproduce (``INFORMATION``): the digest's
``provenance`` (the commits and sources' hashes of the run that made it) and ``cost`` (measured
times). Those are reported beside the verdict (``information``), not checked: a rerun of later
code that gives the same numbers reproduces the digest."""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from delayed_bandits.errors import ConfigError

_BLOCK = re.compile(
    r"(?P<open><!-- quoted: (?P<name>[A-Za-z0-9-]+) -->(?P<lines>\n)?)"
    r"(?P<body>(?(lines).*?|[^\n]*?))(?P<close><!-- /quoted: (?P=name) -->)",
    re.DOTALL,
)


def names(text: str) -> list[str]:
    """The names of the blocks ``text`` marks, in order."""
    return [m["name"] for m in _BLOCK.finditer(text)]


def outside(text: str) -> str:
    """``text`` without the bodies of its marked blocks: what was typed by hand."""
    return _BLOCK.sub(lambda m: m["open"] + m["close"], text)


def fill(text: str, blocks: Mapping[str, str], where: str = "") -> str:
    """``text`` with every marked block's body replaced by ``blocks[name]`` (ending in a newline,
    for a block of lines). A marked block with no text in ``blocks``, or one within a line whose
    text has several lines, is an error naming it and ``where``."""
    unknown = [name for name in names(text) if name not in blocks]
    if unknown:
        raise ConfigError(
            f"{where or 'document'}: no generated text for the block(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(blocks))}"
        )
    inline = [m["name"] for m in _BLOCK.finditer(text) if not m["lines"]]
    several = [name for name in inline if "\n" in blocks[name].rstrip("\n")]
    if several:
        raise ConfigError(
            f"{where or 'document'}: the block(s) {', '.join(several)} stand within a line, "
            "and their generated text has several"
        )

    def body(m: re.Match[str]) -> str:
        text = blocks[m["name"]].rstrip("\n")
        return m["open"] + text + ("\n" if m["lines"] else "") + m["close"]

    return _BLOCK.sub(body, text)


def stale(text: str, blocks: Mapping[str, str], where: str = "") -> list[str]:
    """The names of the blocks of ``text`` whose body is not what ``fill`` would write."""
    current = {m["name"]: m["body"] for m in _BLOCK.finditer(text)}
    filled = {m["name"]: m["body"] for m in _BLOCK.finditer(fill(text, blocks, where))}
    return [name for name in current if current[name] != filled[name]]


INFORMATION = ("provenance", "cost")
"""The keys of a digest that describe its run rather than its results: reported, not checked."""
# The provenance fields ``information`` compares, wherever in ``provenance`` they stand (a digest
# may record them per figure), with how the report names them.
_PROVENANCE = (
    ("git_commits", "commits"),
    ("source_sha256", "package sources (sha256)"),
    ("simulation_sha256", "simulation sources (sha256)"),
)


def pooled(digested: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The provenance of several summaries (each ``provenance.digested``) as one digest records
    it: each field of ``_PROVENANCE``, its distinct values sorted (empty for no summary)."""
    rows = list(digested)
    return {key: sorted({v for row in rows for v in row[key]}) for key, _ in _PROVENANCE}


def checked(digest: Mapping[str, Any]) -> dict[str, Any]:
    """What a rerun must reproduce: the digest without its ``INFORMATION``."""
    return {k: v for k, v in digest.items() if k not in INFORMATION}


_ABSENT = object()  # a field one side lacks


def _show(value: Any) -> str:
    return "absent" if value is _ABSENT else repr(value)


def _item(i: int, value: Any) -> str:
    """A list item's place in a field path, with its id where it has one (a claim's)."""
    return f"{i} {value['id']!r}" if isinstance(value, Mapping) and "id" in value else str(i)


def differences(digest: Any, rerun: Any, path: str = "") -> list[str]:
    """Every field where ``rerun`` differs from ``digest`` (JSON values), by its path
    (``wins[3].wins``, ``claims[0 'fig1-x'].verdict``, an item named by its id where it has one):
    'PATH: VALUE in the digest, VALUE in the rerun'.
    Mappings are compared key by key, lists item by item, numbers exactly (the same config and
    simulation code give the same floats)."""
    if isinstance(digest, Mapping) and isinstance(rerun, Mapping):
        return [
            line
            for key in [*digest, *(k for k in rerun if k not in digest)]
            for line in differences(
                digest.get(key, _ABSENT), rerun.get(key, _ABSENT), f"{path}.{key}" if path else key
            )
        ]
    if isinstance(digest, list) and isinstance(rerun, list):
        found = [
            line
            for i, (a, b) in enumerate(zip(digest, rerun))
            for line in differences(a, b, f"{path}[{_item(i, a)}]")
        ]
        if len(digest) != len(rerun):
            found.append(f"{path}: {len(digest)} items in the digest, {len(rerun)} in the rerun")
        return found
    if digest == rerun and type(digest) is type(rerun):
        return []
    return [f"{path}: {_show(digest)} in the digest, {_show(rerun)} in the rerun"]


def _values(tree: Any, key: str) -> list[str]:
    """Every value of ``key`` anywhere in ``tree`` (strings, or lists of them), sorted, distinct."""
    if isinstance(tree, Mapping):
        found = {v for k, sub in tree.items() for v in _values(sub, key)}
        if key in tree:
            own = tree[key]
            found |= set(own) if isinstance(own, list) else {own}
        return sorted(found)
    if isinstance(tree, list):
        return sorted({v for sub in tree for v in _values(sub, key)})
    return []


def _short(values: list[str]) -> str:
    return ", ".join(v[:12] for v in values) if values else "none recorded"


def information(digest: Mapping[str, Any], rerun: Mapping[str, Any]) -> str:
    """What differs between the digest's run and the rerun beyond their numbers, as one sentence:
    the commits and sources' hashes of each, whether the simulation code differs (from the hash
    of the simulating modules, ``software.simulation_files``), and the measured cost."""
    made, again = digest.get("provenance", {}), rerun.get("provenance", {})
    changed = []
    for key, label in _PROVENANCE:
        a, b = _values(made, key), _values(again, key)
        if a != b:
            changed.append(f"{label} {_short(a)} in the digest, {_short(b)} in the rerun")
    a, b = _values(made, "simulation_sha256"), _values(again, "simulation_sha256")
    if not a or not b:
        simulation = (
            f"whether the simulation code differs is unknown (the "
            f"{'digest' if not a else 'rerun'} records no hash of the simulating modules)"
        )
    else:
        simulation = f"the simulation code {'is the same' if a == b else 'differs'}"
    cost = differences(digest.get("cost"), rerun.get("cost"), "cost")
    return (
        (f"provenance differs: {'; '.join(changed)}" if changed else "provenance the same")
        + f"; {simulation}"
        + (
            f"; cost (measured, not checked) differs in {len(cost)} field(s), e.g. {cost[0]}"
            if cost
            else ""
        )
    )
