"""Reading YAML: the config files, the config schema and each paper's ``schema.yaml``.

A bottom module (it imports no other of the package), so that the paper registry (``papers``),
which reads each paper's schema, and ``config``, which reads the rest, can both use it."""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's loader where PyYAML was built with it: every job reads the config and the schemas, and
# the pure-Python parser took a quarter of a second of each job's start-up
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE = "tag:yaml.org,2002:merge"


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping gives a key twice: YAML loaders keep the last, which silently drops the first."""


class _Loader(_BASE):  # type: ignore[misc,valid-type]
    """The safe loader, refusing a mapping that gives a key twice. A key merged in with ``<<``
    (an anchor's) and then given explicitly is not a duplicate: that is how a merge is
    overridden."""

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


def read_yaml(text: str) -> Any:
    """``yaml.safe_load``, with libyaml when available; a key given twice in one mapping raises
    ``DuplicateKeyError`` naming it and both lines."""
    return yaml.load(text, Loader=_Loader)
