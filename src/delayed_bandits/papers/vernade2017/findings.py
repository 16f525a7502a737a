"""Findings of Vernade et al. (UAI 2017), Section 7 and Appendix D: each a statement of the
paper, the claims that establish it (``claims.py``), and those that only qualify it: Figure 2's
second reading of when a conversion is usable (at s + D rather than s + D + 1,
docs/decisions/vernade2017.md#arrival)."""

from delayed_bandits.findings import READING, Finding, Qualifier

SAME_ROUND = "conversions usable at s + D (the same-round arrival convention)"

FINDINGS = (
    Finding(
        "ucb-suboptimal-low-rates",
        "display the classical pattern that while UCB-based algorithms perform satisfactorily "
        "for central values (close to 0.5) of the conversion rate, they are clearly sub-optimal "
        "with more realistic values for the conversion rate",
        "Section 7, Figure 1",
        ("fig1",),
        (
            "fig1/fig1-kl-beats-ucb-censored",
            "fig1/fig1-kl-beats-ucb-uncensored",
            "fig1/fig1-ucb-fine-for-central-rates",
        ),
    ),
    Finding(
        "poisson-divergence-loss-small",
        "The two right plots also confirm that, for the KLUCB-based algorithms, the loss with "
        "respect to the optimal regret growth rate due to the use of the Poisson divergence is – "
        "as expected from Theorem 11 – not significant for low values",
        "Section 7, Figure 1; Theorem 11",
        ("fig1",),
        ("fig1/fig1-*klucb-*",),  # d-klucb and ud-klucb: every claim on their rate
    ),
    Finding(
        "discarding-linear-phase",
        "We observe that discarding policies incur a linear regret phase at the beginning of the "
        "learning",
        "Section 7, Figure 2",
        ("fig2",),
        ("fig2/fig2-thetaL-discarding-*-linear-phase",),
        (
            Qualifier(
                READING, ("fig2/fig2-thetaL-same-round-discarding-*-linear-phase",), SAME_ROUND
            ),
        ),
    ),
    Finding(
        "good-initial-performance",
        "we illustrate the good empirical initial performance of DelayedUCB and DelayedKLUCB, "
        "when compared to the heuristic Discarding approach",
        "Section 7, Figure 2",
        ("fig2",),
        ("fig2/fig2-thetaL-d-*-better-early",),
        (Qualifier(READING, ("fig2/fig2-thetaL-same-round-d-*-better-early",), SAME_ROUND),),
        faithful="conversions usable at s + D + 1",
    ),
    Finding(
        "gap-to-discarding",
        "These figures reveal a non-negligible gap in performance between the naive Discarding "
        "approach and our delay-adapted quasi-optimal algorithms.",
        "Section 7, Figure 2",
        ("fig2",),
        ("fig2/fig2-thetaL-d-*-below-after-m", "fig2/fig2-thetaL-discarding-*-ends-above"),
        (
            Qualifier(
                READING,
                (
                    "fig2/fig2-thetaL-same-round-d-*-below-after-m",
                    "fig2/fig2-thetaL-same-round-discarding-*-ends-above",
                ),
                SAME_ROUND,
            ),
        ),
        faithful="conversions usable at s + D + 1",
    ),
    Finding(
        "online-cdf-estimation",
        "It is clear from these experiments that using delay parameters estimated on-the-go does "
        "not hurt the cumulated regret overall.",
        "Appendix D, Figure 3",
        ("fig3",),
        ("fig3/fig3-thetaL-*-estimation-costs-little",),
    ),
)
