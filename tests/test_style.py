"""The figures' theme and palettes, set without seaborn, are seaborn's."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pytest
import seaborn

from delayed_bandits.style import THEME, apply_theme, palette


def _rc_after(set_theme) -> dict:
    with mpl.rc_context():
        mpl.rcdefaults()
        set_theme()
        return dict(mpl.rcParams)


def test_theme_is_seaborns_whitegrid_paper():
    ours = _rc_after(apply_theme)
    theirs = _rc_after(lambda: seaborn.set_theme(style="whitegrid", context="paper"))
    defaults = _rc_after(lambda: None)
    # seaborn's "rocket" is the one setting left out: no figure draws with the default colormap
    assert theirs.pop("image.cmap") == "rocket" and ours.pop("image.cmap") == "viridis"
    differ = {key for key in theirs if ours[key] != theirs[key]}
    assert not differ, {key: (ours[key], theirs[key]) for key in differ}
    assert all(THEME[key] != defaults[key] for key in THEME)  # it lists only what it changes


@pytest.mark.parametrize(
    "name, n",
    [("tab10", 3), ("tab10", 10), ("tab10", 13), ("viridis", 1), ("viridis", 5), ("viridis", 12)],
)
def test_palette_is_seaborns(name, n):
    ours = palette(name, n)
    assert len(ours) == n
    assert np.array_equal(np.array(ours), np.array(seaborn.color_palette(name, n)))


def test_palette_refuses_a_qualitative_map_it_does_not_know():
    with pytest.raises(ValueError, match="'Set1'.*tab10"):
        palette("Set1", 3)
