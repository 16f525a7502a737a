"""The figures' look: seaborn's "whitegrid" style at "paper" scale, set through matplotlib alone.

Importing seaborn costs each plot job about 0.7 s of CPU (it imports scipy.stats), for a theme
and a few palettes. ``THEME`` holds the matplotlib settings that
``seaborn.set_theme(style="whitegrid", context="paper")`` (seaborn 0.13) changes, and ``palette``
picks colours as ``seaborn.color_palette`` does; ``tests/test_style.py`` holds both equal to
seaborn's."""

from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from cycler import cycler

# seaborn's "deep" palette: the default colour of a line drawn without one
DEEP = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3",
        "#937860", "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD"]

PAPER_SCALE = 0.8  # seaborn's "paper" context scales its base ("notebook") sizes by 0.8

THEME: dict[str, Any] = {
    # style "whitegrid"
    "axes.axisbelow": True,
    "axes.edgecolor": ".8",
    "axes.grid": True,
    "axes.labelcolor": ".15",
    "axes.prop_cycle": cycler(color=[mpl.colors.to_rgb(c) for c in DEEP]),
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans",
                        "sans-serif"],
    "grid.color": ".8",
    "lines.solid_capstyle": "round",
    "patch.edgecolor": "w",
    "patch.force_edgecolor": True,
    "text.color": ".15",
    "xtick.bottom": False,
    "xtick.color": ".15",
    "ytick.color": ".15",
    "ytick.left": False,
    # context "paper"
    "font.size": 12 * PAPER_SCALE,
    "axes.labelsize": 12 * PAPER_SCALE,
    "axes.titlesize": 12 * PAPER_SCALE,
    "legend.title_fontsize": 12 * PAPER_SCALE,
    "legend.fontsize": 11 * PAPER_SCALE,
    "xtick.labelsize": 11 * PAPER_SCALE,
    "ytick.labelsize": 11 * PAPER_SCALE,
    "axes.linewidth": 1.25 * PAPER_SCALE,
    "lines.linewidth": 1.5 * PAPER_SCALE,
    "lines.markersize": 6 * PAPER_SCALE,
    "patch.linewidth": 1 * PAPER_SCALE,
    "xtick.major.width": 1.25 * PAPER_SCALE,
    "ytick.major.width": 1.25 * PAPER_SCALE,
    "xtick.minor.width": 1 * PAPER_SCALE,
    "ytick.minor.width": 1 * PAPER_SCALE,
    "xtick.major.size": 6 * PAPER_SCALE,
    "ytick.major.size": 6 * PAPER_SCALE,
    "xtick.minor.size": 4 * PAPER_SCALE,
    "ytick.minor.size": 4 * PAPER_SCALE,
}
"""What the theme changes in ``matplotlib.rcParams``, except the default image colormap (seaborn's
"rocket", which no figure uses: the arena's heatmap names its own)."""

QUALITATIVE = {"tab10": 10}
"""Colormaps that are lists of distinct colours, and how many: taken in order, then repeated."""


def apply_theme() -> None:
    """Set ``THEME`` in matplotlib's rcParams, for the figures drawn after it."""
    mpl.rcParams.update(THEME)


def palette(name: str, n: int) -> list[tuple[float, float, float]]:
    """``n`` RGB colours of the matplotlib colormap ``name``: a qualitative map's colours in order
    (repeated past its size), a continuous map sampled at ``n`` evenly spaced interior points."""
    cmap = mpl.colormaps[name]
    if name in QUALITATIVE:
        size = QUALITATIVE[name]
        colours = cmap(np.linspace(0, 1, size))[:, :3]
        return [tuple(colours[i % size]) for i in range(n)]
    if cmap.N < 256:
        # seaborn takes a listed map's own colours; sampling one as continuous would differ
        raise ValueError(f"palette {name!r}: a qualitative colormap not in QUALITATIVE "
                         f"({', '.join(QUALITATIVE)}); add it there with its size")
    return [tuple(c) for c in cmap(np.linspace(0, 1, n + 2)[1:-1])[:, :3]]
