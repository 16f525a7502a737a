"""The kinds of figure: what each one shows (the sentence under it in the Snakemake report), the
tables it reads besides the summary, and whether it is simulated at all.

A figure's ``kind`` (config key, default ``regret``) picks its plot (``plotting.views``) and its
entry here. The ``Kind`` type and the generic kind are defined below the paper registry
(``kindtype``, whose names this module offers too); every other kind is registered by the paper
that draws it (``papers/<paper>/__init__.py``), and this module, a layer above the registry,
looks them all up. The descriptions name the metric and the band, which differ between kinds: a
±2 SE band over runs for the regret curves, a percentile-bootstrap band for the ratios, none for
the delay density. This module imports nothing heavy: the workflow reads it when it builds the
DAG."""

from __future__ import annotations

from functools import cache
from typing import Any, Mapping

from delayed_bandits import papers
from delayed_bandits.errors import ConfigError
from delayed_bandits.kindtype import GENERIC, PSEUDO_REGRET, REGRET, TABLE_OPTIONS, TABLES, Kind

# the Kind type and the generic kind sit below the registry, which names kinds; offered here too
__all__ = [
    "GENERIC",
    "PSEUDO_REGRET",
    "REGRET",
    "TABLE_OPTIONS",
    "TABLES",
    "Kind",
    "get",
    "of",
    "reads_runs",
    "registered",
    "shows",
    "simulated",
    "tables",
]


@cache
def registered() -> dict[str, Kind]:
    """Every kind, by name: the generic one, then those of the registered papers (worked out
    once: the workflow asks for a kind several times per job when it builds the DAG)."""
    out = {GENERIC: REGRET}
    for paper in papers.registered().values():
        for kind in paper.kinds:
            if kind.name in out:
                raise ConfigError(f"kind {kind.name!r} of paper {paper.id} is registered twice")
            out[kind.name] = kind
    return out


def get(name: str) -> Kind:
    """The kind called ``name``; ConfigError naming the kinds there are."""
    kinds = registered()
    if name not in kinds:
        raise ConfigError(f"figure kind {name!r} is not one of: {', '.join(kinds)}")
    return kinds[name]


def of(fig: Mapping[str, Any]) -> str:
    """The figure's kind: its ``kind`` key, else the generic one."""
    return fig.get("kind", GENERIC)


def shows(kind: str) -> str:
    """The report's sentence for a figure of ``kind``."""
    return get(kind).shows


def simulated(fig: Mapping[str, Any]) -> bool:
    """Whether the figure runs simulations: its kind is not drawn from the configuration alone."""
    return get(of(fig)).simulated


def reads_runs(fig: Mapping[str, Any]) -> bool:
    """Whether the figure's claims read every run (``tables["runs"]``, the figure's shards)."""
    kind = get(of(fig))
    return kind.simulated and kind.reads_runs


def tables(fig: Mapping[str, Any]) -> tuple[str, ...]:
    """The tables the figure reads besides the summary."""
    return get(of(fig)).tables
