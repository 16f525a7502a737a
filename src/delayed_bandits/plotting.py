"""Figures: each paper's kinds of figure (``views``), among them the generic one, mean
pseudo-regret against time with a ±2 SE band, one panel per setting."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from delayed_bandits import algorithms, config, delays, papers  # noqa: E402
from delayed_bandits.errors import ConfigError  # noqa: E402
from delayed_bandits import kinds  # noqa: E402
from delayed_bandits.kinds import GENERIC  # noqa: E402
from delayed_bandits.outputs import atomic_path  # noqa: E402
from delayed_bandits.style import apply_theme, palette  # noqa: E402


def _describe_setting(scfg: Mapping[str, Any]) -> str:
    """The setting's delay law and window, as a subtitle: 'delay geometric(mean=500), m = 1000'."""
    parts = [f"delay {delays.describe(scfg['delay'])}"] if "delay" in scfg else []
    if "window" in scfg:
        parts.append(f"m = {scfg['window']}")
    return ", ".join(parts)


View = Callable[[Mapping[str, pd.DataFrame], str, str, Mapping[str, Any]], plt.Figure]


def views(paper: str) -> dict[str, View]:
    """The kinds of figure ``paper`` can draw: the generic one, and its own
    (``papers/<paper>/plots.py``, ``PLOTS``), which may replace the generic one."""
    return {GENERIC: regret_figure, **papers.get(paper).plots()}


def view(paper: str, kind: str) -> View:
    """The function drawing ``kind`` for ``paper``; ConfigError naming the kinds it has."""
    available = views(paper)
    if kind not in available:
        raise ConfigError(f"plot kind {kind!r} is not one of {paper}'s: "
                          f"{', '.join(available)}")
    return available[kind]


def plot_figure(tables: Mapping[str, pd.DataFrame], paper: str, figure: str,
                fig_cfg: Mapping[str, Any], outputs: list[Path], kind: str | None = None) -> None:
    """Draw the figure as ``kind`` (default: the figure's own ``kind``, else regret against
    time) and save it to every path of ``outputs``."""
    apply_theme()
    draw = view(paper, kind or kinds.of(fig_cfg))
    save(draw(tables, paper, figure, fig_cfg), outputs)


def save(fig: plt.Figure, outputs: list[Path]) -> None:
    """Write ``fig`` to every path (format from the suffix), atomically, then close it."""
    fig.tight_layout()
    for out in outputs:
        # no timestamps in the files, so reruns give identical bytes
        metadata = {"CreationDate": None} if out.suffix == ".pdf" else {"Software": None}
        with atomic_path(out) as tmp:
            fig.savefig(tmp, metadata=metadata, dpi=150)
    plt.close(fig)


def regret_figure(tables: Mapping[str, pd.DataFrame], paper: str, figure: str,
                  fig_cfg: Mapping[str, Any]) -> plt.Figure:
    """Mean pseudo-regret against time, ±2 SE, one panel per setting."""
    summary = tables["summary"]
    all_settings = config.settings(fig_cfg)
    settings = list(all_settings)
    fig, axes = plt.subplots(1, len(settings), figsize=(max(5.2 * len(settings), 8.0), 4.2),
                             squeeze=False)
    colours = dict(zip(fig_cfg["algorithms"], palette("tab10", len(fig_cfg["algorithms"]))))
    for ax, name in zip(axes[0], settings):
        scfg = all_settings[name]
        for alg in fig_cfg["algorithms"]:
            rows = summary[(summary.setting == name) & (summary.algorithm == alg)].sort_values("t")
            if rows.empty:
                continue
            label = config.label(paper, fig_cfg, alg)
            ax.plot(rows.t, rows["mean"], color=colours[alg], label=label)
            ax.fill_between(rows.t, rows["mean"] - 2 * rows.se, rows["mean"] + 2 * rows.se,
                            color=colours[alg], alpha=0.2, linewidth=0)
        t = np.linspace(1, fig_cfg["horizon"], 400)
        lines = getattr(algorithms.experiment(paper), "reference_lines", lambda f, c: [])
        for (label, c), style in zip(lines(figure, scfg), ("--", ":")):
            ax.plot(t, c * np.log(t), color="black", linestyle=style, linewidth=1, label=label)
        ax.set_title(f"{scfg.get('label', name)}\n{_describe_setting(scfg)}", fontsize=9)
        ax.set_xlabel("round t")
        ax.set_ylabel(r"pseudo-regret $\sum_{s \leq t} (\theta^* - \theta_{A_s})$")
        ax.legend(fontsize=7, loc="upper left")
    n_runs = int(summary.n_runs.min()) if not summary.empty else 0
    fig.suptitle(f"{fig_cfg.get('title', f'{paper} {figure}')}\nT = {fig_cfg['horizon']}, "
                 f"mean ± 2 SE over {n_runs} runs", fontsize=10)
    return fig
