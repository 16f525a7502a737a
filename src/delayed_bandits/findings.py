"""Paper findings: one statement of a paper each, quoted with its place, judged by the claims
that test it.

A paper's claims (``claims``) test its words one measurement at a time, and several claims often
test one sentence (per delay law, per curve, per reading). A ``Finding`` is that sentence, once:
the paper's words, where they stand, the figures they are about, the claims that establish it
(under the faithful reading) and the claims that only qualify it (``Qualifier``): a sensitivity
**reading** of the paper (e.g. Vernade et al. 2020's printed widths), an **extension** of ours
(e.g. a longer horizon), or a **twin** (a curve identical run by run to one already counted).
Qualifying claims are shown beside the finding and never counted as paper statements.

One rule turns the establishing claims' verdicts into the finding's (``verdict``, in words
``RULE``); nothing sets a finding's verdict by hand. Each paper declares its findings in
``papers/<paper>/findings.py`` (``FINDINGS``, read through ``Paper.findings``); a claim is named
``<figure>/<claim id>``, where the id may be a shell pattern (``fig3a/*-ratio-converges``). The
choices the issue left open (one finding per sentence, what is a reading or a twin) are in
docs/decisions/cross-cutting.md#findings."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Iterable, Mapping, Sequence

ESTABLISHING = "establishing"
"""The role of a claim that establishes a finding, under the faithful reading."""
READING, EXTENSION, TWIN = "reading", "extension", "twin"
ROLES = (READING, EXTENSION, TWIN)
"""What a qualifying claim is to the finding: a sensitivity reading, our extension, a twin."""

REPRODUCES, IN_PART, NOT, UNTESTABLE = (
    "reproduces",
    "reproduces in part",
    "does not reproduce",
    "not testable here",
)
VERDICTS = (REPRODUCES, IN_PART, NOT, UNTESTABLE)


@dataclass(frozen=True)
class Qualifier:
    """Claims that qualify a finding without deciding it: ``role`` (one of ``ROLES``), the claims
    (``<figure>/<claim id>`` patterns) and what they are, in a few words (``what``)."""

    role: str
    claims: tuple[str, ...]
    what: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"qualifier {self.what!r}: role {self.role!r} is not one of {ROLES}")


@dataclass(frozen=True)
class Finding:
    """One statement of a paper: ``statement`` quoted from it (elisions as [...]), ``location``
    (section, figure), the ``figures`` (config ids) it is about, the claims that establish it
    (``establishing``, ``<figure>/<claim id>`` patterns), those that qualify it
    (``qualifying``), and ``faithful``, the reading its establishing claims are made under, where
    the figure runs several."""

    id: str
    statement: str
    location: str
    figures: tuple[str, ...]
    establishing: tuple[str, ...]
    qualifying: tuple[Qualifier, ...] = ()
    faithful: str = ""

    def patterns(self) -> list[tuple[str, str]]:
        """Every claim pattern it names, with its role (``establishing`` or a qualifier's)."""
        return [(p, ESTABLISHING) for p in self.establishing] + [
            (p, q.role) for q in self.qualifying for p in q.claims
        ]


def select(pattern: str, claims: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """The (figure, claim id) pairs a pattern ``<figure>/<id pattern>`` names among ``claims``
    (claim ids by figure), in the figure's order."""
    figure, _, pattern_id = pattern.partition("/")
    return [(figure, c) for c in claims.get(figure, ()) if fnmatchcase(c, pattern_id)]


RULE = (
    "a finding reproduces when every claim that establishes it (reproductions, under the faithful "
    "reading) holds, reproduces in part when some hold and others fail or are inconclusive, does "
    "not reproduce when none holds and one fails, and is not testable here when its claims are "
    "checks only (the runs could not refute them) or all inconclusive (the runs cannot decide "
    "them); readings, extensions and twins are shown beside it and never decide it"
)
"""The rule ``verdict`` applies, in words (the docs quote it)."""


def verdict(words: Iterable[str]) -> str:
    """The finding's verdict from its establishing reproductions' verdict words (``RULE``)."""
    found = list(words)
    if not found or all(w == "inconclusive" for w in found):
        return UNTESTABLE
    if all(w == "holds" for w in found):
        return REPRODUCES
    if "holds" in found:
        return IN_PART
    return NOT


def rule_blocks() -> dict[str, str]:
    """The findings' rule as the docs quote it (``quoted``), one sentence."""
    return {"findings-verdict-rule": RULE[0].upper() + RULE[1:] + "."}
