"""Findings of Pike-Burke et al. (ICML 2018), Sections 5-6 and Appendix E: each a statement of
the paper, tested per delay law by the claims of ``claims.py``."""

from delayed_bandits.findings import Finding

FINDINGS = (
    Finding(
        "ratios-converge",
        "We see that in all cases the ratios converge to a constant. This shows that the regret "
        "of our algorithm is essentially of the same order as that of QPM-D.",
        "Section 5, Figure 3",
        ("fig3a", "fig3b"),
        ("fig3a/*-ratio-converges", "fig3b/*-ratio-converges"),
    ),
    Finding(
        "jumps-same-rounds",
        "so the jumps in the regret are it changing arm. This occurs at the same points in all "
        "replications.",
        "Section 5, Figure 3",
        ("fig3a", "fig3b"),
        ("fig3a/*-jumps-at-same-rounds", "fig3b/*-jumps-at-same-rounds"),
    ),
    Finding(
        "constants-worse",
        "Note that while our algorithm matches the order of regret of QPM-D, the constants are "
        "worse.",
        "Section 6; Section 5, Figure 3",
        ("fig3a", "fig3b"),
        ("fig3a/*-coefficient-band", "fig3b/*-coefficient-band"),
    ),
    Finding(
        "variance-information",
        "When the variance of the delay is small, it can be seen that using the variance "
        "information leads to improved performance. However, for exponential delays where "
        "V(τ) = E[τ]2, the large variance causes nm to be large and so the suboptimal arm is "
        "played more, increasing the regret.",
        "Section 5, Figure 3b",
        ("fig3b",),
        ("fig3b/*-variance-helps", "fig3b/*-variance-hurts"),
    ),
    Finding(
        "odaaf-v-eliminates-late",
        "In this case ODAAF-V had only just eliminated the suboptimal arm at time T.",
        "Section 5, Figure 3b",
        ("fig3b",),
        ("fig3b/*-odaaf-v-eliminates-late",),
    ),
    Finding(
        "regret-linear-in-delay",
        "It can also be illustrated experimentally that the regret of our algorithms and that of "
        "QPM-D all increase linearly in E[τ].",
        "Section 5; Appendix E",
        ("appE",),
        ("appE/*-regret-linear-in-delay",),
    ),
)
