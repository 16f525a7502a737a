"""Findings of Manegueu et al. (ICML 2020), Section 8: each a statement of the paper, established
under the faithful reading (Adapt-Patient as Section 6.3 defines it: it plays the lower confidence
value alpha_t, its d_t from alpha_low, the input it is given) and qualified by what the figures
also run: Figure 5 to T = 10^5 (``fig5long``, our extension); the Adapt-Patient whose d_t takes the
true alpha, whose alpha_t is pinned at alpha_low as the faithful one's is, so that it plays the
same arms in every run (a twin); and the readings on the raw estimate alpha_hat_t
(docs/decisions/manegueu2020.md#dt-readings, docs/decisions/manegueu2020.md#raw-estimate,
docs/decisions/cross-cutting.md#findings)."""

from delayed_bandits.findings import EXTENSION, READING, TWIN, Finding, Qualifier

FAITHFUL = "Adapt-Patient as Section 6.3 defines it: alpha_t, d_t from alpha_low"
LONG = "Figure 5's problem run to T = 10^5 (ours)"
TRUE_ALPHA = "d_t from the true alpha = 0.3 (an oracle), alpha_t pinned as the faithful one's"
RAW = "plays the raw alpha_hat_t, d_t from the true alpha = 0.3 (an oracle)"


def _adapt(figure: str, claim: str) -> tuple[tuple[str, ...], tuple[Qualifier, ...]]:
    """Figure 6's claim ``claim`` on the faithful Adapt-Patient, with its twin and raw reading."""
    return (
        (f"{figure}/{figure}-adapt-patient-{claim}",),
        (
            Qualifier(TWIN, (f"{figure}/{figure}-adapt-patient-true-alpha-{claim}",), TRUE_ALPHA),
            Qualifier(READING, (f"{figure}/{figure}-adapt-patient-raw-{claim}",), RAW),
        ),
    )


_WORSE = _adapt("fig6", "slightly-worse-than-oracle")
_BETTER = _adapt("fig6", "below-patient-0?")

FINDINGS = (
    Finding(
        "regret-against-alpha-tilde",
        "Note that the regret first decreases with α and then increases after approximately "
        "[...] α = 0.3. This is precisely what is expected.",
        "Section 8.1, Figure 2",
        ("fig2",),
        ("fig2/fig2-u-shaped", "fig2/fig2-minimum-near-0.3"),
    ),
    Finding(
        "peaks-by-alpha2",
        "A more subtle phenomenon, also illustrating Theorem 3, is that the smaller α2, the larger "
        "the value and the position of the maximum of each curve",
        "Section 8.1, Figure 3",
        ("fig3",),
        ("fig3/fig3-smaller-alpha-*",),
    ),
    Finding(
        "patient-comparable-to-ducb",
        "The performances of D-UCB and Patient Bandits are comparable, in particular in the case "
        "of good calibration of the parameters",
        "Section 8.2, Figure 4",
        ("fig4",),
        ("fig4/fig4-patient-comparable-to-best-ducb",),
    ),
    Finding(
        "ducb-linear-phase-caught-up",
        "the presence of long lasting linear phases at the initial stage of learning of D-UCB for "
        "large m which tend to be caught up over time",
        "Section 8.2, Figure 4",
        ("fig4",),
        ("fig4/fig4-ducb-large-m-*",),
    ),
    Finding(
        "ducb-linear",
        "We observe that D-UCB has a very high regret, [...] increasing linearly with T.",
        "Section 8.2, Figure 5",
        ("fig5", "fig5long"),
        ("fig5/fig5-ducb-*-linear", "fig5/fig5-ducb-above-patient"),
        (
            Qualifier(
                EXTENSION, ("fig5long/fig5-ducb-*-linear", "fig5long/fig5-ducb-above-patient"), LONG
            ),
        ),
    ),
    Finding(
        "patient-sublinear",
        "On the other hand, Patient Bandits adapts to the heterogeneous delays and manages to "
        "identify the best arm, leading to a sub-linear regret.",
        "Section 8.2, Figure 5",
        ("fig5", "fig5long"),
        ("fig5/fig5-patient-*-sublinear",),
        (Qualifier(EXTENSION, ("fig5long/fig5-patient-*-sublinear",), LONG),),
    ),
    Finding(
        "adapt-slightly-worse-than-oracle",
        "this takes some time so that the performance of Adapt-Patient Bandits is slightly worse "
        "than the one of Patient Bandits that knows the oracle parameter α = 0.3.",
        "Section 8.3, Figure 6",
        ("fig6",),
        _WORSE[0],
        _WORSE[1],
        faithful=FAITHFUL,
    ),
    Finding(
        "adapt-better-than-misspecified",
        "the perfor-[...]mance of Adapt-Patient Bandits is better than that of Patient Bandits "
        "run non-oracle parameters α [∈] {0.1, 0.6}",
        "Section 8.3, Figure 6",
        ("fig6",),
        (*_BETTER[0], "fig6/fig6-patient-03-below-patient-06"),
        _BETTER[1],
        faithful=FAITHFUL,
    ),
    Finding(
        "alpha-t-converges",
        "The lower bound estimates αt eventually converges towards the right quantity, which is "
        "α = 0.3.",
        "Section 8.3, Figures 6 and 7",
        ("fig6", "fig7"),
        (
            "fig7/fig7-adapt-patient-alpha-approaches-0.3",
            "fig6/fig6-adapt-patient-alpha-leaves-alpha-low",
        ),
        (
            Qualifier(
                TWIN,
                (
                    "fig7/fig7-adapt-patient-true-alpha-alpha-approaches-0.3",
                    "fig6/fig6-adapt-patient-true-alpha-alpha-leaves-alpha-low",
                ),
                TRUE_ALPHA,
            ),
            Qualifier(
                READING,
                ("fig7/fig7-adapt-patient-alpha-hat-approaches-0.3",),
                "the raw alpha_hat_t, d_t from alpha_low",
            ),
            Qualifier(
                READING,
                ("fig7/fig7-adapt-patient-true-alpha-alpha-hat-approaches-0.3",),
                "the raw alpha_hat_t, d_t from the true alpha = 0.3 (an oracle)",
            ),
        ),
        faithful=FAITHFUL,
    ),
)
