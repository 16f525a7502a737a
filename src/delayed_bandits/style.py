"""The figures' look: seaborn's "whitegrid" style at "paper" scale, set through matplotlib alone.

Importing seaborn costs each plot job about 0.7 s of CPU (it imports scipy.stats), for a theme
and a few palettes. ``THEME`` holds the matplotlib settings that
``seaborn.set_theme(style="whitegrid", context="paper")`` (seaborn 0.13) changes, and ``palette``
picks colours as ``seaborn.color_palette`` does; ``tests/test_style.py`` holds both equal to
seaborn's.

It also holds what every figure shares beyond the theme: ``reader``, which typesets the plain
notation of the config's labels (``α̃``, ``α_2``, ``{0,1}^d``, ``E[τ]``) as mathtext, and
``legend_outside``, the one way a legend is placed: outside the axes, where it hides no data."""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable, Sequence

import matplotlib as mpl
import numpy as np
from cycler import cycler
from matplotlib.font_manager import FontProperties
from matplotlib.transforms import ScaledTranslation

# seaborn's "deep" palette: the default colour of a line drawn without one
DEEP = [
    "#4C72B0",
    "#DD8452",
    "#55A868",
    "#C44E52",
    "#8172B3",
    "#937860",
    "#DA8BC3",
    "#8C8C8C",
    "#CCB974",
    "#64B5CD",
]

PAPER_SCALE = 0.8  # seaborn's "paper" context scales its base ("notebook") sizes by 0.8

THEME: dict[str, Any] = {
    # style "whitegrid"
    "axes.axisbelow": True,
    "axes.edgecolor": ".8",
    "axes.grid": True,
    "axes.labelcolor": ".15",
    "axes.prop_cycle": cycler(color=[mpl.colors.to_rgb(c) for c in DEEP]),
    "font.sans-serif": [
        "Arial",
        "DejaVu Sans",
        "Liberation Sans",
        "Bitstream Vera Sans",
        "sans-serif",
    ],
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
        raise ValueError(
            f"palette {name!r}: a qualitative colormap not in QUALITATIVE "
            f"({', '.join(QUALITATIVE)}); add it there with its size"
        )
    return [tuple(c) for c in cmap(np.linspace(0, 1, n + 2)[1:-1])[:, :3]]


# ------------------------------------------------------------------------------------------------
# Text for readers
# ------------------------------------------------------------------------------------------------

_ACCENTS = {"\u0302": r"\hat", "\u0303": r"\tilde"}  # combining circumflex, tilde: α̂, α̃
_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_GREEK = "α-ωΑ-Ω"
_NOTATION = re.compile(
    r"(?P<set>\{[^{}$]*\}|\[[^\[\]$]*\])\^(?P<setpow>\w+)"  # {0,1}^d, [0,1]^d
    r"|E\[(?P<expect>[^\]$]+)\]"  # E[τ]
    r"|(?<![\w\\])(?P<log>log10)(?!\w)"  # log10
    r"|(?P<base>\([^()$]*\)|(?<![\w.])\d+)\^(?P<pow>-?[\d.]*\d)"  # (d+1)^-0.3, 10^3.75
    rf"|(?P<greek>[{_GREEK}])(?P<accent>[\u0302\u0303]?)"  # α, α̃, α̂
    r"(?:_(?P<sub>\w+)|(?P<digits>[₀-₉]+))?(?:\^(?P<sup>-?[\w.]*\w))?"  # α_2, θ_H, σ₀
    rf"|(?<![A-Za-z{_GREEK}])(?P<latin>[A-Za-z])_(?P<lsub>[A-Za-z0-9]+)(?![A-Za-z0-9])"
)  # D_m, d_t


def _script(text: str) -> str:
    """A sub- or superscript in mathtext: a word upright (``low``), a symbol or number as is."""
    if len(text) > 1 and text.isalpha():
        return rf"{{\mathrm{{{text}}}}}"
    return f"{{{_math(text)}}}" if len(text) > 1 else _math(text)


def _greek(char: str) -> str:
    """A Greek letter's mathtext command (``\\alpha``, ``\\Delta``), or the letter itself where
    mathtext has none (capital Alpha is an A)."""
    name = unicodedata.name(char).split()[-1].lower().replace("lamda", "lambda")
    command = "\\" + (name.capitalize() if char.isupper() else name)
    known = (
        name != "omicron"
        if char.islower()
        else name
        in {
            "gamma",
            "delta",
            "theta",
            "lambda",
            "xi",
            "pi",
            "sigma",
            "upsilon",
            "phi",
            "psi",
            "omega",
        }
    )
    return command if known else char


def _math(text: str) -> str:
    """``text`` (plain notation) as the inside of a mathtext formula."""
    return _NOTATION.sub(lambda m: _formula(m, inner=True), text).replace(" ", r"\ ")


def _formula(m: re.Match, inner: bool = False) -> str:
    if m["set"] is not None:
        body = m["set"].replace("{", r"\{").replace("}", r"\}")
        out = f"{body}^{_script(m['setpow'])}"
    elif m["log"] is not None:
        out = r"\log_{10}"
    elif m["expect"] is not None:
        out = rf"\mathbb{{E}}[{_math(m['expect'])}]"
    elif m["base"] is not None:
        out = f"{m['base']}^{{{m['pow']}}}"
    elif m["greek"] is not None:
        out = _greek(m["greek"])
        if m["accent"]:
            out = rf"{_ACCENTS[m['accent']]}{{{out}}}"
        sub = m["sub"] or (m["digits"] or "").translate(_SUBSCRIPT_DIGITS)
        out += (f"_{_script(sub)}" if sub else "") + (f"^{_script(m['sup'])}" if m["sup"] else "")
    else:
        out = f"{m['latin']}_{_script(m['lsub'])}"
    return out if inner else f"${out}$"


def reader(text: str) -> str:
    """``text`` as a figure shows it: the plain notation of labels typeset as mathtext, outside
    any ``$...$`` already there. 'Patient, α̃ = 0.1' becomes 'Patient, $\\tilde{\\alpha}$ = 0.1';
    '{0,1}^d actions' '$\\{0,1\\}^d$ actions'; 'd_t from α_low' '$d_t$ from
    $\\alpha_{\\mathrm{low}}$'; 'E[τ]' '$\\mathbb{E}[\\tau]$'. Identifiers are left alone
    ('alpha_tilde' is not notation, and no figure should show it)."""
    parts = re.split(r"(?<!\\)(\$[^$]*(?<!\\)\$)", text)
    return "".join(
        part if part.startswith("$") else _NOTATION.sub(_formula, part) for part in parts
    )


# ------------------------------------------------------------------------------------------------
# Legends
# ------------------------------------------------------------------------------------------------


def visible_length(text: str) -> int:
    """About how many characters ``text`` shows: its mathtext commands and markup not counted."""
    return len(re.sub(r"\\[a-zA-Z]+|[${}^_\\]", "", text))


LEGEND_SIZE = 8  # points: legible at page width, where the figures are 7-8 inches wide


def legend_outside(
    fig: Any,
    handles: Sequence[Any],
    labels: Sequence[str],
    ncol: int | None = None,
    where: str = "lower center",
    title: str | None = None,
    width: float | None = None,
    **options: Any,
) -> Any:
    """One legend for the whole figure, outside its axes (below them by default, or ``where``:
    'right upper', ...), so that no curve hides under it; the figure then uses constrained layout,
    which makes room for the legend and the suptitle (``plotting.save`` keeps it). ``ncol``
    defaults to as many columns of labels as fit in the figure's width (``width`` inches, default
    the figure's), labels typeset by ``reader``; ``options`` go to ``Figure.legend``."""
    labels = [reader(label) for label in labels]
    if ncol is None:
        inches = width if width is not None else fig.get_figwidth()
        longest = max((visible_length(label) for label in labels), default=1)
        # about 15 characters per inch at LEGEND_SIZE, plus the handle and the column gap
        ncol = max(1, min(len(labels), int(inches / (longest / 15 + 0.7))))
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")
    return fig.legend(
        handles,
        labels,
        loc=f"outside {where}",
        ncol=ncol,
        fontsize=LEGEND_SIZE,
        title=title,
        title_fontsize=LEGEND_SIZE,
        frameon=False,
        **options,
    )


def legend_below(
    ax: Any,
    handles: Sequence[Any] | None = None,
    labels: Sequence[str] | None = None,
    ncol: int = 1,
    **options: Any,
) -> Any:
    """A panel's own legend, below its x axis label (where it hides no data): for panels whose
    entries differ. Needs constrained layout, which makes room for it."""
    if handles is None or labels is None:
        handles, labels = ax.get_legend_handles_labels()
    rc = mpl.rcParams
    # the tick labels and the axis label, in points, and a gap
    size = lambda key: FontProperties(size=rc[key]).get_size_in_points()  # noqa: E731
    drop = (
        size("xtick.labelsize")
        + rc["xtick.major.pad"]
        + size("axes.labelsize")
        + rc["axes.labelpad"]
        + 8
    )
    fig = ax.get_figure(root=True)
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")
    below = ax.transAxes + ScaledTranslation(0, -drop / 72, fig.dpi_scale_trans)
    return ax.legend(
        handles,
        [reader(label) for label in labels],
        loc="upper center",
        bbox_to_anchor=(0.5, 0),
        bbox_transform=below,
        ncol=ncol,
        fontsize=LEGEND_SIZE,
        frameon=False,
        **options,
    )


def unique_handles(axes: Iterable[Any]) -> tuple[list[Any], list[str]]:
    """The legend entries of ``axes``, each label once, in the order they were first drawn."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    return list(seen.values()), list(seen)
