"""An edit of the config reruns exactly the jobs whose outputs it decides, and reverting it reruns
them again (each rule's params hold the hash of the values its job reads,
``provenance.stage_values``); no invocation rewrites a merged config another run reads
(``config.write_merged``). Checked with dry runs of one paper's smoke-scale targets, in a copy,
after a run of that paper whose jobs only create their outputs (a stand-in ``delayed-bandits``
on PATH): Snakemake records each job's params as for a real run, at no simulation's cost."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import SNAKEMAKE_ENV, copy_workflow, run

PAPER = "vernade2020"
FIG = f"smoke/results/{PAPER}/fig1"
STAND_IN = """#!/usr/bin/env python3
import sys
from pathlib import Path
for arg in sys.argv[2:]:  # every output path the command names, created empty
    path = Path(arg)
    if "/" in arg and path.suffix and not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        if path.suffix == ".csv" or path.name == "claims.json":  # its record, beside it
            path.with_name(path.stem + ".provenance.json").write_text("")
"""
PLOT = {f"smoke/figures/{PAPER}-fig1.pdf", f"smoke/figures/{PAPER}-fig1.png"}
CLAIMS = {
    f"{FIG}/claims.json",
    f"{FIG}/claims.provenance.json",
    f"{FIG}/claims.html",
    f"smoke/results/{PAPER}/claims.md",
    f"smoke/reports/{PAPER}.html",
}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    work = copy_workflow(tmp_path_factory.mktemp("reruns"))
    stand_in = work / "bin" / "delayed-bandits"
    stand_in.parent.mkdir()
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    env = dict(SNAKEMAKE_ENV, PATH=f"{stand_in.parent}:{SNAKEMAKE_ENV['PATH']}")
    done = _snakemake(work, env, "--cores", "1")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return work, env


def _snakemake(work: Path, env: dict[str, str], *args: str, overlay: bool = False):
    files = ["config/smoke.yaml", *(["overlay.yaml"] if overlay else [])]
    return run(["snakemake", PAPER, *args, "--configfile", *files], work, env)


def _listed(work: Path, env: dict[str, str], overlay: bool = False) -> set[str]:
    """The outputs of the jobs a dry run lists; every merged config left as it was."""
    merged = work / ".snakemake" / "delayed-bandits"
    before = {p.name: p.read_bytes() for p in merged.glob("config-*.json")}
    dry = _snakemake(work, env, "-n", overlay=overlay)
    text = dry.stdout + dry.stderr
    assert dry.returncode == 0, text[-3000:]
    assert {
        p.name: p.read_bytes() for p in merged.glob("config-*.json") if p.name in before
    } == before
    return {
        path
        for line in re.findall(r"^\s+output: (.*)$", text, re.MULTILINE)
        for path in line.split(", ")
    }


def _set(doc: dict, keys: tuple[str, ...], value) -> dict:
    node = doc
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = value
    return doc


def _shards(work: Path) -> set[str]:
    return {p.relative_to(work).as_posix() for p in (work / FIG).glob("rep*.parquet")} | {
        f"{FIG}/summary.csv",
        f"{FIG}/summary.provenance.json",
        f"{FIG}/summary.provenance.html",
    }


# (what is edited, its keys in the figure, the new value, where: in place or as an overlay)
EDITS = [
    ("title", ("title",), "Another title", "in place"),
    ("title", ("title",), "Another title", "overlay"),
    ("claims threshold", ("roughly_band",), 0.5, "overlay"),
    ("claims threshold", ("roughly_band",), 0.5, "in place"),
    ("simulation", ("checkpoints",), 10, "in place"),
    ("simulation", ("checkpoints",), 10, "overlay"),
]


@pytest.mark.probe("config edits, rerun")
@pytest.mark.parametrize(
    ("kind", "keys", "value", "where"), EDITS, ids=[f"{e[0]}-{e[3]}" for e in EDITS]
)
def test_an_edit_reruns_what_it_decides_and_its_revert_too(work, kind, keys, value, where) -> None:
    work, env = work  # up to date: the fixture's run, or the last test's after its revert
    expected = {"title": PLOT, "claims threshold": CLAIMS, "simulation": PLOT | CLAIMS}[kind]
    if kind == "simulation":
        expected = expected | _shards(work)
    smoke = work / "config" / "smoke.yaml"
    original = smoke.read_text()
    path = ("papers", PAPER, "fig1", *keys)
    overlay = where == "overlay"
    if overlay:
        (work / "overlay.yaml").write_text(yaml.safe_dump(_set({}, path, value)))
    else:
        smoke.write_text(
            yaml.safe_dump(_set(yaml.safe_load(original), path, value), sort_keys=False)
        )
    try:
        listed = _listed(work, env, overlay)
        if kind == "simulation":  # the new checkpoints' shards: the same names
            assert {p for p in listed if "/rep" in p} == {p for p in expected if "/rep" in p}
        assert listed == expected
        done = _snakemake(work, env, "--cores", "1", overlay=overlay)
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    finally:
        smoke.write_text(original)
        (work / "overlay.yaml").unlink(missing_ok=True)
    assert _listed(work, env) == expected, "the revert left outputs of the edit"
    done = _snakemake(work, env, "--cores", "1")
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]


@pytest.mark.probe("files and arguments")
def test_snakemake_before_setup_says_to_run_make_setup(tmp_path: Path) -> None:
    """A package the workflow imports that is missing (a stand-in package that needs one): one
    line naming it and `make setup`, no ModuleNotFoundError traceback."""
    (tmp_path / "work").mkdir()
    work = copy_workflow(tmp_path / "work")
    fake = tmp_path / "fake" / "delayed_bandits"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("import numba_not_installed_here\n")
    env = dict(SNAKEMAKE_ENV, PYTHONPATH=str(fake.parent))
    done = run(["snakemake", "-n", "--cores", "1"], work, env)
    text = done.stdout + done.stderr
    assert done.returncode != 0 and "ModuleNotFoundError" not in text, text[-2000:]
    assert "numba_not_installed_here is not installed" in text and "make setup" in text, text
