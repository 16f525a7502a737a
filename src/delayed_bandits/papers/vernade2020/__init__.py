"""Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (ICML 2020), "Linear bandits with
stochastic delayed feedback": OTFLinUCB and OTFLinTS under geometric and heavy-tailed delays
(Figures 1-3). Figure 2, the delay density, is drawn from the configuration alone."""

from delayed_bandits.kindtype import Kind
from delayed_bandits.papers import Paper

PAPER = Paper(
    id="vernade2020",
    seed_id=4,
    title="Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner, ICML 2020 (Figures 1-3).",
    figure_ids=r"^fig[0-9]+\Z",
    # measured: 23k steps/s for the slowest job, 190k for a whole figure's (resources.py)
    steps_per_second=15_000,
    shard_steps_per_second=120_000,
    kinds=(
        Kind(
            "delay_density",
            shows="The density of log10 delays: a Gaussian kernel density estimate of draws over "
            "the delay table's exact piecewise-uniform density, computed from the delay law "
            "in the configuration. No regret is plotted.",
            simulated=False,
        ),
    ),
)
