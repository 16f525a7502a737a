"""Every kind of figure has a report sentence saying what it plots, and every sentence a plot."""

from __future__ import annotations

import pytest

from conftest import CONFIG, SMOKE_FILES
from delayed_bandits import config, kinds, papers, plotting
from delayed_bandits.errors import ConfigError


@pytest.mark.parametrize("paper", papers.ids())
def test_a_paper_draws_exactly_the_kinds_it_registers(paper):
    registered = {kinds.GENERIC} | {kind.name for kind in papers.get(paper).kinds}
    assert set(plotting.views(paper)) == registered


def test_every_kind_has_a_sentence_and_known_tables():
    for kind in kinds.registered().values():
        assert kind.shows, kind.name
        assert set(kind.tables) <= set(kinds.TABLES), kind.name


@pytest.mark.parametrize("files", [(CONFIG,), SMOKE_FILES], ids=["config", "smoke"])
def test_every_configured_figure_has_a_sentence(files):
    for paper, figures in config.load(files)["papers"].items():
        for name, fig in figures.items():
            assert kinds.shows(kinds.of(fig)), f"{paper} {name}"


def test_the_sentences_name_the_band_each_kind_draws():
    assert "±2 SE" in kinds.shows(kinds.GENERIC)
    assert "bootstrap" in kinds.shows("ratio")
    assert "±2 SE" not in kinds.shows("delay_density")


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(ConfigError, match="'sparkline'.*regret.*ratio"):
        kinds.shows("sparkline")


def test_the_claims_of_every_simulated_figure_but_the_arenas_read_every_run():
    for paper, figures in config.load(CONFIG)["papers"].items():
        for name, fig in figures.items():
            expected = kinds.simulated(fig) and paper != "arena"
            assert kinds.reads_runs(fig) is expected, f"{paper} {name}"
