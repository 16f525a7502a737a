"""The reliability probes of config values and outputs, kept as tests: values that used to
validate and then fail or mislead in a job (floats for integers, huge numbers, YAML 1.1 octals,
names ending in a line break, keys that are not strings, runs too large for the machine, alias
bombs) are refused by ``validate`` with the key named, before any job runs; a variation never writes over the
paper-scale outputs; provenance records each config file's content; ``simulate`` refuses an
output that is not a regular file."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import BIN, CONFIG, SMOKE, copy_workflow, smoke_config
from delayed_bandits import config as cfg
from delayed_bandits import grid, provenance, resources, yamlio
from delayed_bandits.cli import main

SMOKE_CONFIG = smoke_config()
ARENA = SMOKE_CONFIG["papers"]["arena"]["regret"]
ARENA_SETTING = next(iter(ARENA["settings"]))
NOT_INTEGER = "is not of type 'integer'"
# the docs' variation (docs/auditing.md) without its scale: Vernade et al.'s Figure 2, heavy-tailed
VARIATION = {
    "papers": {
        "vernade2017": {
            "fig2": {"settings": {"thetaL": {"delay": {"kind": "pareto", "alpha": 1.5}}}}
        }
    }
}


def _validate(capsys, tmp_path: Path, overlay: Any, *, base: tuple[Path, ...] = (CONFIG, SMOKE)):
    """``delayed-bandits validate`` on ``overlay`` (YAML text, or data to dump), in-process:
    (exit code, stderr, seconds taken)."""
    path = tmp_path / "probe.yaml"
    path.write_text(overlay if isinstance(overlay, str) else yaml.safe_dump(overlay))
    start = time.perf_counter()
    code = main(["validate", "--config", *map(str, base), str(path)])
    return code, capsys.readouterr().err, time.perf_counter() - start


def _grid(key: str, value: Any, name: str = "probe") -> dict:
    """An arena overlay whose grid sets ``key`` to ``value``, named ``name`` (and the other axes
    the figure needs to one value each)."""
    axes = [{"key": key, "values": [value], "names": [name]}]
    for other, default in (("n_arms", 3), ("gap", 0.1)):
        if other != key:
            axes.append({"key": other, "values": [default], "names": [f"{other}_probe"]})
    return {"papers": {"arena": {"regret": {"grid": axes}}}}


def _fig2(**keys: Any) -> dict:
    return {"papers": {"vernade2017": {"fig2": keys}}}


def _thetal(**keys: Any) -> dict:
    return _fig2(settings={"thetaL": keys})


# 1. Integers are integers, within stated bounds ------------------------------------------------

REFUSED: dict[str, tuple[Any, list[str]]] = {
    "seed-3.0": ("seed: 3.0\n", ["config key 'seed'", NOT_INTEGER]),
    "replications-3.0": (
        _fig2(replications=3.0),
        ["config key 'papers.vernade2017.fig2.replications'", NOT_INTEGER],
    ),
    "grid-n_arms-2.5": (
        _grid("n_arms", 2.5),
        ["config key 'papers.arena.regret.grid.0.values.0'", NOT_INTEGER, "setting key n_arms"],
    ),
    "grid-window-2.5": (
        _grid("window", 2.5),
        ["config key 'papers.arena.regret.grid.0.values.0'", NOT_INTEGER, "setting key window"],
    ),
    "seed-1e300": ("seed: 1.0e+300\n", ["config key 'seed'", NOT_INTEGER]),
    "seed-10^30": (
        "seed: 1000000000000000000000000000000\n",
        ["config key 'seed'", "greater than the maximum of 4611686018427387903"],
    ),
    "time-limit-1e300": (
        "simulation_time_limit: 1.0e+300\n",
        ["config key 'simulation_time_limit'", "greater than the maximum of 31536000"],
    ),
    "time-limit-10^14": (
        "simulation_time_limit: 100000000000000\n",
        ["config key 'simulation_time_limit'", "greater than the maximum of 31536000"],
    ),
    "window-1e300": (
        _thetal(window=1.0e300),
        ["config key 'papers.vernade2017.fig2.settings.thetaL.window'", NOT_INTEGER],
    ),
    "window-10^300": (
        _thetal(window=10**300),
        [
            "config key 'papers.vernade2017.fig2.settings.thetaL.window'",
            "greater than the maximum of 4611686018427387903",
        ],
    ),
    # 2. Names match whole: no final line break --------------------------------------------------
    "scale-newline": ({"scale": "mine\n"}, ["config key 'scale'", "does not match"]),
    "figure-newline": (
        {"papers": {"vernade2017": {"fig2\n": {}}}},
        ["config key 'papers.vernade2017'", "'fig2\\n'", "without a line break"],
    ),
    "setting-newline": (
        _fig2(settings={"thetaL\n": {}}),
        ["config key 'papers.vernade2017.fig2.settings'", "'thetaL\\n'"],
    ),
    "grid-name-newline": (
        _grid("n_arms", 3, name="K3\n"),
        ["config key 'papers.arena.regret.grid.0.names.0'", "does not match"],
    ),
    # 3. Keys are strings --------------------------------------------------------------------------
    "key-123": ("papers:\n  vernade2017:\n    123: {}\n", ["papers.vernade2017", "key 123 (int)"]),
    "key-null": ("null: 1\n", ["config key '<top level>'", "key None"]),
    "key-on": ("on: 1\n", ["config key '<top level>'", "('on' was unexpected)"]),
    # 4. Runs the machine cannot hold, before any job ----------------------------------------------
    "replications-1e9": (
        _fig2(replications=10**9),
        [
            "config key 'papers.vernade2017.fig2.replications'",
            "1,000,000,000",
            "CPU hours",
            "cap of 1,000",
        ],
    ),
    "arena-n_arms-1e6": (
        _grid("n_arms", 10**6),
        [
            f"config key 'papers.arena.regret.settings.{ARENA_SETTING}-probe-",
            "K = 1000000",
            "more than this machine's",
        ],
    ),
    "jobs-20000": (
        _fig2(replications=20_000, shard_size=1),
        [
            "config key 'papers.vernade2017.fig2.replications'",
            "20,000 simulation jobs",
            "cap of 10,000",
        ],
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
@pytest.mark.probe("config values")
def test_a_value_that_would_fail_in_a_job_is_refused_by_name(tmp_path: Path, capsys, name: str):
    overlay, parts = REFUSED[name]
    code, err, _ = _validate(capsys, tmp_path, overlay)
    assert code == 2 and "Traceback" not in err, (name, err)
    for part in parts:
        assert part in err, (name, part, err)


@pytest.mark.probe("config values")
def test_recorded_values_beyond_the_memory_are_refused(tmp_path: Path, capsys) -> None:
    """Many replications of a short horizon: cheap to simulate in few jobs, but the jobs that read
    the figure's tables would hold more values than the machine has memory for."""
    fig = SMOKE_CONFIG["papers"]["vernade2017"]["fig2"]
    curves = len(grid.settings(fig)) * len(fig["algorithms"])
    values = resources.physical_memory_mb() * 1_000_000 // resources.BYTES_PER_VALUE
    reps = values // (curves * fig["checkpoints"]) + 1
    code, err, _ = _validate(capsys, tmp_path, _fig2(replications=reps, shard_size="auto"))
    assert code == 2 and "papers.vernade2017.fig2.replications" in err, err
    assert "recorded values" in err and "more than this machine's" in err, err


def test_every_pattern_of_the_schema_matches_whole() -> None:
    """A pattern ending in ``$`` accepts a final line break (Python's ``re.search``), so a name
    ending in one made directories whose names end in a newline: every pattern ends in ``\\Z``."""
    found = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "pattern":
                    found.append(value)
                if key == "patternProperties":
                    found.extend(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(cfg.schemas())
    assert found and all(p.endswith("\\Z") and not p.endswith("$") for p in found), found


# 5. YAML 1.2: octal-looking values, words -------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("012", 12),
        ("0o12", 10),
        ("0x1f", 31),
        ("-012", -12),
        ("yes", "yes"),
        ("on", "on"),
        ("1:20", "1:20"),
        ("1e3", 1000.0),
        ("2020-01-01", "2020-01-01"),
        ("", None),
    ],
)
def test_plain_values_are_read_as_yaml_1_2(text: str, value: Any) -> None:
    """YAML 1.1 (PyYAML's default) read ``012`` as 10, ``on`` as True and ``1:20`` as 80."""
    read = yamlio.read_yaml(f"a: {text}\n")["a"]
    assert read == value and type(read) is type(value)


def test_a_seed_with_a_leading_zero_is_decimal(tmp_path: Path) -> None:
    overlay = tmp_path / "octal.yaml"
    overlay.write_text("seed: 012\n")
    assert cfg.load([CONFIG, SMOKE, overlay])["seed"] == 12


# 6. Aliases: a size cap, no cycles ---------------------------------------------------------------


def _alias_bomb(of_mappings: bool) -> str:
    """The "billion laughs": 9 levels of 9 aliases each, 9^9 values from under 800 bytes."""
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        name, prev = "abcdefghi"[level], "abcdefghi"[level - 1]
        if of_mappings:
            lines.append(
                f"{name}: &{name} {{" + ", ".join(f"k{j}: *{prev}" for j in range(9)) + "}"
            )
        else:
            lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("of_mappings", [False, True])
@pytest.mark.probe("config values")
def test_an_alias_bomb_is_refused_at_once(tmp_path: Path, capsys, of_mappings: bool) -> None:
    text = _alias_bomb(of_mappings)
    assert len(text) < 800
    code, err, seconds = _validate(capsys, tmp_path, text)
    assert code == 2 and "probe.yaml" in err and "more than 100,000 values" in err, err
    assert seconds < 10, seconds


@pytest.mark.parametrize("text", ["a: &a [1, *a]\n", "a: &a {b: {c: *a}}\n"])
@pytest.mark.probe("config values")
def test_a_self_referencing_anchor_is_refused_by_name(tmp_path: Path, capsys, text: str) -> None:
    code, err, _ = _validate(capsys, tmp_path, text)
    assert code == 2 and "Traceback" not in err and "RecursionError" not in err, err
    assert "probe.yaml" in err and "an anchor holds an alias of itself" in err, err


def test_an_alias_within_the_cap_is_expanded() -> None:
    shared = yamlio.read_yaml("x: &x {k: [1, 2]}\ny: *x\nz: {<<: *x, j: 3}\n")
    assert shared == {"x": {"k": [1, 2]}, "y": {"k": [1, 2]}, "z": {"k": [1, 2], "j": 3}}


def _snakemake(work: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        [f"{BIN}/snakemake", "-n", "--cores", "1", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.probe("config values, through the workflow")
def test_the_workflow_refuses_an_alias_bomb_and_a_cycle_at_once(tmp_path: Path) -> None:
    """Under ``snakemake -n``, a bomb of lists and a list holding itself (Snakemake's own reading
    of a --configfile passes lists through; a bomb of mappings stops in Snakemake's own merge
    first, docs/auditing.md)."""
    work = copy_workflow(tmp_path)
    (work / "bomb.yaml").write_text(_alias_bomb(of_mappings=False))
    (work / "cycle.yaml").write_text("a: &a [1, *a]\n")
    for name, says in (("bomb.yaml", "more than 100,000 values"), ("cycle.yaml", "of itself")):
        start = time.perf_counter()
        run = _snakemake(work, "--configfile", "config/smoke.yaml", name)
        said = run.stdout + run.stderr  # a dry run prints the workflow's error on stdout
        assert run.returncode != 0 and f"config file '{name}'" in said, said[-2000:]
        assert says in said and time.perf_counter() - start < 120
        assert not (work / "smoke").exists()


# 7. Variations never overwrite the paper scale ------------------------------------------------


def test_a_variation_without_a_scale_gets_one_from_its_content(tmp_path: Path) -> None:
    overlay = tmp_path / "my.yaml"
    overlay.write_text(yaml.safe_dump(VARIATION))
    scale = cfg.load([CONFIG, overlay])["scale"]
    assert re.fullmatch(r"variation-[0-9a-f]{16}", scale), scale
    assert cfg.output_prefix({"scale": scale}) == f"{scale}/"
    assert cfg.merged([CONFIG, overlay])["scale"] == scale  # the same overlay, the same folder
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump(_thetal(delay={"kind": "pareto", "alpha": 2.5})))
    assert cfg.merged([CONFIG, other])["scale"] not in (scale, "paper")
    # an override (snakemake --config seed=3) changes what is computed too
    assert cfg.merged([CONFIG], {"seed": 3})["scale"].startswith(cfg.VARIATION)


def test_a_named_scale_and_the_run_keys_keep_their_scale(tmp_path: Path) -> None:
    named = tmp_path / "named.yaml"
    named.write_text(yaml.safe_dump({"scale": "pareto", **VARIATION}))
    assert cfg.merged([CONFIG, named])["scale"] == "pareto"
    run_only = tmp_path / "run.yaml"
    run_only.write_text(
        yaml.safe_dump(
            {"shard_size": 7, "simulation_time_limit": 60, **_fig2(simulate_jobs="per_setting")}
        )
    )
    assert cfg.merged([CONFIG, run_only])["scale"] == "paper"
    assert cfg.merged([CONFIG])["scale"] == "paper"
    assert cfg.merged([CONFIG, SMOKE, named])["scale"] == "pareto"


def test_the_documented_variation_leaves_the_paper_outputs_alone(tmp_path: Path) -> None:
    """The docs' overlay without its ``scale:`` used to rewrite results/vernade2017/fig2/: now
    every output of the run is under its variation's folder, and the workflow says where."""
    work = copy_workflow(tmp_path)
    (work / "my.yaml").write_text(yaml.safe_dump(VARIATION))
    scale = cfg.merged([work / "config" / "config.yaml", work / "my.yaml"])["scale"]
    run = _snakemake(work, "-p", "vernade2017", "--configfile", "my.yaml")
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"outputs are under {scale}/" in run.stderr
    written = re.findall(r"--out (\S+)", run.stdout)
    assert written and all(path.startswith(f"{scale}/") for path in written), written


# 8. Provenance records each config file's content --------------------------------------------


def test_provenance_records_each_config_files_sha256(tmp_path: Path) -> None:
    overlay = tmp_path / "untracked.yaml"
    overlay.write_text("seed: 7\n")
    paths = [str(CONFIG), str(SMOKE), str(overlay)]
    record = provenance.build(
        paper="vernade2017",
        figure="fig2",
        config=SMOKE_CONFIG,
        made_from=cfg.sources(paths),
        git={"git_commit": "unknown", "git_dirty": False},
        replications={},
        shards=[],
        aggregation_s=0.0,
        created=datetime.now(timezone.utc),
        hostname="probe",
    )
    assert record["config"]["file_sha256"] == [
        hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths
    ]


# 9. simulate writes only to a regular file -----------------------------------------------------


def _simulate(out: Path, events: Path | None = None) -> list[str]:
    return [
        "simulate", "--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017",
        "--figure", "fig1", "--setting", "thetaH", "--algorithm", "d-ucb", "--reps", "0-1",
        "--out", str(out), *(["--events", str(events)] if events else []),
    ]  # fmt: skip


@pytest.mark.parametrize("target", ["/dev/full", "directory"])
@pytest.mark.probe("files and arguments")
def test_simulate_refuses_an_output_that_is_not_a_file(tmp_path: Path, capsys, target: str):
    out = Path(target) if target.startswith("/") else tmp_path / target
    if target == "directory":
        out.mkdir()
    elif not out.exists():
        pytest.skip(f"{out} does not exist here")
    before = out.lstat()
    start = time.perf_counter()
    assert main(_simulate(out)) == 2
    err = capsys.readouterr().err
    assert f"{out}: exists and is not a regular file" in err and "Traceback" not in err, err
    assert stat.S_IFMT(out.lstat().st_mode) == stat.S_IFMT(before.st_mode)
    assert time.perf_counter() - start < 30  # refused before the job, not after it


@pytest.mark.probe("files and arguments")
def test_simulate_refuses_events_at_its_output(tmp_path: Path, capsys) -> None:
    out = tmp_path / "shard.parquet"
    assert main(_simulate(out, events=tmp_path / "." / "shard.parquet")) == 2
    err = capsys.readouterr().err
    assert "--events" in err and "is the --out file" in err, err
    assert not out.exists()


def test_validate_says_where_the_outputs_go(tmp_path: Path, capsys) -> None:
    overlay = tmp_path / "named.yaml"
    overlay.write_text("scale: pareto\n")
    assert main(["validate", "--config", str(CONFIG), str(overlay)]) == 0
    assert "valid; scale pareto, outputs in pareto/" in capsys.readouterr().out


def test_the_caps_are_stated_where_the_model_is() -> None:
    """The caps are the resource model's (resources.py), and docs/auditing.md states them."""
    text = (Path(__file__).parents[1] / "docs" / "auditing.md").read_text()
    assert f"{resources.MAX_FIGURE_CPU_HOURS:,} CPU hours" in text
    assert f"{resources.MAX_JOBS:,}" in text and f"{yamlio.MAX_VALUES:,} values" in text
