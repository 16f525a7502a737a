"""The arena, beyond the papers: every algorithm of the five papers, and the baselines
practitioners use, on one Bernoulli bandit with delayed conversions under every delay regime, at
two exploration scales (the papers' constants and one common scale).

A package of its own above the papers, since it imports them all, and no paper imports it
(``tests/test_layers.py``); registered as a paper is, so that its seeds, its config section and
its workflow targets are the generic ones (the registry finds it in ``papers.BUILT_IN``). Its own
rules, its leaderboard and the other views of its figure, are in ``workflow/rules/arena.smk``;
its own commands (``leaderboard``, ``replay``, ``quote``) in ``cli.py``."""

from delayed_bandits.arena.identifiability import MARK, UNIDENTIFIABLE
from delayed_bandits.arena.ties import TIE_RULE
from delayed_bandits.kindtype import PSEUDO_REGRET, Kind
from delayed_bandits.papers import Paper

_HEATMAP = (
    f"Each algorithm's mean {PSEUDO_REGRET} at round {{t}} over the lowest in its "
    f"setting at matched exploration (1 = best; bold: tied-best, faded: worse, plain: "
    f"inconclusive, by the tie rule at the default statistics: {TIE_RULE}), one panel per "
    "(number of arms, base rate, gap); below the rule, the index methods at their papers' "
    "constants; grey where the algorithm's model does not cover the delays; a regime marked "
    f"{MARK} where its setting is {UNIDENTIFIABLE} (the claims leave it out)."
)

PAPER = Paper(
    id="arena",
    seed_id=6,
    package="delayed_bandits.arena",
    reproduces=False,  # its claims are its own: no paper makes them
    title="Beyond the papers: every algorithm of the five papers under every delay regime (figure "
    "regret: the heatmap at T, and as other views the heatmap at T/10, the curves and the "
    "mean-rank diagram, and the answer per regime family, results/arena/regret/families.csv; figure window: regret against the censoring window m; figure "
    "switching: the heatmap at T where the best arm changes at T/2; "
    "results/arena/regret/leaderboard.csv).",
    figure_ids=r"^(regret|window|switching)\Z",
    # the algorithms together, per algorithm-step (K = 10; measured 2.5M with 15 algorithms)
    steps_per_second=1_500_000,
    shard_steps_per_second=1_500_000,
    kinds=(
        # the kinds of its figures read the leaderboard, not every run (kindtype.Kind.reads_runs)
        Kind("arena", shows=_HEATMAP.format(t="T"), tables=("leaderboard",), reads_runs=False),
        Kind(
            "arena_early",
            shows=_HEATMAP.format(t="T/10 (the first leaderboard horizon)"),
            tables=("leaderboard",),
            in_config=False,
        ),
        Kind(
            "arena_window",
            shows=f"Mean {PSEUDO_REGRET} at T against the window m (log scale), one panel per "
            "(delay law, problem), one line per entrant styled by family as the curves, with "
            "the 95 % bootstrap interval of the mean as an error bar (the entrants side by side "
            "at each m).",
            tables=("leaderboard",),
            reads_runs=False,
        ),
        Kind(
            "arena_curves",
            shows=f"Mean {PSEUDO_REGRET} against time of every algorithm that applies, one panel "
            "per setting, a page per problem, with a band from the 5th to the 95th percentile "
            "of the runs (5-95 % of runs).",
            in_config=False,
        ),
        Kind(
            "arena_ranks",
            shows=f"Critical-difference diagrams (Demšar 2006): the mean rank of {PSEUDO_REGRET} "
            "at T, matched exploration, over the settings of each family (base rate, censored "
            "or not), of the algorithms that apply in all of them, with the Friedman test and "
            "bars joining algorithms whose mean ranks differ by less than the Nemenyi critical "
            "difference (alpha = 0.05).",
            tables=("leaderboard",),
            in_config=False,
        ),
    ),
    extra_targets=(
        "figures/arena-curves.pdf",
        "figures/arena-curves.png",
        "figures/arena-early.pdf",
        "figures/arena-early.png",
        "figures/arena-ranks.pdf",
        "figures/arena-ranks.png",
        "results/arena/regret/families.csv",
        "results/arena/regret/families.provenance.json",
    ),
)
