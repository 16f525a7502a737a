"""The reliability probes, kept as tests: bad input is refused with a named error before any job
runs (by ``delayed-bandits validate`` and by the workflow, with the same message), a result file
whose content changed is found when it is read or by ``delayed-bandits verify``, no path reaches
a shell unquoted, and a user's arena entrant is checked. docs/auditing.md keeps the tally."""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import BIN, CONFIG, SMOKE, arena_draw, copy_workflow, plugin, smoke_config
from delayed_bandits import config as cfg
from delayed_bandits import delays, grid, provenance, tables
from delayed_bandits.arena.entrants import from_policy
from delayed_bandits.cli import main
from delayed_bandits.errors import ConfigError
from delayed_bandits.references import checked_arm
from delayed_bandits.resources import BYTES_PER_ROUND, physical_memory_mb

BAD_NUMBERS = {".nan": math.nan, ".inf": math.inf, "-.inf": -math.inf}
FINITE = "is not a finite number"


def _validate(capsys, *overlays: Path) -> tuple[int, str]:
    code = main(["validate", "--config", str(CONFIG), str(SMOKE), *map(str, overlays)])
    return code, capsys.readouterr().err


def _overlay(tmp_path: Path, value: Any, name: str = "probe.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(value) if not isinstance(value, str) else value)
    return path


# 1. Every number finite, one rule for the whole schema -----------------------------------------


def _resolve(ref: str, doc: str, docs: dict[str, dict]) -> tuple[dict, str]:
    target, _, pointer = ref.partition("#")
    name = target or doc
    node = docs[name]
    for part in [p for p in pointer.split("/") if p]:
        node = node[part]
    return node, name


def numeric_keys(
    node: dict, path: tuple[str, ...], doc: str, docs: dict[str, dict]
) -> Iterator[tuple[str, ...]]:
    """Every path of the schema whose value is a number: ``*`` for any key of a mapping (a paper's
    figure, a setting), ``[]`` for an item of a list."""
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        target, name = _resolve(node["$ref"], doc, docs)
        yield from numeric_keys(target, path, name, docs)
    types = node.get("type", [])
    if {"number", "integer"} & set([types] if isinstance(types, str) else types):
        yield path
    for sub in node.get("allOf", []):
        yield from numeric_keys(sub, path, doc, docs)
    for key, sub in node.get("properties", {}).items():
        yield from numeric_keys(sub, (*path, key), doc, docs)
    for sub in node.get("patternProperties", {}).values():
        yield from numeric_keys(sub, (*path, "*"), doc, docs)
    if isinstance(node.get("additionalProperties"), dict):
        yield from numeric_keys(node["additionalProperties"], (*path, "*"), doc, docs)
    if isinstance(node.get("items"), dict):
        yield from numeric_keys(node["items"], (*path, "[]"), doc, docs)


def _schema_numeric_keys() -> list[tuple[str, ...]]:
    docs = cfg.schemas()
    root = docs["config.schema.yaml"]
    papers = root["properties"]["papers"]["properties"]
    found = [p for p in numeric_keys({**root, "properties": {}}, (), "config.schema.yaml", docs)]
    found += [
        ("papers", paper, *p)
        for paper, section in papers.items()
        for p in numeric_keys(section, (), "config.schema.yaml", docs)
    ]
    found += [k for k in numeric_keys(root, (), "config.schema.yaml", docs) if k[:1] != ("papers",)]
    return sorted(set(found))


SMOKE_CONFIG = smoke_config()
# The delay laws' parameters (delays.py checks them, per kind): probed on the arena's first regime.
DELAY_PARAMETERS = [
    ("uniform", "low"),
    ("uniform", "high"),
    ("geometric", "mean"),
    ("exponential", "mean"),
    ("exponential", "bound"),
    ("poisson", "rate"),
    ("halfnormal", "sigma"),
    ("pareto", "alpha"),
    ("scaled_pareto", "alpha"),
    ("scaled_pareto", "c"),
    ("empirical", "probs"),
    ("empirical", "values"),
    ("empirical", "scale"),
]


def _place(path: tuple[str, ...], value: float) -> tuple[dict, str]:
    """An overlay that sets ``path`` of the schema to ``value`` where the smoke config has such a
    key (the first figure, setting, list item, ...), and the config key it names."""
    overlay: dict = {}
    node: Any = SMOKE_CONFIG
    target: Any = overlay
    names: list[str] = []
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if part == "[]":
            names.append("0")
            if last:
                target.append(value)
            else:  # an item that is itself a list (a grid axis's values, one per key) or a mapping
                target.append([] if path[i + 1] == "[]" else {})
                target, node = target[0], (node or [{}])[0]
            continue
        key = part
        if part == "*":
            key = next(iter(node), "probe") if isinstance(node, dict) and node else "probe"
        names.append(key)
        child = node.get(key) if isinstance(node, dict) else None
        if last:
            target[key] = value
        elif path[i + 1] == "[]":
            target[key] = []
            target, node = target[key], child
        else:
            target[key] = {}
            target, node = target[key], child
    return overlay, ".".join(names)


def _numeric_probes() -> list[tuple[dict, str]]:
    probes = [_place(path, math.nan) for path in _schema_numeric_keys()]
    regime = next(iter(SMOKE_CONFIG["papers"]["arena"]["regret"]["settings"]))
    where = f"papers.arena.regret.settings.{regime}.delay"
    for kind, key in DELAY_PARAMETERS:
        value: Any = math.nan
        if kind == "empirical" and key in ("probs", "values"):
            value, name = [0.0, math.nan, 1.0], f"{where}.{key}.1"
        else:
            name = f"{where}.{key}"
        overlay = {"papers": {"arena": {"regret": {"settings": {regime: {"delay": {}}}}}}}
        overlay["papers"]["arena"]["regret"]["settings"][regime]["delay"] = {
            "kind": kind,
            key: value,
        }
        probes.append((overlay, name))
    return probes


NUMERIC_PROBES = _numeric_probes()


def _with(overlay: Any, value: float) -> Any:
    """``overlay`` with its NaN replaced by ``value``."""
    if isinstance(overlay, dict):
        return {k: _with(v, value) for k, v in overlay.items()}
    if isinstance(overlay, list):
        return [_with(v, value) for v in overlay]
    return value if isinstance(overlay, float) and math.isnan(overlay) else overlay


def test_the_walk_finds_every_kind_of_numeric_key() -> None:
    names = {name for _, name in NUMERIC_PROBES}
    for key in ("seed", "shard_size", "simulation_time_limit"):
        assert key in names, sorted(names)
    arena = next(iter(SMOKE_CONFIG["papers"]["arena"]["regret"]["settings"]))
    for paper, tail in [
        ("vernade2017", "horizon"),
        ("vernade2017", "theta.0"),
        ("vernade2017", "epsilon"),
        ("thune2019", "losses.gap"),
        ("vernade2020", "variants.otflinucb-paper.delta"),
        ("arena", f"settings.{arena}.alpha_tilde"),
        ("arena", f"settings.{arena}.delay.alpha"),
        ("arena", "grid.0.values.0"),
    ]:
        assert any(n.startswith(f"papers.{paper}.") and n.endswith(tail) for n in names), tail
    assert len(NUMERIC_PROBES) > 80


@pytest.mark.probe("config values")
@pytest.mark.parametrize("text", list(BAD_NUMBERS))
def test_every_numeric_key_refuses_nan_and_infinities(
    tmp_path: Path, capsys, probe, text: str
) -> None:
    refused = []
    for overlay, name in NUMERIC_PROBES:
        path = _overlay(tmp_path, _with(overlay, BAD_NUMBERS[text]))
        assert text in path.read_text()  # YAML's own spelling reaches the parser
        code, err = _validate(capsys, path)
        probe.cli(code, err)
        assert code == 2 and f"config key '{name}'" in err and FINITE in err, (name, err)
        refused.append(name)
    assert len(refused) == len(NUMERIC_PROBES)


@pytest.mark.probe("config values")
@pytest.mark.parametrize("key", ["mean", "alpha", "rate", "sigma", "scale"])
def test_a_delay_parameter_must_be_a_finite_number(key: str) -> None:
    kind = {"mean": "geometric", "alpha": "pareto", "rate": "poisson", "sigma": "halfnormal"}
    spec = {"kind": kind.get(key, "empirical"), key: math.nan}
    if key == "scale":
        spec.update(probs=[0, 1], values=[0, 10])
    for bad in BAD_NUMBERS.values():
        with pytest.raises(ConfigError, match=f"delay.{key}: expected a finite number"):
            delays.from_spec({**spec, key: bad})


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "geometric", "mean": 1e300},
        {"kind": "exponential", "mean": 1e17},
        {"kind": "poisson", "rate": 1e300},
        {"kind": "halfnormal", "sigma": 1e300},
        {"kind": "uniform", "low": 0, "high": 10**30},
        {"kind": "exponential", "mean": 5, "bound": 2**63},
    ],
    ids=lambda spec: f"{spec['kind']}-{list(spec)[-1]}",
)
@pytest.mark.probe("config values")
def test_a_delay_law_beyond_what_float64_and_int64_hold_is_refused(spec: dict) -> None:
    """Finite, but too wide: a geometric mean of 1e300 made tau 0 everywhere (every index tied,
    arm 0 played), and draws of 1e300 became negative delays."""
    with pytest.raises(ConfigError, match=r"must be at most|expected an integer in 0\.\.2\*\*62"):
        delays.from_spec(spec)


def test_every_draw_at_the_widest_laws_allowed_is_a_delay() -> None:
    rng = np.random.default_rng(0)
    widest = delays.MAX_SCALE
    for spec in (
        {"kind": "geometric", "mean": widest},
        {"kind": "exponential", "mean": widest},
        {"kind": "halfnormal", "sigma": widest},
        {"kind": "poisson", "rate": widest},
        {"kind": "pareto", "alpha": 1e-300},
        {"kind": "empirical", "probs": [0, 1], "values": [0, 1e300]},
        {"kind": "uniform", "low": 0, "high": delays.MAX_DELAY},
    ):
        draws = delays.from_spec(spec).sample(rng, 1000)
        assert draws.dtype == np.int64 and (draws >= 0).all() and (draws <= delays.MAX_DELAY).all()


@pytest.mark.probe("config values, through the workflow")
def test_the_workflow_refuses_a_bad_number_before_any_job_runs(tmp_path: Path, capsys) -> None:
    """One probe per bad value, each on another kind of key (a figure's number, a delay's
    parameter, an item of a list): the workflow validates with the same function as ``validate``,
    which the walk above holds to every key."""
    work = _work(tmp_path)
    picks = {".nan": "delay.alpha", ".inf": "epsilon", "-.inf": "theta.0"}
    for text, tail in picks.items():
        overlay = next(o for o, n in NUMERIC_PROBES if n.endswith(tail))
        probe = _overlay(work, _with(overlay, BAD_NUMBERS[text]))
        expected = _expected(capsys, work, probe)
        run = _snakemake(work, "probe.yaml")
        assert run.returncode != 0 and expected in run.stderr, run.stderr[-2000:]
        assert not (work / "smoke").exists()  # no job ran, nothing was written


def _expected(capsys, work: Path, probe: Path) -> str:
    """``validate``'s message for an overlay, its path as the workflow gives it (relative)."""
    err = _validate(capsys, probe)[1].removeprefix("delayed-bandits validate: error: ")
    return err.replace(f"'{probe}'", f"'{probe.relative_to(work)}'").strip()


def _work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return copy_workflow(tmp_path / "work")


def _snakemake(work: Path, *overlays: str, target: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}")
    # the target before --configfile, which takes every value after it
    args = [f"{BIN}/snakemake", "--cores", "1", *([target] if target else [])]
    return subprocess.run(
        args + ["--configfile", "config/smoke.yaml", *overlays],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


# 5, 6. Named errors instead of tracebacks; nothing accepted silently ------------------------------


def _named(tmp_path: Path) -> dict[str, tuple[Any, list[str]]]:
    """Bad configs (an overlay on the smoke config, as text or as data) and what the error must
    say."""
    memory_bound = (physical_memory_mb() + 1000) * 1_000_000 // BYTES_PER_ROUND
    sample = tmp_path / "long.txt"
    sample.write_text("12\n" + "7" * 5000 + "\n")
    negative = tmp_path / "negative.txt"
    negative.write_text("-" + "1" * 5000 + "\n")
    thune = next(iter(SMOKE_CONFIG["papers"]["thune2019"]))
    thune_fig = SMOKE_CONFIG["papers"]["thune2019"][thune]
    thune_setting = next(iter(thune_fig["settings"]))
    arena_setting = next(iter(SMOKE_CONFIG["papers"]["arena"]["regret"]["settings"]))
    return {
        "horizon-1e21": (
            {"papers": {"vernade2017": {"fig2": {"horizon": 10**21}}}},
            ["papers.vernade2017.fig2.horizon", "greater than the maximum of 4611686018427387903"],
        ),
        "horizon-above-memory": (
            {"papers": {"vernade2017": {"fig2": {"horizon": memory_bound}}}},
            ["papers.vernade2017.fig2.horizon", "more than this machine's"],
        ),
        "sample-line-5000-digits": (
            {
                "papers": {
                    "arena": {
                        "regret": {
                            "settings": {
                                arena_setting: {"delay": {"kind": "sample", "path": str(sample)}}
                            }
                        }
                    }
                }
            },
            [f"{sample}' line 2", "exceeds the largest delay allowed", "(5,000 characters)"],
        ),
        "sample-line-negative-5000-digits": (
            {
                "papers": {
                    "arena": {
                        "regret": {
                            "settings": {
                                arena_setting: {"delay": {"kind": "sample", "path": str(negative)}}
                            }
                        }
                    }
                }
            },
            [f"{negative}' line 1", "is negative"],
        ),
        "duplicate-key": (
            "papers:\n  vernade2017:\n    fig2:\n      horizon: 100\n      horizon: 200\n",
            ["key 'horizon' is given twice, on line 4 and line 5"],
        ),
        "duplicate-top-key": ("seed: 1\nseed: 2\n", ["key 'seed' is given twice, on line 1"]),
        "checkpoints-above-horizon": (
            {"papers": {"vernade2017": {"fig2": {"checkpoints": 100_000}}}},
            ["papers.vernade2017.fig2.checkpoints", "allowed: 1 to"],
        ),
        "window-0-vernade2017": (
            {"papers": {"vernade2017": {"fig2": {"settings": {"thetaL": {"window": 0}}}}}},
            ["papers.vernade2017.fig2.settings.thetaL.window", "minimum of 1"],
        ),
        "window-0-arena": (
            {"papers": {"arena": {"regret": {"settings": {arena_setting: {"window": 0}}}}}},
            [f"papers.arena.regret.settings.{arena_setting}.window", "minimum of 1"],
        ),
        "thune-setting-horizon-above-figure": (
            {
                "papers": {
                    "thune2019": {
                        thune: {"settings": {thune_setting: {"horizon": thune_fig["horizon"] + 1}}}
                    }
                }
            },
            [
                f"papers.thune2019.{thune}.settings.{thune_setting}.horizon",
                "above the figure's horizon",
            ],
        ),
        "missing-overlay": (None, ["does not exist"]),
        "empty-overlay": ("", ["must hold a mapping"]),
        "malformed-overlay": ("papers: {vernade2017: [\n", ["is not valid YAML", "line 2"]),
    }


@pytest.mark.probe("config values")
def test_bad_configs_get_a_named_error(tmp_path: Path, capsys, probe) -> None:
    for name, (content, parts) in _named(tmp_path).items():
        path = tmp_path / f"{name}.yaml"
        if content is not None:
            _overlay(tmp_path, content, path.name)
        code, err = _validate(capsys, path)
        probe.cli(code, err)
        assert code == 2, (name, err)
        assert "Traceback" not in err
        for part in parts:
            assert part in err, (name, part, err)
        if name.endswith("-overlay") or name.startswith("duplicate"):
            assert f"config file '{path}'" in err, (name, err)


@pytest.mark.probe("config values, through the workflow")
def test_the_workflow_gives_validates_message(tmp_path: Path, capsys) -> None:
    """Under Snakemake, the config problems that the workflow's own code reads (everything but
    a missing, empty or unparsable --configfile, which Snakemake reads first: docs/auditing.md)
    fail with ``validate``'s message, before any job runs."""
    work = _work(tmp_path)
    probes = _named(work)
    for name in ("duplicate-key", "sample-line-5000-digits", "horizon-1e21"):
        probe = _overlay(work, probes[name][0], f"{name}.yaml")
        expected = _expected(capsys, work, probe)
        run = _snakemake(work, probe.name)
        assert run.returncode != 0 and expected in run.stderr, (name, run.stderr[-2000:])
        assert not (work / "smoke").exists()


@pytest.mark.probe("config values, through the workflow")
def test_snakemake_reads_a_bad_overlay_first(tmp_path: Path) -> None:
    """A missing, empty or unparsable --configfile is read by Snakemake before the workflow's code
    runs, so Snakemake's own message reports it (docs/auditing.md), still before any job runs."""
    work = _work(tmp_path)
    (work / "empty.yaml").write_text("")
    (work / "malformed.yaml").write_text("papers: {vernade2017: [\n")
    for name, says in [
        ("missing.yaml", "missing.yaml"),
        ("empty.yaml", "Config file must be given as JSON or YAML"),
        ("malformed.yaml", "Config file is not valid JSON or YAML"),
    ]:
        run = _snakemake(work, name)
        assert run.returncode != 0 and says in run.stderr, (name, run.stderr[-2000:])
        assert not (work / "smoke").exists()


# 2. A result file whose content changed is found ---------------------------------------------


def _shard(tmp_path: Path) -> Path:
    out = tmp_path / "rep0-2.parquet"
    args = ["simulate", "--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017"]
    args += ["--figure", "fig2", "--setting", "thetaL", "--algorithm", "d-ucb", "d-klucb"]
    assert main([*args, "--reps", "0-2", "--out", str(out)]) == 0
    return out


def test_every_flipped_bit_of_a_shard_is_found_or_harmless(tmp_path: Path) -> None:
    """One bit flipped in every seventh byte of a shard (about 600 bytes, spread over the whole
    file: pages, footer, metadata), in turn: each read either refuses the file (naming it) or
    gives exactly the original numbers (a flip in metadata nobody reads); no flip changes a
    number without a word. Read as every reader reads it, against the binding of the config that
    made it, so a flip in the recorded binding is refused too."""
    shard = _shard(tmp_path)
    curves = [("thetaL", "d-ucb"), ("thetaL", "d-klucb")]
    made_by = provenance.binding(cfg.load([CONFIG, SMOKE]), "vernade2017", "fig2", curves)
    original = tables.read_shard(shard, made_by)
    data = shard.read_bytes()
    bad = tmp_path / "flipped" / shard.name
    bad.parent.mkdir()
    refused = harmless = 0
    flipped = range(0, len(data), 7)
    for i in flipped:
        bad.write_bytes(data[:i] + bytes([data[i] ^ (1 << (i % 8))]) + data[i + 1 :])
        try:
            found = tables.read_shard(bad, made_by)
        except tables.CorruptTableError as exc:
            assert str(bad) in str(exc)
            refused += 1
            continue
        pd.testing.assert_frame_equal(found, original)
        harmless += 1
    assert refused + harmless == len(flipped) and refused > len(flipped) // 2
    print(f"{len(flipped)} bits flipped: {refused} refused, {harmless} harmless, 0 numbers changed")


@pytest.mark.probe("faults")
def test_a_shard_rewritten_without_its_checksum_is_refused(tmp_path: Path, capsys) -> None:
    shard = _shard(tmp_path)
    frame = pd.read_parquet(shard)
    frame.loc[0, "regret"] += 1.0
    frame.to_parquet(shard, index=False)  # an edit by hand: no checksum
    with pytest.raises(tables.CorruptTableError, match="carries no content checksum"):
        tables.read_shard(shard, None)


def _run_dir(tmp_path: Path) -> Path:
    """A run of one figure's shard and summary, laid out as the workflow lays it out (at the smoke
    scale, in smoke/), and a figure: a run that lacks most of what its config makes."""
    run = tmp_path / "smoke"
    figure = run / "results" / "vernade2017" / "fig2"
    shard = _shard(figure)
    fig = ["--config", str(CONFIG), str(SMOKE), "--paper", "vernade2017", "--figure", "fig2"]
    assert main(["aggregate", *fig, "--out", str(figure / "summary.csv"), str(shard)]) == 0
    (run / "figures").mkdir()
    (run / "figures" / "a.png").write_bytes(b"\x89PNG not really")
    return run


def test_verify_checks_every_file_of_a_run(tmp_path: Path, capsys) -> None:
    run = _run_dir(tmp_path)
    assert main(["verify", str(run)]) == 1  # a partial run: what its config makes is missing
    out = capsys.readouterr().out
    assert "1 parquet tables" in out and "1 CSV tables" in out
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert failed and all(line.endswith("missing (the run's config makes it)") for line in failed)
    assert "FAILED results/vernade2017/fig2/rep0-2.parquet" not in out
    assert main(["verify", "--record", str(run)]) == 1
    assert "4 files against checksums.sha256" in capsys.readouterr().out
    summary = run / "results/vernade2017/fig2/summary.csv"
    summary.write_bytes(summary.read_bytes().replace(b"1", b"2", 1))
    (run / "figures" / "a.png").unlink()
    (run / "figures" / "b.png").write_bytes(b"new")
    shard = run / "results/vernade2017/fig2/rep0-2.parquet"
    data = bytearray(shard.read_bytes())
    data[len(data) // 3] ^= 4
    shard.write_bytes(bytes(data))
    assert main(["verify", str(run)]) == 1
    out = capsys.readouterr().out
    for line in (
        "results/vernade2017/fig2/summary.csv: its sha256 is not the one summary.provenance.json",
        "results/vernade2017/fig2/claims.json: missing (the run's config makes it)",
        "results/vernade2017/fig2/rep0-2.parquet: ",
        "figures/a.png: missing",
        "figures/b.png: not listed",
    ):
        assert line in out, out


@pytest.mark.probe("files and arguments")
def test_verify_refuses_a_folder_that_is_no_run(tmp_path: Path, capsys) -> None:
    assert main(["verify", str(tmp_path)]) == 2
    assert "no results, figures, reports directory" in capsys.readouterr().err


@pytest.mark.slow
def test_the_smoke_run_verifies(smoke_run: Path, capsys) -> None:
    assert main(["verify", str(smoke_run / "smoke")]) == 0
    assert " 0 problems" in capsys.readouterr().out


# 3. No path reaches a shell unquoted ---------------------------------------------------------


@pytest.mark.slow
def test_a_config_path_with_a_space_and_a_command_substitution(tmp_path: Path) -> None:
    work = _work(tmp_path)
    name = "config/my overlay $(touch INJECTED).yaml"
    (work / name).write_text("seed: 20170101\n")  # the smoke seed: the same numbers
    run = _snakemake(work, name, target="smoke/results/vernade2017/fig2/summary.csv")
    assert run.returncode == 0, run.stderr[-3000:]
    assert not list(work.rglob("INJECTED"))  # the jobs run in work: the shell would touch it there
    assert (work / "smoke/results/vernade2017/fig2/summary.csv").is_file()


def test_the_rules_quote_every_field_of_their_shell_commands(root: Path) -> None:
    import re

    for rules in (root / "workflow" / "rules").glob("*.smk"):
        fields = re.findall(r"\{[a-z_.]+(?::[a-z]+)?\}", _shell_text(rules.read_text()))
        unquoted = [f for f in fields if not f.endswith(":q}")]
        assert not unquoted, (rules.name, unquoted)


def _shell_text(text: str) -> str:
    """The string literals of the rules' ``shell:`` sections."""
    out, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == "shell:":
            inside = True
        elif inside and stripped.startswith('"'):
            out.append(stripped)
        else:
            inside = False
    return "\n".join(out)


# 4. A user's entrant is checked --------------------------------------------------------------


@pytest.mark.probe("entrants")
@pytest.mark.parametrize("arm", [-1, 4 + 2, 2.0, None, True, np.float64(1.0), "1"])
def test_an_entrants_arm_is_checked(arm: Any) -> None:

    class Returns:
        def __init__(self, problem, rng):
            pass

        def choose(self, t):
            return 0 if t < 7 else arm

        def played(self, t, arm):
            pass

        def observe(self, s, arm, delay):
            pass

    st, draw = arena_draw(3, 100)
    entrant = from_policy("mine", "Mine", "x", Returns)
    with pytest.raises(ConfigError) as info:
        entrant.reference(st, draw, np.array([50, 100]), 0)
    assert f"entrant 'mine' chose arm {arm!r}" in str(info.value)
    assert "at round 7" in str(info.value) and "integer in 0..3" in str(info.value)


def test_every_arm_is_accepted_and_kept() -> None:
    assert [checked_arm(a, 1, 3, "x") for a in (0, np.int64(2), np.uint8(1))] == [0, 2, 1]


ENTRANT = """
    import time

    from delayed_bandits.arena.entrants import from_policy


    class Stuck:
        def __init__(self, problem, rng):
            pass

        def choose(self, t):
            if {stuck}:
                while True:
                    time.sleep(0.01)
            return -1

        def played(self, t, arm):
            pass

        def observe(self, s, arm, delay):
            pass


    ENTRANTS = [from_policy("stuck", "Stuck", "never returns, or returns -1", Stuck)]
"""


def _simulate_entrant(tmp_path: Path, env: dict[str, str], limit: int) -> tuple[int, str, Path]:
    overlay = {
        "simulation_time_limit": limit,
        "papers": {"arena": {"regret": {"algorithms": ["stuck", "uniform"]}}},
    }
    probe = _overlay(tmp_path, overlay)
    setting = next(iter(grid.settings(smoke_config()["papers"]["arena"]["regret"])))
    out = tmp_path / "out" / "rep0-0.parquet"
    args = [f"{BIN}/delayed-bandits", "simulate", "--config", str(CONFIG), str(SMOKE), str(probe)]
    args += ["--paper", "arena", "--figure", "regret", "--setting", setting]
    args += ["--algorithm", "stuck", "--reps", "0-0", "--out", str(out)]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    return run.returncode, run.stderr, out


@pytest.mark.probe("entrants")
def test_an_entrant_returning_minus_one_fails_its_job(tmp_path: Path) -> None:
    env = plugin(
        tmp_path / "plugins" / "stuck_entrant", {"__init__.py": ENTRANT.format(stuck=False)}
    )
    code, err, out = _simulate_entrant(tmp_path, env, 60)
    assert code == 2 and "entrant 'stuck' chose arm -1 (int) at round 1" in err, err
    assert "Traceback" not in err and not out.exists()


@pytest.mark.probe("entrants")
def test_a_policy_that_never_returns_meets_the_time_limit(tmp_path: Path) -> None:
    env = plugin(
        tmp_path / "plugins" / "stuck_entrant", {"__init__.py": ENTRANT.format(stuck=True)}
    )
    code, err, out = _simulate_entrant(tmp_path, env, 2)
    assert code == 2, err
    assert "job shard arena/regret/" in err and "ran longer than its time limit of 2 s" in err
    assert "simulation_time_limit" in err and not out.exists()


@pytest.mark.probe("entrants")
def test_a_plugin_that_fails_to_import_is_named(tmp_path: Path) -> None:
    env = plugin(
        tmp_path / "plugins" / "broken_plugin", {"__init__.py": "raise ImportError('x')\n"}
    )
    for value in ("broken_plugin", "no_such_package"):
        run = subprocess.run(
            [f"{BIN}/delayed-bandits", "validate", "--config", str(CONFIG)],
            env={**env, "DELAYED_BANDITS_PAPERS": value},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 2, run.stderr
        assert f"$DELAYED_BANDITS_PAPERS names the package '{value}', which failed" in run.stderr
        assert "Traceback" not in run.stderr


# 7. Rendered notebooks: compared but for what docs/auditing.md says varies ---------------------


def test_reports_are_compared_but_for_what_varies(tmp_path: Path) -> None:
    from compare_runs import differences

    page = (
        "<pre>Reading results from {run}/results\npackage my_policies in /tmp/my-arena-{tmp}\n"
        "4 settings x 5 algorithms x 20 replications of T = 3,000 in {time} s\nregret {regret}</pre>"
    )
    runs = {}
    for name, tmp, time, regret in (("a", "x1_9q", "18.3", "12.5"), ("b", "zz0ab", "9.0", "12.5")):
        run = tmp_path / name
        (run / "reports").mkdir(parents=True)
        text = page.format(run=run.resolve(), tmp=tmp, time=time, regret=regret)
        (run / "reports" / "arena-your-algorithm.html").write_text(text)
        runs[name] = run
    assert differences(runs["a"], runs["b"]) == []
    changed = runs["b"] / "reports" / "arena-your-algorithm.html"
    changed.write_text(changed.read_text().replace("regret 12.5", "regret 12.6"))
    assert differences(runs["a"], runs["b"]) == ["differs: reports/arena-your-algorithm.html"]


def test_a_run_copied_to_another_folder_is_the_same_run(tmp_path: Path) -> None:
    """A byte-identical copy of a smoke run elsewhere: its pages still name the folder the run
    was made in, which the comparison reads from them (``compare_runs.made_in``), not the folder
    it is given."""
    import shutil

    from compare_runs import differences

    made = tmp_path / "made" / "smoke"
    (made / "reports").mkdir(parents=True)
    (made / "results").mkdir()
    (made / "results" / "claims.md").write_text("# claims\n")
    checkout = made.parent.resolve()
    (made / "reports" / "vernade2020.html").write_text(
        f"<pre>Settings from {checkout}/config/config.yaml, {checkout}/config/smoke.yaml\n"
        f"Reading results from {checkout}/smoke/results</pre>"
    )
    (made / "reports" / "arena.html").write_text(
        f"<pre>Reading results from {made.resolve()}/results</pre>"
    )
    copy = tmp_path / "elsewhere" / "copy" / "smoke"
    shutil.copytree(made, copy)
    assert differences(made, copy) == []
