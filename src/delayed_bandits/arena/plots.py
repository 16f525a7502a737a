"""Figures of the arena, every algorithm against every delay regime: its kinds of figure, by kind
(``PLOTS``, which the registry reads: ``Paper.plots``), each drawn by a view of ``views``: the
leaderboard as a heatmap at T and at T/10, the regret curves behind it, the window study and the
critical-difference diagram of the algorithms' mean ranks."""

from __future__ import annotations

from delayed_bandits.arena.views import curves, heatmap, ranks, window

PLOTS = {
    "arena": heatmap.heatmap_figure,
    "arena_early": heatmap.early_figure,
    "arena_curves": curves.curves_figure,
    "arena_window": window.window_figure,
    "arena_ranks": ranks.ranks_figure,
}
