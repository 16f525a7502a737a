"""Figures: each paper's kinds of figure (``views``), among them the generic one, mean
pseudo-regret against time with a ±2 SE band, one panel per setting. What every figure shares
(the theme, reader text, legends outside the axes) is in ``style``; the generic figure adds the
delay law in words (``delays.prose``), says which curves coincide at page size and zooms on curves
its scale crushes (``coinciding``, ``zoom_range``)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Callable, Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402

from delayed_bandits import (  # noqa: E402
    algorithms,
    captions,
    delays,
    grid,
    kinds,  # noqa: E402
    papers,
)
from delayed_bandits import curves as cv  # noqa: E402
from delayed_bandits.errors import ConfigError  # noqa: E402
from delayed_bandits.kinds import GENERIC  # noqa: E402
from delayed_bandits.outputs import atomic_path  # noqa: E402
from delayed_bandits.style import apply_theme, legend_outside, palette, reader, unique_handles  # noqa: E402


def describe_setting(scfg: Mapping[str, Any]) -> str:
    """The setting's delay law and window, as a subtitle: 'delays: geometric, mean 500; window
    m = 1000'."""
    parts = [f"delays: {delays.prose(scfg['delay'])}"] if "delay" in scfg else []
    if "window" in scfg:
        parts.append(f"window m = {scfg['window']}")
    return "; ".join(parts)


View = Callable[
    [Mapping[str, pd.DataFrame], str, str, Mapping[str, Any]], plt.Figure | list[plt.Figure]
]
"""A kind of figure: its tables, paper, figure id and config to a figure, or to pages (``save``)."""


def views(paper: str) -> dict[str, View]:
    """The kinds of figure ``paper`` can draw: the generic one, and its own
    (``papers/<paper>/plots.py``, ``PLOTS``), which may replace the generic one."""
    return {GENERIC: regret_figure, **papers.get(paper).plots()}


def view(paper: str, kind: str) -> View:
    """The function drawing ``kind`` for ``paper``; ConfigError naming the kinds it has."""
    available = views(paper)
    if kind not in available:
        raise ConfigError(f"plot kind {kind!r} is not one of {paper}'s: {', '.join(available)}")
    return available[kind]


def plot_figure(
    tables: Mapping[str, pd.DataFrame],
    paper: str,
    figure: str,
    fig_cfg: Mapping[str, Any],
    outputs: list[Path],
    kind: str | None = None,
    png_pages: Path | None = None,
) -> None:
    """Draw the figure as ``kind`` (default: the figure's own ``kind``, else regret against
    time) and save it to every path of ``outputs``, and a PNG per page into ``png_pages``."""
    apply_theme()
    draw = view(paper, kind or kinds.of(fig_cfg))
    save(draw(tables, paper, figure, fig_cfg), outputs, png_pages)


def page_png(folder: Path, page: int) -> Path:
    """Where ``save`` writes page ``page`` (from 1) of a document as PNG, in ``folder``."""
    return folder / f"page{page}.png"


def save(
    fig: plt.Figure | list[plt.Figure], outputs: list[Path], png_pages: Path | None = None
) -> None:
    """Write ``fig`` to every path (format from the suffix), atomically, then close it. A list of
    figures is a document of pages: every page goes to a PDF, the first alone to any other format,
    and, given ``png_pages`` (a folder, made afresh), each page to a PNG of its own
    (``page_png``), so that every page of a PDF can be read as an image.
    A figure laid out as it was drawn (constrained layout: ``style.legend_outside``) keeps its
    layout; the others get ``tight_layout``."""
    pages = fig if isinstance(fig, list) else [fig]
    for page in pages:
        if page.get_layout_engine() is None:
            page.tight_layout()
    if png_pages is not None:
        png_pages.mkdir(parents=True, exist_ok=True)
        for stale in png_pages.glob("page*.png"):  # a document that had more pages before
            stale.unlink()
        for i, page in enumerate(pages, 1):
            with atomic_path(page_png(png_pages, i)) as tmp:
                page.savefig(tmp, metadata={"Software": None}, dpi=150, format="png")
    for out in outputs:
        # no timestamps in the files, so reruns give identical bytes
        metadata = {"CreationDate": None} if out.suffix == ".pdf" else {"Software": None}
        with atomic_path(out) as tmp:
            if out.suffix == ".pdf" and len(pages) > 1:
                with PdfPages(tmp, metadata=metadata) as pdf:
                    for page in pages:
                        pdf.savefig(page, dpi=150)
            else:
                pages[0].savefig(tmp, metadata=metadata, dpi=150)
    for page in pages:
        plt.close(page)


COINCIDE = 0.01
"""Two curves of a panel coincide when they differ by at most this fraction of the panel's
height everywhere: at page size, one hides the other."""

CRUSHED = 0.25
"""Curves that stay below this fraction of a panel's height are crushed by the others' scale: when
some of them coincide there but not on their own scale, the figure adds a zoom on them."""


def curve_styles(fig_cfg: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """(colour, line style) per curve: a colour each; when several curves are variants of one
    algorithm, a line style per algorithm (Patient solid, D-UCB dashed, ...), else all solid."""
    curves = list(fig_cfg["algorithms"])
    variants = fig_cfg.get("variants", {})
    family = {alg: variants.get(alg, {}).get("algorithm", alg) for alg in curves}
    families = list(dict.fromkeys(family.values()))
    dashes = ("-", "--", "-.", ":")
    colours = palette("tab10", len(curves))
    return {
        alg: (
            colour,
            dashes[families.index(family[alg]) % 4] if len(families) < len(curves) else "-",
        )
        for alg, colour in zip(curves, colours)
    }


def _span(curves: Mapping[str, pd.DataFrame]) -> tuple[float, float]:
    """The lowest and highest values of the curves' ±2 SE bands."""
    return (
        min(float((c["mean"] - 2 * c.se).min()) for c in curves.values()),
        max(float((c["mean"] + 2 * c.se).max()) for c in curves.values()),
    )


def coinciding(
    curves: Mapping[str, pd.DataFrame], height: float | None = None, tolerance: float = COINCIDE
) -> list[list[str]]:
    """Groups (two or more) of the curves (``t``, ``mean``, ``se`` by name) whose means differ by
    at most ``tolerance`` of the panel's ``height`` (default: the height the curves span, ±2 SE
    bands included) at every common t: at page size they are one line."""
    if len(curves) < 2:
        return []
    if height is None:
        low, high = _span(curves)
        height = high - low
    names = list(curves)
    root = {name: name for name in names}

    def find(name: str) -> str:
        while root[name] != name:
            name = root[name]
        return name

    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = (
                curves[a]
                .set_index("t")["mean"]
                .to_frame("a")
                .join(curves[b].set_index("t")["mean"].to_frame("b"), how="inner")
            )
            if len(both) and float((both.a - both.b).abs().max()) <= tolerance * height:
                root[find(b)] = find(a)
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(find(name), []).append(name)
    return [members for members in found.values() if len(members) > 1]


def zoom_range(curves: Mapping[str, pd.DataFrame]) -> tuple[float, float] | None:
    """The y range of a zoom on curves that coincide at the panel's scale but not on their own,
    with the curves up to twice as high as they reach: None when every curve that coincides with
    another stays coincident there, or rises above ``CRUSHED`` of the panel."""
    if len(curves) < 2:
        return None
    low, high = _span(curves)
    tops = {alg: float((c["mean"] + 2 * c.se).max()) for alg, c in curves.items()}
    crushed = [
        g
        for g in coinciding(curves, high - low)
        if max(tops[a] for a in g) <= low + CRUSHED * (high - low)
    ]
    for group in crushed:
        reach = max(tops[a] for a in group)
        shown = {alg: c for alg, c in curves.items() if tops[alg] <= low + 2 * (reach - low)}
        bottom, top = _span(shown)
        bottom, top = bottom - 0.04 * (top - bottom), top + 0.04 * (top - bottom)
        if not any(set(group) <= set(apart) for apart in coinciding(shown, top - bottom)):
            return bottom, top
    return None


def coincide_note(labels: list[str]) -> str:
    """'coincide, ...: A = B', each label kept whole when wrapped."""
    return "coincide, one line dashed in turn in each colour: " + " = ".join(
        label.replace(" ", "\u00a0") for label in labels
    )


SENSITIVITY = "sensitivity reading: "
"""What the legend puts before a curve of the figure's ``sensitivity`` (drawn lighter)."""


def sensitivity(fig_cfg: Mapping[str, Any]) -> frozenset[str]:
    """The figure's curves that are sensitivity readings, not curves the paper draws (config key
    ``sensitivity``); one that is not among its ``algorithms`` is an error naming it."""
    listed = fig_cfg.get("sensitivity", [])
    stray = [a for a in listed if a not in fig_cfg.get("algorithms", [])]
    if stray:
        raise ConfigError(
            f"sensitivity: {', '.join(stray)} not among the figure's algorithms; allowed: "
            + ", ".join(fig_cfg.get("algorithms", []))
        )
    return frozenset(listed)


def regret_curves(
    ax: plt.Axes,
    curves: Mapping[str, pd.DataFrame],
    styles: Mapping[str, tuple[Any, str]],
    labels: Mapping[str, str],
    groups: list[list[str]],
    behind: frozenset[str] = frozenset(),
) -> None:
    """Mean pseudo-regret against t of ``curves`` (by name), ±2 SE bands; the curves of each of
    ``groups`` (which coincide) share one line, dashed in turn in each one's colour, so each
    shows. The curves ``behind`` (sensitivity readings) are drawn thin and light under the
    others, their labels marked (``SENSITIVITY``), so that the paper's curves stand in front."""
    dashes = {}
    for members in groups:
        for i, alg in enumerate(members):
            dashes[alg] = (3.0 * i, (3.0, 3.0 * (len(members) - 1)))
    for alg, curve in curves.items():
        colour, style = styles[alg]
        light = alg in behind
        ax.plot(
            curve.t,
            curve["mean"],
            color=colour,
            linestyle=dashes.get(alg, style),
            label=(SENSITIVITY if light else "") + labels[alg],
            zorder=1 if light else 3,
            **({"alpha": 0.5, "linewidth": 0.6 * plt.rcParams["lines.linewidth"]} if light else {}),
        )
        ax.fill_between(
            curve.t,
            curve["mean"] - 2 * curve.se,
            curve["mean"] + 2 * curve.se,
            color=colour,
            alpha=0.06 if light else 0.2,
            linewidth=0,
            zorder=0 if light else 2,
        )


def panel_title(lines: list[str], notes: list[str], width: float) -> str:
    """A panel's title: ``lines``, then ``notes`` wrapped to the panel's ``width`` in inches, as
    reader text."""
    wrapped = [textwrap.fill(note, int(13 * width), break_on_hyphens=False) for note in notes]
    return reader("\n".join([*lines, *wrapped]))


def regret_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """Mean pseudo-regret against time, ±2 SE, one panel per setting, one legend below them.
    Curves that coincide at page size share a line, dashed in turn in their colours, and the
    panel's title says so; where the scale of some curves crushes others that a closer look
    separates, a zoom on those follows the panel."""
    summary = tables["summary"]
    all_settings = grid.settings(fig_cfg)
    names = list(fig_cfg["algorithms"])
    labels = {alg: cv.label(paper, fig_cfg, alg) for alg in names}
    styles = curve_styles(fig_cfg)
    behind = sensitivity(fig_cfg)
    panels = []  # (setting, curves, zoom range)
    for name in all_settings:
        curves = {
            alg: summary[(summary.setting == name) & (summary.algorithm == alg)].sort_values("t")
            for alg in names
        }
        curves = {alg: curve for alg, curve in curves.items() if not curve.empty}
        panels.append((name, curves, zoom_range(curves)))
    n_axes = len(panels) + sum(zoom is not None for _, _, zoom in panels)
    width = max(4.6 * n_axes, 8.0)
    fig, axes = plt.subplots(
        1, n_axes, figsize=(width, 4.6 + 0.17 * len(names)), squeeze=False, layout="constrained"
    )
    free = iter(axes[0])
    for name, curves, zoom in panels:
        ax, scfg = next(free), all_settings[name]
        groups = coinciding(curves)
        if zoom is not None:
            zoomed = coinciding(curves, zoom[1] - zoom[0])
            # the zoom shows apart what it can; the panel dashes only what stays one line
            groups = [g for g in groups if any(set(g) <= set(z) for z in zoomed)]
        regret_curves(ax, curves, styles, labels, groups, behind)
        t = np.linspace(1, fig_cfg["horizon"], 400)
        lines = getattr(algorithms.experiment(paper), "reference_lines", lambda f, c: [])
        for (label, c), style in zip(lines(figure, scfg), ("--", ":")):
            ax.plot(t, c * np.log(t), color="black", linestyle=style, linewidth=1, label=label)
        ax.set_title(
            panel_title(
                [scfg.get("label", name), describe_setting(scfg)],
                [coincide_note([labels[a] for a in g]) for g in groups],
                width / n_axes,
            ),
            fontsize=9,
        )
        ax.set_xlim(0, fig_cfg["horizon"])
        if zoom is not None:
            inset = next(free)
            regret_curves(inset, curves, styles, labels, zoomed, behind)
            inset.set_xlim(0, fig_cfg["horizon"])
            inset.set_ylim(*zoom)
            ax.indicate_inset([0, zoom[0], fig_cfg["horizon"], zoom[1] - zoom[0]], edgecolor="0.3")
            inset.set_title(
                panel_title(
                    ["zoom on the framed band of the panel to the left"],
                    [coincide_note([labels[a] for a in g]) for g in zoomed],
                    width / n_axes,
                ),
                fontsize=9,
            )
    for ax in axes[0]:
        ax.set_xlabel("round t")
        ax.set_ylabel(r"pseudo-regret $\sum_{s \leq t} (\theta^* - \theta_{A_s})$")
    handles, names = unique_handles(axes[0])
    # the paper's curves first, the sensitivity readings after them, a group apart
    order = sorted(range(len(names)), key=lambda i: names[i].startswith(SENSITIVITY))
    legend_outside(fig, [handles[i] for i in order], [names[i] for i in order])
    n_runs = int(summary.n_runs.min()) if not summary.empty else 0
    fig.suptitle(
        reader(
            f"{captions.title(fig_cfg, f'{paper} {figure}')}\nT = {fig_cfg['horizon']:,}, "
            f"mean ± 2 SE over {n_runs} runs"
        ),
        fontsize=10,
    )
    return fig
