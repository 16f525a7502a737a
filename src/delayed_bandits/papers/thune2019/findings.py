"""Findings of Thune et al. (NeurIPS 2019) on Example 8 (Section 4.3), which has no experiment of
its own: each a statement of the paper and the claims of ``claims.py`` that test it."""

from delayed_bandits.findings import Finding

FINDINGS = (
    Finding(
        "oracle-bound-tighter",
        "There are, however, cases where it is much tighter. Consider the following example.",
        "Section 4.3, Example 8; Theorem 6",
        ("example8",),
        (
            "example8/doubling-below-explicit",
            "example8/doubling-slope",
            "example8/skipper-oracle-slope",
        ),
    ),
    Finding(
        "example8-bounds",
        "Dβ = 0 (assuming that T ≥ K ln K)",
        "Section 4.3, Example 8; Corollary 7; Theorem 6",
        ("example8",),
        (
            "example8/explicit-bound-slope",
            "example8/oracle-bound-slope",
            "example8/example8-*",
            "example8/*-within-bound",
        ),
    ),
    Finding(
        "dew-needs-dmax",
        "In order to remove the restriction on dmax and eliminate the need of its knowledge we "
        "introduce a wrapper algorithm, Skipper.",
        "Section 1; Section 3.2, Theorem 1",
        ("example8",),
        ("example8/dew-linear",),
    ),
)
