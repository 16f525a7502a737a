"""docs/extending.md stays true: every file and name its checklists give exists, for every
built-in paper and in the arena. A checklist that drifts from the code fails here."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
import yaml

from conftest import ROOT
from delayed_bandits import papers, quoted, quoting, references
from delayed_bandits.arena import digest, entrants
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
        "findings.py",
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
    for module, name in (
        ("claims", "CHECKS"),
        ("findings", "FINDINGS"),
        ("plots", "PLOTS"),
        ("cli", "add_commands"),
    ):
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


def _built_in_files() -> list[str]:
    """The files the built-in entrant's checklist names, each item's first."""
    section = _section("A new arena algorithm").split("A built-in entrant is", 1)[1]
    return [re.match(r"`([\w/<>.]+)`", item)[1] for item in _items(section)]


def test_the_built_in_checklist_names_three_files_and_the_kernel_s_signature() -> None:
    assert _built_in_files() == [
        "src/delayed_bandits/arena/<name>.py",
        "src/delayed_bandits/arena/experiment.py",
        "config/config.yaml",
    ]
    section = _section("A new arena algorithm")
    for name in ("BUILT_IN", "FAMILIES", "HANDLINGS", "BASES"):
        assert f"`{name}`" in section and hasattr(arena_experiment, name), name
    # the signature the page gives is the one the runners call
    assert "`kernel(problem, mu, uniforms, delays, seed) -> actions`" in section
    assert "kernel(problem(draw), st.mu, env.uniforms, env.delays, seed)" in inspect.getsource(
        entrants.policy_runners
    )
    assert "`delayed-bandits quote entrants --write`" in section


def _appended(text: str, entrant: str) -> str:
    """config/config.yaml's ``text`` with ``entrant`` appended to the arena's regret figure's
    ``algorithms`` list, as the checklist says, whatever the list's order and line breaks."""
    head, arena = text.split("\n  arena:\n", 1)
    start = arena.index("algorithms: [", arena.index("\n    regret:\n"))
    end = arena.index("]", start)
    return f"{head}\n  arena:\n{arena[:end].rstrip()}, {entrant}{arena[end:]}"


def test_the_entrant_is_appended_whatever_the_list_s_order() -> None:
    """The checklist's step on config/config.yaml, as the toy test below takes it: the list
    read back is the arena's with the entrant last, for the shipped list and for one whose last
    entries are others (the test once matched `ucb1, klucb]`)."""
    from delayed_bandits import config as cfg

    text = (ROOT / "config" / "config.yaml").read_text()
    shipped = cfg.merged(ROOT / "config" / "config.yaml")["papers"]["arena"]["regret"]
    # the same list reversed, broken over lines elsewhere
    start = text.index("algorithms: [", text.index("\n    regret:\n", text.index("\n  arena:\n")))
    end = text.index("]", start)
    ids = [i.strip() for i in text[start + len("algorithms: [") : end].split(",")]
    reordered = f"{text[:start]}algorithms: [{', '.join(ids[::-1][:3])},\n    {', '.join(ids[::-1][3:])}{text[end:]}"
    for source in (text, reordered):
        listed = yaml.safe_load(_appended(source, "first-arm"))["papers"]["arena"]["regret"]
        assert listed["algorithms"][-1] == "first-arm"
        assert sorted(listed["algorithms"][:-1]) == sorted(shipped["algorithms"])


def test_the_old_import_path_names_the_new_one() -> None:
    """A plug-in of the edition before imports delayed_bandits.papers.arena: the error names
    delayed_bandits.arena, and the registry still finds the arena once, at its own path."""
    for module in ("delayed_bandits.papers.arena", "delayed_bandits.papers.arena.entrants"):
        sys.modules.pop("delayed_bandits.papers.arena", None)
        with pytest.raises(ImportError, match=r"moved to delayed_bandits\.arena") as caught:
            importlib.import_module(module)
        assert "from delayed_bandits.arena.entrants import from_policy" in str(caught.value)
    assert papers.get("arena").module == "delayed_bandits.arena"
    assert list(papers.ids()).count("arena") == 1


TOY_MODULE = '''
    """A toy built-in entrant (tests): the first arm, always."""
    import numpy as np


    class FirstArm:
        def __init__(self, problem, rng):
            pass

        def choose(self, t):
            return 0

        def played(self, t, arm):
            pass

        def observe(self, s, arm, delay):
            pass


    def kernel(problem, mu, uniforms, delays, seed):
        return np.zeros(problem.horizon, dtype=np.int64)
'''
TOY_ENTRY = """
    from_policy(
        "first-arm",
        "First arm",
        "the first arm, always",
        toy.FirstArm,
        toy.kernel,
        family="Toy et al. 2031",
        handling=Handling("stubborn", "play one arm whatever arrives"),
        base=TS,
    ),"""
CHECK = """
from delayed_bandits import config as cfg
from delayed_bandits.arena import digest, experiment
from delayed_bandits.arena.views import families

assert ("Toy et al. 2031", ("first-arm",)) in families.FAMILIES, families.FAMILIES
assert "first-arm" in digest.CROSSING["stubborn"], digest.CROSSING
assert "(`first-arm`)" in open("docs/arena.md").read()
full = cfg.load(["config/config.yaml"])
assert "first-arm" in full["papers"]["arena"]["regret"]["algorithms"]
"""


def test_a_toy_built_in_entrant_touches_the_checklist_s_files_only(tmp_path) -> None:
    """A toy built-in entrant added to a copy of the package by the checklist's three steps
    lands in the families, the crossing tables, the docs' block (after `quote entrants --write`)
    and the config; the files that differ from the checkout are those three and the docs the
    command rewrote."""
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("src", "config", "docs"):
        shutil.copytree(ROOT / part, copy / part, ignore=ignore)
    shutil.copy(ROOT / "README.md", copy / "README.md")
    arena = copy / "src" / "delayed_bandits" / "arena"
    (arena / "toy.py").write_text(textwrap.dedent(TOY_MODULE).lstrip())
    experiment = arena / "experiment.py"
    text = experiment.read_text()
    text = text.replace(
        "from delayed_bandits.arena.policies import EMThompson, IgnoresDelays, KaplanMeierBootstrap\n",
        "from delayed_bandits.arena import toy\n"
        "from delayed_bandits.arena.policies import EMThompson, IgnoresDelays, KaplanMeierBootstrap\n",
    )
    end = text.index("\n]\n", text.index("BUILT_IN: list[Entrant] = ["))
    experiment.write_text(text[:end] + TOY_ENTRY + text[end:])
    config = copy / "config" / "config.yaml"
    config.write_text(_appended(config.read_text(), "first-arm"))
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}

    def run(*args: str) -> None:
        done = subprocess.run(
            [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr

    run("-c", "from delayed_bandits.cli import main; main(['quote', 'entrants', '--write'])")
    run("-c", "from delayed_bandits.cli import main; raise SystemExit(main(['quote']))")
    run("-c", CHECK)
    changed = sorted(
        path.relative_to(copy).as_posix()
        for path in copy.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and (
            not (ROOT / path.relative_to(copy)).is_file()
            or (ROOT / path.relative_to(copy)).read_bytes() != path.read_bytes()
        )
    )
    files = [f.replace("<name>", "toy") for f in _built_in_files()]
    regenerated = {  # the docs that hold the declarations' block, which the command rewrote
        doc.as_posix()
        for doc in quoting.QUOTING
        if set(quoted.names((ROOT / doc).read_text())) & set(digest.declared())
    }
    assert len(regenerated) >= 2 and set(changed) - set(files) == regenerated
    assert set(files) <= set(changed)


def test_the_page_lists_the_problem_s_fields_and_the_information_models() -> None:
    """The `Problem` a policy is told, field by field in the dataclass's order, every
    information model by its name, and `horizon_tuned` among the `Entrant` fields."""
    section = _section("A new arena algorithm")
    listed = section.split("field by field", 1)[1].split("\n\n", 2)[1]
    names = re.findall(r"^- `(\w+)`:", listed, re.M)
    assert names == [f.name for f in dataclasses.fields(entrants.Problem)]
    models = section.split("The information models", 1)[1].split("\n\n", 1)[0]
    assert [m for m in entrants.INFORMATION if f"`{m}`" not in " ".join(models.split())] == []
    assert "`horizon_tuned=True`" in section and "horizon_tuned" in {
        f.name for f in dataclasses.fields(entrants.Entrant)
    }
