"""The ``Kind`` of a figure, and the generic kind every paper can draw.

A bottom module (it imports only ``errors``), so that the paper registry (``papers``) and each
paper's registration (``papers/<paper>/__init__.py``) can name kinds. Looking kinds up across the
registered papers is ``kinds``, a layer above the registry, which also offers every name here."""

from __future__ import annotations

from dataclasses import dataclass

from delayed_bandits.errors import ConfigError

GENERIC = "regret"
"""The kind every paper can draw: mean pseudo-regret against time, one panel per setting."""

PSEUDO_REGRET = "pseudo-regret (sum of the mean gaps of the arms played)"

TABLES = ("ratios", "leaderboard")
"""The tables a kind may need besides the summary. Each is made from the figure's shards by the
workflow rule and the CLI command of the same name (``delayed-bandits ratios``), into
``results/<paper>/<figure>/<table>.csv``.

Besides these tables, the claims of a kind that ``reads_runs`` (every simulated kind but the
arena's) get the figure's shards as one table, ``tables["runs"]`` (columns ``SHARD_COLUMNS``:
every run's regret at every checkpoint), which the workflow's rule ``claims`` passes to the
command ``delayed-bandits claims --shards``: the per-run values that statistics of the same runs
need (``claims.per_run``, ``claims.paired``)."""

TABLE_OPTIONS = ("summary", *TABLES, "events")
"""The tables the claims and plot commands read, each given by the option of its name
(``--summary``, ``--ratios``, ...): the summary and the side tables of ``TABLES``, one file each,
and the shards' event side tables, one file per shard (``--events``). The workflow gives every
one the figure has (``table_options`` in workflow/rules/common.smk)."""


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
    reads_runs: bool = True
    """Whether its claims read every run (``tables["runs"]``, above; only a simulated kind has
    runs). False for the arena's kinds, whose claims read the leaderboard, which pairs the runs
    already: their full run's 12.5 M values would take about 80 s to read, per job."""

    def __post_init__(self) -> None:
        unknown = [t for t in self.tables if t not in TABLES]
        if unknown:
            raise ConfigError(
                f"kind {self.name}: table {unknown[0]!r} is not one of {', '.join(TABLES)}"
            )


REGRET = Kind(
    GENERIC,
    shows=f"Mean {PSEUDO_REGRET} against time, one panel per setting, with a ±2 SE band over runs.",
)
