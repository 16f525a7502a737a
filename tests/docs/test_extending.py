"""docs/extending.md stays true: every file and name its checklists give exists, for every
built-in paper and in the arena. A checklist that drifts from the code fails here."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re

import pytest
import yaml

from conftest import ROOT
from delayed_bandits import papers, references
from delayed_bandits.arena import entrants
from delayed_bandits.arena import experiment as arena_experiment
from delayed_bandits.papers.pikeburke2018 import policies as pb_policies

PAGE = (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")
PACKAGE = ROOT / "src" / "delayed_bandits" / "papers"
BUILT_IN = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())


def _section(title: str) -> str:
    return PAGE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _items(section: str) -> list[str]:
    """The checklist items of a section, each as one line of text."""
    return [" ".join(item.split()) for item in re.split(r"\n- \[ \] ", "\n" + section)[1:]]


def _folder_items() -> dict[str, str]:
    """File name -> its item, for the items of the paper's folder."""
    folder = _section("A new paper").split("Outside the folder:", 1)[0]
    return {re.match(r"`([\w.]+)`", item)[1]: item for item in _items(folder)}


def test_the_paper_checklist_names_the_folder_files() -> None:
    assert set(_folder_items()) == {
        "__init__.py",
        "experiment.py",
        "policies.py",
        "kernels.py",
        "schema.yaml",
        "claims.py",
        "plots.py",
        "cli.py",
    }


@pytest.mark.parametrize("paper", BUILT_IN)
def test_every_paper_has_the_files_and_names_of_the_checklist(paper: str) -> None:
    for name, item in _folder_items().items():
        path = PACKAGE / paper / name
        if "(optional" in item and not path.exists():
            continue
        assert path.is_file(), f"{paper}: no {name}, which docs/extending.md lists"
    registration = papers.get(paper)
    for field in re.findall(
        r"`(\w+)`", _folder_items()["__init__.py"].split("PAPER = Paper(...)")[1]
    ):
        assert hasattr(registration, field), f"Paper has no field {field!r}"
    experiment = registration.experiment()
    for name in ("Setting", "draw_environment", "ALGORITHMS", "BENCH"):
        assert name in _folder_items()["experiment.py"] and hasattr(experiment, name), name
    assert hasattr(experiment.Setting, "from_config")
    for module, name in (("claims", "CHECKS"), ("plots", "PLOTS"), ("cli", "add_commands")):
        if (PACKAGE / paper / f"{module}.py").exists():
            assert hasattr(importlib.import_module(f"{registration.module}.{module}"), name)


@pytest.mark.parametrize("paper", papers.ids())
def test_every_schema_declares_only_its_own_keys(paper: str) -> None:
    """The common figure keys listed on the page are those of figure_common, and a paper schema
    (the arena's among them, beside its modules outside papers/) refers to it and closes itself
    with unevaluatedProperties."""
    listed = re.findall(
        r"`(\w+)`", _folder_items()["schema.yaml"].split("The common ones (")[1].split(")")[0]
    )
    base = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    common = base["$defs"]["figure_common"]["properties"]
    assert set(listed) == set(common)
    schema = papers.get(paper).schema()
    assert schema.get("unevaluatedProperties") is False and "additionalProperties" not in schema
    assert {"$ref": "config.schema.yaml#/$defs/figure_common"} in schema["allOf"]


def test_the_shared_reference_interface_exists() -> None:
    assert "`delayed_bandits.references.run`" in PAGE and "`first_argmax`" in PAGE
    assert {"policy", "usable"} <= set(inspect.signature(references.run).parameters)
    for method in ("choose", "played", "observe"):
        assert hasattr(entrants.Policy, method)


def test_the_arena_checklist_names_what_the_arena_reads() -> None:
    section = _section("A new arena algorithm")
    assert "ENTRANTS = [from_policy(" in section and hasattr(entrants, "from_policy")
    assert 'getattr(module, "ENTRANTS"' in inspect.getsource(arena_experiment)
    assert "`BUILT_IN`" in section and hasattr(arena_experiment, "BUILT_IN")
    # a policy that needs every outcome: its method, its models and QPM-D over a base of its own
    assert "`observe_outcome(s, arm, reward, delay)`" in section
    assert hasattr(entrants.OutcomePolicy, "observe_outcome")
    assert {"LABELLED", "SETTLED"} <= {
        n for n in dir(entrants)
    } and "`information=LABELLED`" in section
    assert hasattr(pb_policies, "QPMD") and hasattr(pb_policies, "UCBBase")
    keywords = re.findall(r"`(\w+)`", section.split("`Entrant` fields:")[1].split(")")[0])
    fields = {f.name for f in dataclasses.fields(entrants.Entrant)}
    assert keywords and set(keywords) <= fields | set(
        inspect.signature(entrants.from_policy).parameters
    )
