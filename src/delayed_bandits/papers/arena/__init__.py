"""The arena, beyond the papers: every algorithm of the five papers, and two baselines, on one
Bernoulli bandit with delayed conversions under every delay regime (issue 13). Its own rules, the
curves view and the leaderboard, are in ``workflow/rules/arena.smk``."""

from delayed_bandits.kinds import PSEUDO_REGRET, Kind
from delayed_bandits.papers import Paper

PAPER = Paper(
    id="arena",
    seed_id=6,
    title="Beyond the papers: every algorithm of the five papers under every delay regime (figure "
          "regret: the heatmap and, as a second view, the curves; results/arena/leaderboard.csv).",
    figure_ids="^regret$",
    # the 15 algorithms together, per algorithm-step (K = 10; measured 2.5M, issue 13)
    steps_per_second=1_500_000,
    shard_steps_per_second=1_500_000,
    kinds=(
        Kind("arena",
             shows=f"Each algorithm's mean {PSEUDO_REGRET} at the horizon T over the lowest in its "
                   "setting (1 = best), one panel per (number of arms, gap); grey where the "
                   "algorithm's model does not cover the delays."),
        Kind("arena_curves",
             shows=f"Mean {PSEUDO_REGRET} against time of every algorithm that applies, one panel "
                   "per setting, with a ±2 SE band over runs.",
             in_config=False),
    ),
    extra_targets=("figures/arena-curves.pdf", "figures/arena-curves.png",
                   "results/arena/leaderboard.csv"),
)
