"""Numbers in the docs that cannot go stale: Markdown blocks written by code from a run's results
(the idea of showyourwork), never typed by hand.

A document marks each generated block ``<!-- quoted: NAME -->`` ... ``<!-- /quoted: NAME -->``.
``fill`` rewrites every marked block from a mapping of name to Markdown; ``stale`` says which
blocks differ from it. The blocks' text comes from a *digest* (a JSON file committed beside the
docs, made from the run by the paper's own code), so a test can hold the docs to the digest
without the run, and an auditor can hold the digest to a rerun (``delayed-bandits quote``)."""

from __future__ import annotations

import re
from typing import Mapping

from delayed_bandits.errors import ConfigError

_BLOCK = re.compile(
    r"(?P<open><!-- quoted: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(?P<close><!-- /quoted: (?P=name) -->)",
    re.DOTALL,
)


def names(text: str) -> list[str]:
    """The names of the blocks ``text`` marks, in order."""
    return [m["name"] for m in _BLOCK.finditer(text)]


def fill(text: str, blocks: Mapping[str, str], where: str = "") -> str:
    """``text`` with every marked block's body replaced by ``blocks[name]`` (ending in a newline).
    A marked block with no text in ``blocks`` is an error naming it and ``where``."""
    unknown = [name for name in names(text) if name not in blocks]
    if unknown:
        raise ConfigError(
            f"{where or 'document'}: no generated text for the block(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(blocks))}"
        )
    return _BLOCK.sub(
        lambda m: m["open"] + blocks[m["name"]].rstrip("\n") + "\n" + m["close"], text
    )


def stale(text: str, blocks: Mapping[str, str], where: str = "") -> list[str]:
    """The names of the blocks of ``text`` whose body is not what ``fill`` would write."""
    current = {m["name"]: m["body"] for m in _BLOCK.finditer(text)}
    filled = {m["name"]: m["body"] for m in _BLOCK.finditer(fill(text, blocks, where))}
    return [name for name in current if current[name] != filled[name]]
