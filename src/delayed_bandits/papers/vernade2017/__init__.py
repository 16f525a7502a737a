"""Vernade, Cappé, Perchet (UAI 2017), "Stochastic bandit models for delayed conversions":
DelayedUCB and DelayedKLUCB with censored feedback against Discarding (Figures 1-3)."""

from delayed_bandits.papers import Paper

PAPER = Paper(
    id="vernade2017",
    seed_id=1,
    title="Vernade, Cappé, Perchet, UAI 2017 (Figures 1-3).",
    figure_ids=r"^(fig[0-9]+|app[A-Z])\Z",
    # measured: 66k steps/s for the slowest job, 375k for a whole figure's (resources.py)
    steps_per_second=45_000,
    shard_steps_per_second=250_000,
)
