"""Findings of Vernade et al. (ICML 2020), Section 8: each a statement of the paper, established
under the faithful reading, the authors' code (its confidence widths, actions on [0,1]^d), and
qualified by the two sensitivity readings the figures also run: the widths printed in the paper
on {0,1}^d, and the code's widths on {0,1}^d (docs/decisions/vernade2020.md#widths,
docs/decisions/vernade2020.md#action-sets)."""

from delayed_bandits.findings import READING, Finding, Qualifier

FAITHFUL = "the authors' code: its widths, actions on [0,1]^d"


def _readings(figure: str, claim: str) -> tuple[Qualifier, ...]:
    """The two sensitivity readings of the claim ``<figure>-<claim>``."""
    return (
        Qualifier(
            READING,
            (f"{figure}/{figure}-{claim}-paper-binary",),
            "the paper's printed widths, actions on {0,1}^d",
        ),
        Qualifier(
            READING, (f"{figure}/{figure}-{claim}-code-binary",), "the code's widths on {0,1}^d"
        ),
    )


def _finding(
    id: str, statement: str, location: str, figure: str, claims: tuple[str, ...]
) -> Finding:
    return Finding(
        id,
        statement,
        location,
        (figure,),
        tuple(f"{figure}/{figure}-{c}-code-continuous" for c in claims),
        tuple(q for c in claims for q in _readings(figure, c)),
        faithful=FAITHFUL,
    )


FINDINGS = (
    _finding(
        "ucb-beats-ts",
        "In all three cases, OTFLin UCB performs better than OTFLin TS, which we believe is due "
        "to the rough posterior approximation.",
        "Section 8, Figure 1",
        "fig1",
        ("ucb-beats-ts",),
    ),
    _finding(
        "larger-window",
        "Comparing the two leftmost figures, we see the impact of increasing the window size: "
        "the log regime starts earlier but the asymptotic regret is similar roughly [...] "
        "R(T) = 100 in both case",
        "Section 8, Figure 1 (left and centre)",
        "fig1",
        ("other-panels-bent", "larger-window-bends-earlier", "regret-about-100"),
    ),
    _finding(
        "censored-still-linear",
        "This causes the regret increase, and also explains why at T = 3000, both algorithms are "
        "still in the linear regime.",
        "Section 8, Figure 1 (right)",
        "fig1",
        ("censored-panel-linear",),
    ),
    Finding(
        "window-and-censoring",
        "(m, µ) = (100, 100) (τm = 0.63) [...] (m, µ) = (500, 100) (τm = 0.993) [...] "
        "(m, µ) = (100, 500) when the window is set too low and the regret suffers from a high "
        "1/τm = 5.5.",
        "Section 8, Figure 1",
        ("fig1",),
        ("fig1/fig1-tau-*",),
    ),
    Finding(
        "heavy-tailed-delays",
        "A high proportion of those delays are between [10^5 and 10^6] so we rescaled them [...]. "
        "Nevertheless, many rewards will not be observed within the horizon.",
        "Section 8, Figure 2",
        ("fig2",),
        ("fig2/fig2-*",),
    ),
    _finding(
        "copes-with-heavy-tails",
        "show that OTFLin UCB is able to cope with heavy-tailed delays reasonably well.",
        "Section 8, Figure 3",
        "fig3",
        ("ucb-sublinear",),
    ),
    _finding(
        "like-central-panel",
        "It is interesting to observe that the behavior of both algorithms is similar to the "
        "central plot of Figure 1, when the window is larger than the expectation of the delays.",
        "Section 8, Figure 3",
        "fig3",
        ("like-central-panel",),
    ),
)
