"""The kinds of figure: what each one shows (the sentence under it in the Snakemake report), the
tables it reads besides the summary, and whether it is simulated at all.

A figure's ``kind`` (config key, default ``regret``) picks its plot (``plotting.views``) and its
entry here. The generic kind is defined here; every other one is registered by the paper that
draws it (``papers/<paper>/__init__.py``). The descriptions name the metric and the band, which
differ between kinds: a ±2 SE band over runs for the regret curves, a percentile-bootstrap band
for the ratios, none for the delay density. This module imports nothing heavy: the workflow reads
it when it builds the DAG."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Mapping

from delayed_bandits.errors import ConfigError

GENERIC = "regret"
"""The kind every paper can draw: mean pseudo-regret against time, one panel per setting."""

PSEUDO_REGRET = "pseudo-regret (sum of the mean gaps of the arms played)"

TABLES = ("ratios", "leaderboard")
"""The tables a kind may need besides the summary. Each is made from the figure's shards by the
workflow rule and the CLI command of the same name (``delayed-bandits ratios``), into
``results/<paper>/<figure>/<table>.csv``."""


@dataclass(frozen=True)
class Kind:
    """One kind of figure."""

    name: str
    shows: str
    """What it plots, metric and band: the report's caption."""
    tables: tuple[str, ...] = ()
    """Tables it reads besides the summary (of ``TABLES``)."""
    simulated: bool = True
    """False: drawn from the configuration alone, with no shards and no summary (nor
    ``replications``, ``checkpoints`` or ``algorithms``)."""
    in_config: bool = True
    """False: a second view of another kind's tables, drawn by a paper's own rule, which no
    figure of the config may name."""

    def __post_init__(self) -> None:
        unknown = [t for t in self.tables if t not in TABLES]
        if unknown:
            raise ConfigError(f"kind {self.name}: table {unknown[0]!r} is not one of "
                              f"{', '.join(TABLES)}")


REGRET = Kind(GENERIC, shows=f"Mean {PSEUDO_REGRET} against time, one panel per setting, with a "
                             "±2 SE band over runs.")


@cache
def registered() -> dict[str, Kind]:
    """Every kind, by name: the generic one, then those of the registered papers (worked out
    once: the workflow asks for a kind several times per job when it builds the DAG)."""
    from delayed_bandits import papers

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


def tables(fig: Mapping[str, Any]) -> tuple[str, ...]:
    """The tables the figure reads besides the summary."""
    return get(of(fig)).tables
