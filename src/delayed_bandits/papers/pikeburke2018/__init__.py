"""Pike-Burke, Agrawal, Szepesvári, Grünewälder (ICML 2018), "Bandits with delayed, aggregated
anonymous feedback": ODAAF, ODAAF-B and ODAAF-V against QPM-D (Figure 3, Appendix E)."""

from delayed_bandits.kindtype import PSEUDO_REGRET, Kind
from delayed_bandits.papers import Paper

PAPER = Paper(
    id="pikeburke2018",
    seed_id=2,
    title="Pike-Burke, Agrawal, Szepesvári, Grünewälder, ICML 2018 (Figure 3, Appendix E).",
    figure_ids=r"^(fig[0-9]+[a-z]?|app[A-Z])\Z",
    # measured: 1.3M steps/s for the slowest job, 9.6M for a whole figure's (resources.py)
    steps_per_second=900_000,
    shard_steps_per_second=6_000_000,
    kinds=(
        Kind(
            "ratio",
            shows=f"Left: ratio of each algorithm's mean {PSEUDO_REGRET} to the baseline's "
            "against time, with a 95% percentile-bootstrap band over paired runs. Right: "
            "the mean pseudo-regrets themselves, with a ±2 SE band.",
            tables=("ratios",),
        ),
        Kind(
            "delay_sweep",
            shows=f"Mean {PSEUDO_REGRET} at the horizon T, with a ±2 SE band over runs, against "
            "the expected delay E[τ], with a least-squares line per algorithm.",
        ),
    ),
)
