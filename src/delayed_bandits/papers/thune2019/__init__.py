"""Thune, Cesa-Bianchi, Seldin (NeurIPS 2019), "Nonstochastic multiarmed bandits with unrestricted
delays": DEW, Skipper and Doubling; Example 8 (oracle against explicit tuning) made a figure."""

from delayed_bandits.kindtype import PSEUDO_REGRET, Kind
from delayed_bandits.papers import Paper

PAPER = Paper(
    id="thune2019",
    seed_id=3,
    title="Thune, Cesa-Bianchi, Seldin, NeurIPS 2019 (Example 8 made a figure).",
    figure_ids=r"^example[0-9]+\Z",
    # measured: 5.4M steps/s for the slowest job, 15.5M for a whole figure's (resources.py)
    steps_per_second=3_500_000,
    shard_steps_per_second=10_000_000,
    kinds=(
        Kind(
            "example8",
            shows=f"(a) The regret bounds against T; (b) mean {PSEUDO_REGRET} at T, with a ±2 SE "
            "band over runs, against T, uniform play's linear regret dotted; (c) mean "
            "pseudo-regret against time at the largest T, with a ±2 SE band. Log-log in "
            "(a) and (b).",
        ),
    ),
)
