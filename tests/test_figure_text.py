"""What the figures show a reader: every label in the papers' notation (no internal
identifier, no plain-text notation outside mathtext), every legend outside the axes, curves that
coincide said to, and a zoom where one scale crushes curves another separates. Each configured
figure of the smoke scale is drawn from synthetic tables of the smoke run's shape, so no
simulation runs; the arena's figures, drawn from a leaderboard, are in ``test_arena_plots``."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from conftest import smoke_config
from delayed_bandits import delays, grid, kinds, plotting
from delayed_bandits.style import apply_theme, reader

matplotlib.use("Agg")

INTERNAL = (
    "alpha_tilde",
    "alpha_hat",
    "bernoulli_gap",
    "scaled_pareto",
    "per_arm",
    "empirical(",
    "log10=",
    "probs=",
    "window_alpha",
    "mu_base",
)
"""Config keys and the tables' compact delay words: never reader text."""

PLAIN = re.compile(r"[A-Za-z\u0370-\u03ff]_[A-Za-z0-9{]|\^|\{0,1\}|\[0,1\]|log10")
"""Notation left as typed (x_y, a power, {0,1}^d, log10) outside mathtext."""

MATH = re.compile(r"(?<!\\)\$[^$]*(?<!\\)\$")


def figures() -> list[tuple[str, str]]:
    return [
        (paper, figure)
        for paper, figs in smoke_config()["papers"].items()
        for figure in figs
        if paper != "arena"
    ]


def synthetic_tables(fig: dict) -> dict[str, pd.DataFrame]:
    """A summary (every setting and curve, 10 checkpoints, curves far apart), the ratios over the
    figure's baseline, and Adapt-Patient's trace events, shaped as the workflow's."""
    summary, ratios, events = [], [], []
    for name, scfg in grid.settings(fig).items():
        horizon = grid.horizon(fig, scfg)
        t = np.unique(np.linspace(horizon / 10, horizon, 10).astype(int))
        for i, alg in enumerate(fig.get("algorithms", [])):
            mean = 3.0 * (i + 1) * np.sqrt(t)
            summary.append(
                pd.DataFrame(
                    {
                        "setting": name,
                        "algorithm": alg,
                        "t": t,
                        "mean": mean,
                        "se": 0.02 * mean,
                        "q05": 0.9 * mean,
                        "q95": 1.1 * mean,
                        "n_runs": 6,
                    }
                )
            )
            if alg != fig.get("baseline"):
                ratios.append(
                    pd.DataFrame(
                        {
                            "setting": name,
                            "algorithm": alg,
                            "t": t,
                            "ratio": 1.0 + i + 0 * t,
                            "lo": 0.9 + i,
                            "hi": 1.1 + i,
                            "n_runs": 6,
                        }
                    )
                )
            events.append(
                pd.DataFrame(
                    {
                        "algorithm": alg,
                        "replication": np.repeat([0, 1], len(t)),
                        "t": np.tile(t, 2),
                        "alpha_t": 0.1,
                        "alpha_hat": np.tile(0.3 + 1 / np.sqrt(t), 2),
                    }
                )
            )
    join = lambda parts: pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()  # noqa: E731
    return {"summary": join(summary), "ratios": join(ratios), "events": join(events)}


def shown(fig) -> list[str]:
    """Every text of a drawn figure, its configured title included."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def draw(paper: str, figure: str):
    fig_cfg = smoke_config()["papers"][paper][figure]
    apply_theme()
    drawn = plotting.view(paper, kinds.of(fig_cfg))(
        synthetic_tables(fig_cfg), paper, figure, fig_cfg
    )
    return drawn, fig_cfg


@pytest.mark.parametrize("paper, figure", figures())
def test_every_text_is_written_for_a_reader(paper: str, figure: str) -> None:
    drawn, _ = draw(paper, figure)
    for text in shown(drawn):
        outside = MATH.sub("", text)
        assert not [word for word in INTERNAL if word in outside], text
        assert not PLAIN.search(outside), text
    matplotlib.pyplot.close(drawn)


@pytest.mark.parametrize("paper, figure", figures())
def test_legends_lie_outside_every_panel(paper: str, figure: str) -> None:
    drawn, _ = draw(paper, figure)
    drawn.canvas.draw()
    legends = [*drawn.legends, *(ax.get_legend() for ax in drawn.axes if ax.get_legend())]
    panels = [ax for ax in drawn.axes if ax.axison]
    for legend in legends:
        box = legend.get_window_extent()
        hidden = [
            ax.get_title() or ax.get_ylabel()
            for ax in panels
            if box.overlaps(ax.get_window_extent())
        ]
        assert not hidden, f"the legend lies over {hidden}"
    matplotlib.pyplot.close(drawn)


@pytest.mark.parametrize(
    "text, typeset",
    [
        ("Patient, α̃ = 0.1", r"Patient, $\tilde{\alpha}$ = 0.1"),
        ("OTFLinUCB, code width, {0,1}^d actions", r"OTFLinUCB, code width, $\{0,1\}^d$ actions"),
        (
            "authors' code (σ₀ = 0.5): [0,1]^d actions",
            r"authors' code ($\sigma_0$ = 0.5): $[0,1]^d$ actions",
        ),
        (
            "Adapt-Patient, d_t from α_low = 0.1",
            r"Adapt-Patient, $d_t$ from $\alpha_{\mathrm{low}}$ = 0.1",
        ),
        ("fit: 12 + 0.5 E[τ]", r"fit: 12 + 0.5 $\mathbb{E}[\tau]$"),
        ("P(D > d) = 0.7 (d+1)^-0.3", r"P(D > d) = 0.7 $(d+1)^{-0.3}$"),
        ("T = 10^3.75", r"T = $10^{3.75}$"),
        ("θ_H = (0.5, 0.4, 0.3)", r"$\theta_H$ = (0.5, 0.4, 0.3)"),
        ("density of log10 delays", r"density of $\log_{10}$ delays"),
        ("already $x_1$, and α̂_t", r"already $x_1$, and $\hat{\alpha}_t$"),
        ("alpha_tilde", "alpha_tilde"),  # an identifier is no notation: the text check catches it
    ],
)
def test_reader_typesets_the_labels_notation(text: str, typeset: str) -> None:
    assert reader(text) == typeset


@pytest.mark.parametrize(
    "spec, words",
    [
        ({"kind": "geometric", "mean": 500}, "geometric, mean 500"),
        ({"kind": "pareto", "alpha": 0.7}, "Pareto(α = 0.7)"),
        (
            {
                "kind": "per_arm",
                "arms": [
                    {"kind": "scaled_pareto", "alpha": 0.3, "c": 0.7},
                    {"kind": "pareto", "alpha": 0.3},
                ],
            },
            "arm 1: P(D > d) = 0.7 (d+1)^-0.3; arm 2: Pareto(α = 0.3)",
        ),
        (
            {
                "kind": "empirical",
                "log10": True,
                "scale": 0.01,
                "probs": [0, 0.5, 1],
                "values": [0, 1, 2],
            },
            "empirical (quantile table of 3 points, rescaled by 0.01)",
        ),
        ({"kind": "exponential", "mean": 50, "bound": 75}, "exponential, mean 50, bounded at 75"),
    ],
)
def test_delay_laws_in_words(spec: dict, words: str) -> None:
    assert delays.prose(spec) == words


def _curves(**means: np.ndarray) -> pd.DataFrame:
    t = np.arange(100, 1001, 100)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "setting": "homogeneous",
                    "algorithm": alg,
                    "t": t,
                    "mean": mean,
                    "se": 0.001 * mean + 0.01,
                    "q05": 0.0,
                    "q95": 0.0,
                    "n_runs": 6,
                }
            )
            for alg, mean in means.items()
        ],
        ignore_index=True,
    )


def test_coinciding_curves_share_a_line_and_the_panel_says_so() -> None:
    fig_cfg = smoke_config()["papers"]["manegueu2020"]["fig4"]
    fig_cfg = {**fig_cfg, "algorithms": ["patient-01", "patient-05", "ducb-200"]}
    t = np.arange(100, 1001, 100)
    summary = _curves(**{"patient-01": 2.0 * t, "patient-05": 2.0 * t + 1, "ducb-200": 0.5 * t})
    apply_theme()
    drawn = plotting.regret_figure({"summary": summary}, "manegueu2020", "fig4", fig_cfg)
    (panel,) = drawn.axes
    assert "coincide" in panel.get_title()
    assert r"$\tilde{\alpha}$" in panel.get_title()
    dashes = {line.get_label(): line.get_linestyle() for line in panel.lines}
    assert dashes["Patient, α̃ = 0.1"] == dashes["Patient, α̃ = 0.5"] == "--"  # alternating
    matplotlib.pyplot.close(drawn)


def test_a_zoom_separates_curves_the_scale_crushes() -> None:
    fig_cfg = smoke_config()["papers"]["manegueu2020"]["fig4"]
    t = np.arange(100, 1001, 100)
    curves = {
        "patient-01": 2.0 * t,
        "patient-05": 1.0 * t,
        "ducb-10": 5 + np.log(t),
        "ducb-50": 3 + np.log(t),
        "ducb-100": 3.5 + np.log(t),
        "ducb-200": 8 + 0 * t,
    }
    summary = _curves(**curves)
    low = plotting.zoom_range({alg: summary[summary.algorithm == alg] for alg in curves})
    assert low is not None and low[1] < 20 < 2.0 * 1000
    apply_theme()
    drawn = plotting.regret_figure({"summary": summary}, "manegueu2020", "fig4", fig_cfg)
    main, zoom = drawn.axes
    assert zoom.get_ylim() == pytest.approx(low)
    assert "zoom" in zoom.get_title() and "coincide" not in main.get_title()
    matplotlib.pyplot.close(drawn)
    apart = {alg: summary[summary.algorithm == alg] for alg in ("patient-01", "patient-05")}
    assert plotting.zoom_range(apart) is None  # nothing crushed: no zoom
