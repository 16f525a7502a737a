"""Figures of Vernade et al. 2020 beyond regret against time: the density of log10 delays of the
heavy-tailed law (Figure 2), computed from the law itself (no simulation is needed)."""

from __future__ import annotations

from typing import Any, Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from delayed_bandits import captions, delays, grid
from delayed_bandits.papers.vernade2020.experiment import heavy_law
from delayed_bandits.style import legend_outside, reader

KDE_DRAWS = 20_000  # draws of log10(delay) for the Gaussian KDE, from a fixed seed
KDE_SEED = 0


def log10_draws(law: delays.Empirical, n: int, seed: int) -> np.ndarray:
    """X = log10(delay in the table's unit) by inverse-CDF sampling of the table, before the
    rescaling and flooring that make a delay in rounds (the sampler of ``delays.Empirical``)."""
    return np.interp(np.random.default_rng(seed).random(n), law.probs, law.values)


def density_figure(
    tables: Mapping[str, pd.DataFrame], paper: str, figure: str, fig_cfg: Mapping[str, Any]
) -> plt.Figure:
    """Figure 2: Gaussian KDE of log10 delays (as the paper's, scipy's default bandwidth) over the
    table's exact piecewise-uniform density, with the window m and the horizon T marked where
    they fall after the rescaling."""
    from scipy.stats import gaussian_kde  # here: scipy.stats costs ~0.7 s of import elsewhere

    name, st = heavy_law(fig_cfg)
    law = st.delay
    probs, values = np.asarray(law.probs), np.asarray(law.values)
    fig, ax = plt.subplots(figsize=(7.5, 5.0), layout="constrained")
    width = np.diff(values)
    keep = width > 0  # a repeated value is an atom, not a density; dropping it keeps the edges
    ax.stairs(
        np.diff(probs)[keep] / width[keep],
        values[np.r_[True, keep]],
        color="0.6",
        label=f"quantile table ({len(values)} points), exact density",
    )
    xs = np.linspace(values[0] - 0.5, values[-1] + 0.5, 600)
    ax.plot(
        xs,
        gaussian_kde(log10_draws(law, KDE_DRAWS, KDE_SEED))(xs),
        color="C0",
        lw=2,
        label=f"Gaussian KDE of {KDE_DRAWS} draws",
    )
    horizon = int(fig_cfg["horizon"])
    # D = floor(scale 10^X) <= d  <=>  X < log10((d + 1) / scale)
    for rounds, text, style in (
        (st.window, f"window m = {st.window} rounds: τ_m = {st.tau_m:.2f}", "--"),
        (
            horizon - 1,
            f"horizon T = {horizon} rounds: P(D ≥ T) = {1 - float(law.cdf(horizon - 1)):.2f}",
            ":",
        ),
    ):
        ax.axvline(np.log10((rounds + 1) / law.scale), color="black", ls=style, lw=1, label=text)
    ax.set(
        xlabel=reader(f"log10(delay in seconds); delay in rounds = ⌊{law.scale:g} × seconds⌋"),
        ylabel="density",
    )
    legend_outside(fig, *ax.get_legend_handles_labels(), ncol=2)
    label = grid.settings(fig_cfg)[name].get("label", name)
    fig.suptitle(reader(f"{captions.title(fig_cfg, f'{paper} {figure}')}\n{label}"), fontsize=10)
    return fig


PLOTS = {"delay_density": density_figure}
