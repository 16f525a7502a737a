"""Nothing typed twice: a figure's title and caption name its horizon and run count as
``{horizon}`` and ``{replications}`` (``captions.filled``), so that they say what the run did at any
scale; a number typed where the config holds it fails here, at the paper and the smoke scale."""

from __future__ import annotations

import re
from typing import Any, Mapping

import pytest

from conftest import ROOT
from delayed_bandits import captions, config
from delayed_bandits.errors import ConfigError
from delayed_bandits.yamlio import read_yaml

# "T = 3000" or "T = 3,000", and "400 runs" / "200 replications" / "100 independent runs"
_NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+)"
_HORIZON = re.compile(rf"\bT\s*=\s*{_NUMBER}")
_RUNS = re.compile(rf"(?<![\d.]){_NUMBER}\s+(?:independent\s+)?(?:runs|replications)\b")


def typed(fig: Mapping[str, Any], text: str) -> list[str]:
    """The numbers of ``text`` that type the figure's horizon or run count."""
    text = " ".join(text.split())
    found = [
        m[0] for m in _HORIZON.finditer(text) if int(m[1].replace(",", "")) == fig.get("horizon")
    ]
    return found + [
        m[0] for m in _RUNS.finditer(text) if int(m[1].replace(",", "")) == fig.get("replications")
    ]


def _figures() -> list[tuple[str, str, str, Mapping[str, Any]]]:
    # the texts as typed: loading fills their {keys} (config.merged), so read the files themselves
    paper = read_yaml((ROOT / "config" / "config.yaml").read_text())
    smoke = config.merge(paper, read_yaml((ROOT / "config" / "smoke.yaml").read_text()))
    return [
        (scale, p, f, fig)
        for scale, cfg in (("paper", paper), ("smoke", smoke))
        for p, figs in cfg["papers"].items()
        for f, fig in figs.items()
    ]


@pytest.mark.parametrize(
    "scale, paper, figure, fig", _figures(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_titles_and_captions_take_their_numbers_from_the_config(scale, paper, figure, fig):
    for key in ("title", "caption"):
        assert not typed(fig, fig.get(key, "")), (
            f"{scale} {paper}.{figure}.{key} types {typed(fig, fig.get(key, ''))}: "
            "write {horizon} and {replications} instead"
        )
    # and every {key} they name fills in (captions.filled raises on one the figure does not set)
    title = captions.filled(fig, captions.title(fig), scale=scale)
    caption = captions.filled(fig, captions.caption(fig), "caption", scale=scale)
    assert "{horizon}" not in title + caption and "{replications}" not in title + caption
    if "{horizon}" in fig.get("caption", ""):
        assert f"T = {fig['horizon']:,}" in caption


def test_a_typed_number_and_an_unknown_field_are_caught():
    fig = {"horizon": 3000, "replications": 400, "title": "at T = {horizon}"}
    assert typed(fig, "at T = 3000, 400 runs") == ["T = 3000", "400 runs"]
    assert typed(fig, "at T = 3,000, 400\n  independent runs") == [
        "T = 3,000",
        "400 independent runs",
    ]
    assert typed(fig, "the paper's 100 runs, T = 10^4") == []  # the paper's, not the config's
    assert captions.title(fig) == "at T = 3,000"
    assert captions.filled(fig, "m in {10, 50}, {0,1}^d") == "m in {10, 50}, {0,1}^d"
    with pytest.raises(ConfigError, match=r"\{horizn\} is not a value this figure sets"):
        captions.filled(fig, "T = {horizn}")
    with pytest.raises(ConfigError, match=r"caption: \{checkpoints\}"):
        captions.caption({"caption": "{checkpoints} points"})


# a horizon as a notebook writes it: 3000, 3,000, 10\,000 or 10^4
_NB_HORIZON = re.compile(r"\bT\s*=\s*(10\^\{?(\d+)\}?|\d{1,3}(?:(?:,|\\,)\d{3})+|\d+)")


def _notebook_typed(text: str, values: Mapping[str, set[int]]) -> list[str]:
    """What the markdown ``text`` of a paper's notebook types of its figures' ``values``
    (``horizon``, ``replications``: the sets of the paper's figures)."""
    text = " ".join(text.split())
    found = []
    for m in _NB_HORIZON.finditer(text):
        number = 10 ** int(m[2]) if m[2] else int(re.sub(r"\D", "", m[1]))
        if number in values["horizon"]:
            found.append(m[0])
    return found + [
        m[0] for m in _RUNS.finditer(text) if int(m[1].replace(",", "")) in values["replications"]
    ]


def _notebooks() -> list[str]:
    cfg = config.load(ROOT / "config" / "config.yaml")
    return [p for p in cfg["papers"] if (ROOT / "notebooks" / f"{p}.ipynb").is_file()]


@pytest.mark.parametrize("paper", _notebooks())
def test_notebook_markdown_takes_its_numbers_from_the_config(paper):
    import json

    figs = config.load(ROOT / "config" / "config.yaml")["papers"][paper].values()
    values = {key: {f[key] for f in figs if key in f} for key in ("horizon", "replications")}
    cells = json.loads((ROOT / "notebooks" / f"{paper}.ipynb").read_text(encoding="utf-8"))
    typed_here = [
        (i, found)
        for i, cell in enumerate(cells["cells"])
        if cell["cell_type"] == "markdown"
        for found in _notebook_typed("".join(cell["source"]), values)
    ]
    assert not typed_here, f"notebooks/{paper}.ipynb types config values (cell, text): {typed_here}"


def test_a_notebook_number_is_caught_in_every_notation():
    values = {"horizon": {10_000, 3000}, "replications": {400}}
    assert _notebook_typed(r"$T = 10\,000$, 400 runs", values) == [r"T = 10\,000", "400 runs"]
    assert _notebook_typed("up to $T = 10^4$ and T = 3000", values) == ["T = 10^4", "T = 3000"]
    assert _notebook_typed("the paper's 200 runs at $T = 10^5$", values) == []
