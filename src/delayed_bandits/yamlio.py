"""Reading YAML: the config files, the config schema and each paper's ``schema.yaml``.

A bottom module (it imports no other of the package), so that the paper registry (``papers``),
which reads each paper's schema, and ``config``, which reads the rest, can both use it.

Plain scalars are read as YAML 1.2's core schema says, not as YAML 1.1 (PyYAML's default):
``012`` is 12 (an octal is written ``0o12``), ``on``, ``yes`` and ``no`` are strings, ``1:20``
and ``1_000`` are strings, ``1e3`` is a float, and a date is a string. Under YAML 1.1 ``seed:
012`` was silently 10. Anchors and aliases are expanded within a size cap (``MAX_VALUES``), and an
anchor that holds an alias of itself is refused (``AliasError``), so that a few hundred bytes of
aliases cannot hold a reader for minutes or exhaust its memory."""

from __future__ import annotations

import re
from typing import Any

import yaml

# libyaml's loader where PyYAML was built with it: every job reads the config and the schemas, and
# the pure-Python parser took a quarter of a second of each job's start-up. The resolvers (which
# tag a plain scalar) and the constructors are Python in both, so the YAML 1.2 rules below hold
# for either.
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"
_INT = "tag:yaml.org,2002:int"

MAX_VALUES = 100_000
"""The most values (scalars, mappings and lists, each alias counted as the copy it stands for) a
YAML document may expand to: config/config.yaml with every overlay is about 5,000, a 600-byte
"billion laughs" of nested aliases about 10^9."""

# YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), by first character
_CORE = (
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", ["~", "n", "N", ""]),  # "": an empty value
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
    (_INT, r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?(?:\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN",
        list("-+.0123456789"),
    ),
    (_MERGE, r"<<", ["<"]),  # YAML 1.1's merge key, which the configs may use to share a mapping
)


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping gives a key twice: YAML loaders keep the last, which silently drops the first."""


class AliasError(yaml.composer.ComposerError):
    """Aliases that expand beyond ``MAX_VALUES`` values, or an anchor that holds an alias of
    itself (an endless structure)."""


MAX_DEPTH = 64
"""The deepest nesting of mappings and lists a YAML document may have: config/config.yaml's is
about 8. Reading a deeper one recurses once per level (PyYAML's composer), which ended in a
RecursionError after seconds; the events are read first, and the document refused at the first
level too deep (``DepthError``)."""


class DepthError(yaml.composer.ComposerError):
    """Mappings and lists nested deeper than ``MAX_DEPTH``."""


class _Loader(_BASE):  # type: ignore[misc,valid-type]
    """The safe loader with YAML 1.2's core schema, refusing a mapping that gives a key twice and
    aliases that expand too far or into themselves. A key merged in with ``<<`` (an anchor's) and
    then given explicitly is not a duplicate: that is how a merge is overridden."""

    yaml_implicit_resolvers: dict = {}

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return self.construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise DuplicateKeyError(
                    f"key {key!r} is given twice, on line {seen[key]} and line {line} (YAML "
                    "would keep the second without a word); remove one",
                )
            seen[key] = line
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """YAML 1.2: decimal digits are decimal whatever their leading zeros; ``0o`` and ``0x``
        prefix octal and hexadecimal."""
        text = self.construct_scalar(node)
        body = text.lstrip("+-")
        base = {"0o": 8, "0x": 16}.get(body[:2], 10)
        try:
            value = int(body[2:] if base != 10 else body, base)
        except ValueError as exc:  # more digits than Python converts (4,300)
            raise yaml.constructor.ConstructorError(
                None, None, f"integer of {len(text):,} characters: {exc}", node.start_mark
            ) from None
        return -value if text.startswith("-") else value


for _tag, _pattern, _first in _CORE:
    _Loader.add_implicit_resolver(_tag, re.compile(rf"^(?:{_pattern})$"), _first)
_Loader.add_constructor(_INT, _Loader.construct_yaml_int)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: yaml.Node) -> None:
    """Count the values ``root`` expands to, each alias as a copy of its anchor's node, without
    expanding anything (a node shared by aliases is counted once, then multiplied), and refuse a
    node reached again from inside itself (an anchor holding its own alias)."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > MAX_VALUES:
                raise AliasError(
                    None,
                    None,
                    f"its aliases expand to more than {MAX_VALUES:,} values (yamlio.MAX_VALUES; "
                    "each alias copies its anchor's content); write the values out, or use "
                    "fewer nested aliases",
                    node.start_mark,
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:  # on the path from the root: the node contains itself
            raise AliasError(
                None,
                None,
                "an anchor holds an alias of itself, which would make an endless structure; "
                "an alias may only name an anchor outside it",
                node.start_mark,
            )
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))


def read_yaml(text: str) -> Any:
    """The YAML document ``text``, read with YAML 1.2's core schema (with libyaml when
    available); a key given twice in one mapping raises ``DuplicateKeyError`` naming it and both
    lines, aliases that expand beyond ``MAX_VALUES`` values or into themselves ``AliasError``,
    nesting deeper than ``MAX_DEPTH`` ``DepthError``."""
    _check_depth(text)
    return yaml.load(text, Loader=_Loader)


def _check_depth(text: str) -> None:
    """``DepthError`` at the first mapping or list nested deeper than ``MAX_DEPTH``, from the
    parser's events (read one at a time, without recursion), before the document is composed."""
    depth = 0
    for event in yaml.parse(text, Loader=_BASE):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise DepthError(
                    None,
                    None,
                    f"mappings and lists nested more than {MAX_DEPTH} deep (yamlio.MAX_DEPTH; a "
                    "config is about 8 deep); nest less",
                    event.start_mark,
                )
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
