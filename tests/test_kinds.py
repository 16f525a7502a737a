"""Every kind of figure has a report sentence saying what it plots, and every sentence a plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from delayed_bandits import algorithms, config, kinds, plotting
from delayed_bandits.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


def test_every_kind_a_paper_draws_has_a_sentence_and_no_sentence_is_orphaned():
    drawn = {kind for paper in algorithms.PAPERS for kind in plotting.views(paper)}
    assert drawn == set(kinds.SHOWS)


@pytest.mark.parametrize("path", ["config/config.yaml", "config/smoke.yaml"])
def test_every_configured_figure_has_a_sentence(path):
    for paper, figures in config.load(ROOT / path)["papers"].items():
        for name, fig in figures.items():
            assert kinds.shows(kinds.of(fig)), f"{paper} {name}"


def test_the_sentences_name_the_band_each_kind_draws():
    assert "±2 SE" in kinds.shows(kinds.GENERIC)
    assert "bootstrap" in kinds.shows("ratio")
    assert "±2 SE" not in kinds.shows("delay_density")


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(ConfigError, match="'sparkline'.*regret.*ratio"):
        kinds.shows("sparkline")
