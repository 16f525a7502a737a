"""Manegueu, Vernade, Carpentier, Valko (ICML 2020), "Stochastic bandits with arm-dependent
delays": Patient Bandits, their α-sensitivity and gaps, against D-UCB, and Adapt-Patient
(Figures 2-7)."""

from delayed_bandits.kindtype import PSEUDO_REGRET, Kind
from delayed_bandits.papers import Paper

PAPER = Paper(
    id="manegueu2020",
    seed_id=5,
    title="Manegueu, Vernade, Carpentier, Valko, ICML 2020 (Figures 2-7; fig<N>long: a figure run "
    "to a longer horizon).",
    figure_ids=r"^fig[0-9]+(long)?\Z",
    # measured: 230k steps/s for the slowest job, 0.94M for a whole figure's (resources.py)
    steps_per_second=150_000,
    shard_steps_per_second=600_000,
    kinds=(
        Kind(
            "alpha_sweep",
            shows=f"Mean {PSEUDO_REGRET} at the horizon T, with a ±2 SE band over runs, against "
            "the swept α, one curve per listed setting.",
        ),
        Kind(
            "gap_sweep",
            shows=f"Mean {PSEUDO_REGRET} at the horizon T, with a ±2 SE band over runs, against "
            "the swept gap, one curve per listed setting.",
        ),
        Kind(
            "alpha_trace",
            shows="Adapt-Patient's estimates α_t and α̂_t against time: mean and 5-95% "
            "quantiles over runs, one panel per curve. No regret is plotted.",
        ),
    ),
)
