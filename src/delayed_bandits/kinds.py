"""The kinds of figure, and what each one shows: the sentence under it in the Snakemake report.

A figure's ``kind`` (config key, default ``regret``) picks its plot (``plotting.views``) and its
description here. The descriptions name the metric and the band, which differ between kinds: a
±2 SE band over runs for the regret curves, a percentile-bootstrap band for the ratios, none for
the delay density. This module imports nothing heavy: the workflow reads it when it builds the
DAG."""

from __future__ import annotations

from typing import Any, Mapping

from delayed_bandits.errors import ConfigError

GENERIC = "regret"
"""The kind every paper can draw: mean pseudo-regret against time, one panel per setting."""

PSEUDO_REGRET = "pseudo-regret (sum of the mean gaps of the arms played)"

SHOWS: dict[str, str] = {
    GENERIC: f"Mean {PSEUDO_REGRET} against time, one panel per setting, with a ±2 SE band over "
             "runs.",
    "ratio": f"Left: ratio of each algorithm's mean {PSEUDO_REGRET} to the baseline's against "
             "time, with a 95% percentile-bootstrap band over paired runs. Right: the mean "
             "pseudo-regrets themselves, with a ±2 SE band.",
    "delay_sweep": f"Mean {PSEUDO_REGRET} at the horizon T, with a ±2 SE band over runs, against "
                   "the expected delay E[τ], with a least-squares line per algorithm.",
    "alpha_sweep": f"Mean {PSEUDO_REGRET} at the horizon T, with a ±2 SE band over runs, against "
                   "the swept α, one curve per listed setting.",
    "gap_sweep": f"Mean {PSEUDO_REGRET} at the horizon T, with a ±2 SE band over runs, against "
                 "the swept gap, one curve per listed setting.",
    "alpha_trace": "Adapt-Patient's estimates α_t and α̂_t against time: mean and 5-95% "
                   "quantiles over runs, one panel per curve. No regret is plotted.",
    "example8": f"(a) The regret bounds against T; (b) mean {PSEUDO_REGRET} at T, with a ±2 SE "
                "band over runs, against T, uniform play's linear regret dotted; (c) mean "
                "pseudo-regret against time at the largest T, with a ±2 SE band. Log-log in (a) "
                "and (b).",
    "delay_density": "The density of log10 delays: a Gaussian kernel density estimate of draws "
                     "over the delay table's exact piecewise-uniform density, computed from the "
                     "delay law in the configuration. No regret is plotted.",
    "arena": f"Each algorithm's mean {PSEUDO_REGRET} at the horizon T over the lowest in its "
             "setting (1 = best), one panel per (number of arms, gap); grey where the "
             "algorithm's model does not cover the delays.",
    "arena_curves": f"Mean {PSEUDO_REGRET} against time of every algorithm that applies, one "
                    "panel per setting, with a ±2 SE band over runs.",
}
"""What each kind of figure plots, for the report's caption."""


def of(fig: Mapping[str, Any]) -> str:
    """The figure's kind: its ``kind`` key, else the generic one."""
    return fig.get("kind", GENERIC)


def shows(kind: str) -> str:
    """The report's sentence for a figure of ``kind``; ConfigError naming the kinds there are."""
    if kind not in SHOWS:
        raise ConfigError(f"figure kind {kind!r} is not one of: {', '.join(SHOWS)}")
    return SHOWS[kind]


DRAWN_FROM_CONFIG = frozenset({"delay_density"})
"""Kinds drawn from the configuration alone: their figures run no simulation and have no summary
(nor ``replications``, ``checkpoints`` or ``algorithms``)."""


def simulated(fig: Mapping[str, Any]) -> bool:
    """Whether the figure runs simulations: its kind is not drawn from the configuration alone."""
    return of(fig) not in DRAWN_FROM_CONFIG
