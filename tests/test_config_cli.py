"""Tests of the config checks (delayed_bandits.config), the ``delayed-bandits`` CLI's handling of
bad input, and the Snakemake workflow's refusal of a bad config before any job runs.

Every output goes to pytest's ``tmp_path``; the workflow tests run in a copy of the workflow so
nothing is written into the repository (a long run may be using ``results/``)."""

from __future__ import annotations

import argparse
import copy
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest
import yaml

from conftest import CONFIG, FULL_FILES, SMOKE, SMOKE_FILES, smoke_config
from delayed_bandits import algorithms, captions, grid, kinds, layout
from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits.cli import _parser, main
from delayed_bandits.delays import KINDS
from delayed_bandits.errors import ConfigError

REPO = Path(__file__).resolve().parents[1]
_VENV_BIN = REPO / ".venv" / "bin"
BIN = _VENV_BIN if (_VENV_BIN / "delayed-bandits").exists() else Path(sys.executable).parent
CLI = str(BIN / "delayed-bandits")
SNAKEMAKE = str(BIN / "snakemake")

PAPER = "vernade2017"
ALGORITHM_IDS = list(algorithms.registry(PAPER))


def _yaml(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def _smoke() -> dict[str, Any]:
    return smoke_config()


def _fig(config: dict[str, Any], figure: str = "fig1") -> dict[str, Any]:
    return config["papers"][PAPER][figure]


def _setting(config: dict[str, Any], figure: str = "fig1", setting: str = "thetaH") -> dict:
    return _fig(config, figure)["settings"][setting]


def _write(path: Path, config: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    return path


# --------------------------------------------------------------------------------------------
# 1. The shipped configs
# --------------------------------------------------------------------------------------------


def test_shipped_config_validates() -> None:
    raw = _yaml(CONFIG)
    cfg.validate(raw)  # must not raise
    # loading changes nothing but the placeholders of the figures' texts (captions.filled)
    worded = copy.deepcopy(raw)
    for figures in worded["papers"].values():
        for fig in figures.values():
            for key in ("title", "caption"):
                if key in fig:
                    fig[key] = captions.filled(fig, fig[key], key, raw["scale"])
    assert worded != raw and cfg.load(CONFIG) == worded


def test_smoke_is_an_overlay_of_what_differs() -> None:
    full, overlay = _yaml(CONFIG), _yaml(SMOKE)

    def names_only_known_keys(layer: dict, base: dict, where: str) -> None:
        for key, value in layer.items():
            # shard sizes are how a run is cut into jobs: the smoke run sets small ones
            assert key in base or key == "shard_size", f"{where}.{key} is not in config.yaml"
            assert value != base.get(key), f"{where}.{key} repeats config.yaml"
            if isinstance(value, dict) and isinstance(base.get(key), dict):
                names_only_known_keys(value, base[key], f"{where}.{key}")

    names_only_known_keys(overlay, full, "smoke")
    smoke = cfg.load(SMOKE_FILES)
    assert set(smoke) == set(full)
    assert list(smoke["papers"]) == list(full["papers"])
    for paper, figures in full["papers"].items():
        assert list(smoke["papers"][paper]) == list(figures), paper
        for figure, fig in figures.items():
            small = smoke["papers"][paper][figure]
            where = f"{paper}.{figure}"
            # shard sizes are how a run is cut into jobs, not the experiment: the paper scale
            # leaves them to `auto`, the smoke run sets small ones so that every figure splits
            assert set(small) - {"shard_size"} == set(fig) - {"shard_size"}, where
            assert small.get("algorithms") == fig.get("algorithms"), where
            assert list(small["settings"]) == list(fig["settings"]), where
            for setting, problem in fig["settings"].items():
                for key in ("theta", "mu"):  # the arms' means, whatever the paper calls them
                    assert small["settings"][setting].get(key) == problem.get(key), (where, setting)
                assert small["settings"][setting]["delay"]["kind"] == problem["delay"]["kind"]
                assert set(small["settings"][setting]) == set(problem), (where, setting)
            assert small["horizon"] < fig["horizon"], where
            if kinds.simulated(fig):
                assert small["replications"] < fig["replications"], where
                assert small["checkpoints"] <= small["horizon"], where


def test_smoke_shards_split_every_figure() -> None:
    smoke = _smoke()
    for fig in smoke["papers"][PAPER].values():
        # More than one shard per (setting, algorithm), so the smoke run exercises aggregation
        # (of the screen's replications, where a figure screens: its shards hold those alone).
        size = fig.get("shard_size", smoke["shard_size"])
        assert len(layout.shards(cv.first_stage(fig), size)) >= 2


# --------------------------------------------------------------------------------------------
# 2. Library rejection: ConfigError naming the key and what is allowed
# --------------------------------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]

REJECTED: dict[str, tuple[Mutation, list[str]]] = {
    "unknown-top-level-key": (
        lambda c: c.update(colour="red"),
        ["'colour'", "allowed keys: papers, scale, seed, shard_size"],
    ),
    "unknown-figure-key": (
        lambda c: _fig(c).update(horizn=10),
        [
            "papers.vernade2017.fig1",
            "'horizn'",
            "allowed keys:",
            "horizon",
            "replications",
            "algorithms",
            "settings",
            "checkpoints",
        ],
    ),
    "unknown-setting-key": (
        lambda c: _setting(c).update(mu=3),
        [
            "papers.vernade2017.fig1.settings.thetaH",
            "'mu'",
            "allowed keys:",
            "theta",
            "delay",
            "window",
            "epsilon",
            "gamma",
        ],
    ),
    "density-figure-with-algorithms": (
        lambda c: c["papers"]["vernade2020"]["fig2"].update(algorithms=["otflinucb"]),
        ["papers.vernade2020.fig2.algorithms", "runs no simulation", "remove algorithms"],
    ),
    "density-figure-without-a-quantile-table": (
        lambda c: c["papers"]["vernade2020"]["fig2"]["settings"]["heavy"].update(
            delay={"kind": "geometric", "mean": 100}
        ),
        ["papers.vernade2020.fig2", "quantile table of log10 delays"],
    ),
    "horizon-string": (
        lambda c: _fig(c).update(horizon="1500"),
        ["papers.vernade2017.fig1.horizon", "'1500'", "integer"],
    ),
    "horizon-zero": (
        lambda c: _fig(c).update(horizon=0),
        ["papers.vernade2017.fig1.horizon", "minimum of 1"],
    ),
    "horizon-negative": (
        lambda c: _fig(c, "fig2").update(horizon=-5),
        ["papers.vernade2017.fig2.horizon", "-5", "minimum of 1"],
    ),
    "window-negative": (
        lambda c: _setting(c, "fig1", "thetaL").update(window=-1),
        ["papers.vernade2017.fig1.settings.thetaL.window", "-1", "minimum of 1"],
    ),
    "theta-above-one": (
        lambda c: _setting(c).update(theta=[1.2, 0.4, 0.3]),
        ["papers.vernade2017.fig1.settings.thetaH.theta.0", "1.2", "maximum of 1"],
    ),
    "theta-below-zero": (
        lambda c: _setting(c).update(theta=[0.5, -0.1, 0.3]),
        ["papers.vernade2017.fig1.settings.thetaH.theta.1", "-0.1", "minimum of 0"],
    ),
    "algorithms-empty": (
        lambda c: _fig(c).update(algorithms=[]),
        ["papers.vernade2017.fig1.algorithms", "non-empty"],
    ),
    "algorithm-unknown": (
        lambda c: _fig(c).update(algorithms=["d-ucb", "thompson"]),
        ["papers.vernade2017.fig1.algorithms.1", "'thompson'", *ALGORITHM_IDS],
    ),
    "delay-kind-unknown": (
        lambda c: _setting(c).update(delay={"kind": "weibull", "mean": 50}),
        ["papers.vernade2017.fig1.settings.thetaH.delay.kind", "'weibull'", *KINDS],
    ),
    "figure-id-pattern": (
        lambda c: c["papers"][PAPER].update(figure1=c["papers"][PAPER].pop("fig1")),
        ["papers.vernade2017", "'figure1'", r"^(fig[0-9]+|app[A-Z])\Z"],
    ),
    "replications-missing": (
        lambda c: _fig(c, "fig3").pop("replications"),
        ["papers.vernade2017.fig3.replications", "required", "kind regret is simulated"],
    ),
    "shard-size-negative": (
        lambda c: c.update(shard_size=-1),
        ["shard_size", "-1", "minimum of 1"],
    ),
    "shard-size-zero": (
        lambda c: c.update(shard_size=0),
        ["shard_size", "minimum of 1"],
    ),
    "shard-size-word": (
        lambda c: c.update(shard_size="big"),
        ["shard_size", "'big'", r"^auto\\Z"],
    ),
    "seed-negative": (
        lambda c: c.update(seed=-1),
        ["'seed'", "-1", "minimum of 0"],
    ),
    "unknown-paper": (
        lambda c: c["papers"].update(pike2018={}),
        ["'papers'", "'pike2018'", "allowed keys:", "pikeburke2018", "vernade2017"],
    ),
    "delay-parameter-for-other-kind": (
        lambda c: _setting(c).update(delay={"kind": "geometric", "mean": 50, "rate": 2}),
        ["papers.vernade2017.fig1.settings.thetaH.delay", "'rate'", "'mean'"],
    ),
    "per-arm-delay-for-vernade": (
        lambda c: _setting(c).update(
            delay={"kind": "per_arm", "arms": [{"kind": "geometric", "mean": 5}] * 3}
        ),
        ["papers.vernade2017.fig1.settings.thetaH.delay", "one delay law"],
    ),
    "only-names-no-setting": (
        lambda c: c["papers"]["arena"]["regret"].update(only=["geometric100", "geometric10"]),
        ["papers.arena.regret.only", "'geometric10'", "allowed:", "geometric100_censored", "K3"],
    ),
    "grid-name-per-value": (
        lambda c: c["papers"]["arena"]["window"]["grid"][1].update(names=["m5"]),
        ["papers.arena.window.grid.1.names", "one distinct name per value", "2 values"],
    ),
    "grid-only-with-names-a-value": (
        lambda c: c["papers"]["arena"]["regret"]["grid"][0].update(only_with={"K5": ["large"]}),
        ["papers.arena.regret.grid.0.only_with.K5", "not one of the axis' names", "allowed: K3"],
    ),
    "grid-only-with-names-settings": (
        lambda c: c["papers"]["arena"]["regret"]["grid"][0].update(only_with={"K3": ["K3"]}),
        [
            "papers.arena.regret.grid.0.only_with.K3",
            "K3 name no listed setting and no other axis' value",
            "allowed: uniform,",
        ],
    ),
    "screen-runs-negative": (
        lambda c: c["papers"]["arena"]["regret"]["statistics"].update(screen_runs=-1),
        ["papers.arena.regret.statistics.screen_runs", "-1"],
    ),
    "screen-runs-not-an-integer": (
        lambda c: c["papers"]["arena"]["regret"]["statistics"].update(screen_runs=2.5),
        ["papers.arena.regret.statistics.screen_runs", "2.5"],
    ),
    "grid-keys-move-together": (
        lambda c: c["papers"]["arena"]["regret"]["grid"][1].update(values=[[0.4, 0.2], [0.02]]),
        ["papers.arena.regret.grid.1.values", "[0.02]", "a list of 2 numbers"],
    ),
}


@pytest.mark.probe("config values")
@pytest.mark.parametrize("name", list(REJECTED))
def test_validate_rejects_with_key_and_allowed_values(name: str) -> None:
    mutate, expected = REJECTED[name]
    config = _smoke()
    cfg.validate(config)  # the unmutated copy is fine, so the error below is the mutation's
    mutate(config)
    with pytest.raises(ConfigError) as info:
        cfg.validate(config)
    message = str(info.value)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


def test_only_runs_a_subset_with_the_full_figures_settings() -> None:
    fig = _smoke()["papers"]["arena"]["regret"]
    every = grid.settings(fig)
    low = grid.settings({**fig, "only": ["low_large", "uniform-K3-large"]})
    assert set(low) == {s for s in every if s.endswith("-low_large")} | {"uniform-K3-large"}
    assert all(low[s] == every[s] for s in low)  # the same settings, so the same seeds and numbers


def _full_arena(only: list[str] | None = None) -> dict[str, Any]:
    """The full run's regret figure at K = 2 and 10, each crossed with every gap (its K = 50,
    kept to one law by ``only_with``, is the next test's)."""
    fig = cfg.merged(list(FULL_FILES))["papers"]["arena"]["regret"]
    arms = fig["grid"][0]
    assert arms["names"] == ["K2", "K10", "K50"]
    fig["grid"] = [{"key": "n_arms", "values": [2, 10], "names": ["K2", "K10"]}, fig["grid"][1]]
    return fig if only is None else {**fig, "only": only}


def test_only_unites_within_an_axis_and_intersects_across_axes() -> None:
    every = grid.expand(_full_arena())
    kept = grid.points(_full_arena(["geometric100", "pareto1", "K10"]))
    # (geometric100 or pareto1) and K10: no K = 2 setting, whichever regime
    assert set(kept) == {
        p.id for p in every if p.listed in ("geometric100", "pareto1") and p.names[0] == "K10"
    }
    assert len(kept) == 2 * 4 and not any("-K2-" in s for s in kept)
    # two values of one axis unite
    assert set(grid.points(_full_arena(["K2", "K10"]))) == {p.id for p in every}
    low = grid.points(_full_arena(["low_small", "low_large"]))
    assert set(low) == {p.id for p in every if p.names[1] in ("low_small", "low_large")}
    # a listed setting and an axis value intersect
    assert set(grid.points(_full_arena(["geometric100", "low_large"]))) == {
        "geometric100-K2-low_large",
        "geometric100-K10-low_large",
    }


def test_only_with_keeps_a_value_to_some_settings_and_the_others_unchanged() -> None:
    """The full run's K = 50 (config/arena-full.yaml): an axis value crosses only the settings its
    ``only_with`` entries select, a listed setting and values of another axis, matched as
    ``only``'s are; every other setting keeps its id and config, so its seeds and numbers."""
    every = grid.settings(_full_arena())
    fig = _full_arena()
    fig["grid"] = [
        {**fig["grid"][0], "values": [2, 10, 50], "names": ["K2", "K10", "K50"]},
        fig["grid"][1],
    ]
    fig["grid"][0]["only_with"] = {"K50": ["geometric100_censored", "large", "low_large"]}
    kept = grid.settings(fig)
    assert set(kept) - set(every) == {
        "geometric100_censored-K50-large",
        "geometric100_censored-K50-low_large",
    }
    assert all(kept[s] == every[s] for s in every)
    assert kept["geometric100_censored-K50-large"]["n_arms"] == 50


def test_a_setting_id_reads_back_as_its_point_and_a_foreign_one_is_named() -> None:
    """``grid.point`` reads an id from its parts (the seeds ask for it once per curve): every
    setting of every figure reads back as the point it came from, a listed setting's own "-"
    included (Vernade et al. 2017's thetaL-same-round), and an id of no setting is an error
    that lists the figure's ids."""
    figures = [
        fig
        for figs in cfg.merged([CONFIG])["papers"].values()
        for fig in figs.values()
        if "settings" in fig
    ]
    for fig in figures:
        for p in grid.expand(fig):
            assert grid.point(fig, p.id) == p
    fig = _full_arena()
    for bad in ("nowhere", "uniform-K2", "uniform-K50-small", "uniform-K2-small-x"):
        with pytest.raises(ConfigError, match=rf"setting '{bad}' is not one of uniform-K2-small, "):
            grid.point(fig, bad)


def test_only_unites_setting_ids_with_the_intersection() -> None:
    kept = grid.points(_full_arena(["pareto1", "K10", "uniform-K2-small"]))
    assert set(kept) == {
        f"pareto1-K10-{b}" for b in ("small", "large", "low_small", "low_large")
    } | {"uniform-K2-small"}
    assert list(grid.points(_full_arena(["uniform-K2-small"]))) == ["uniform-K2-small"]
    fig = _full_arena(["geometric100", "K10"])
    every = grid.settings(_full_arena())
    assert all(cfg_ == every[s] for s, cfg_ in grid.settings(fig).items())  # same seeds, numbers


def test_only_that_selects_no_setting_names_the_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    # a grid is the product of its axes, so only a figure whose settings are not one (here the
    # K = 10 settings of geometric100 taken away) can leave groups without a common setting
    expand = grid.expand
    monkeypatch.setattr(
        grid,
        "expand",
        lambda fig: {
            p: c
            for p, c in expand(fig).items()
            if (p.listed, p.names[0]) != ("geometric100", "K10")
        },
    )
    grid.check_only(_full_arena(["geometric100", "K2"]), "papers.arena.regret")
    with pytest.raises(ConfigError) as info:
        grid.check_only(_full_arena(["geometric100", "K10"]), "papers.arena.regret")
    assert str(info.value).startswith(
        "papers.arena.regret.only: [geometric100, K10] selects no setting: "
        "settings ∩ n_arms is empty"
    )


def test_a_subset_states_its_scale_and_a_complete_figure_does_not_change() -> None:
    full, part = _full_arena(), _full_arena(["geometric100", "pareto1", "K10"])
    assert grid.scale("paper", {"arena regret": full}) == "paper"
    assert grid.scale("paper", {"arena regret": full}, prose=True) == "paper scale"
    assert grid.scale("paper", {"arena regret": _full_arena(["K2", "K10"])}) == "paper"
    label = "paper scale, a subset: 8 of 136 settings (only: geometric100, pareto1, K10)"
    assert grid.scale("paper", {"arena regret": part}) == label
    assert grid.scale(label, prose=True) == label  # a digest's label, worded again
    assert grid.scale("paper", {"arena regret": part, "arena window": full}) == (
        "paper scale, arena regret: a subset: 8 of 136 settings (only: geometric100, pareto1, K10)"
    )
    assert grid.title(full) == full["title"]
    assert grid.title(part) == (
        f"{full['title']}; a subset: 8 of 136 settings (only: geometric100, pareto1, K10)"
    )


def test_titles_and_captions_state_the_run_s_own_scale(tmp_path: Path) -> None:
    """A run's figure texts state its config's scale, runs and horizon (``captions.filled``): the
    standard run's as before, an overlay's (named scale, fewer runs, a subset) its own, in the
    title and in the report's caption, where the shipped texts typed "standard scale" and
    "8 runs" whatever the overlay."""

    def arena(*files: Path, overrides: dict | None = None) -> dict:
        return cfg.load([CONFIG, *files], "arena", overrides)["papers"]["arena"]["regret"]

    standard = arena()
    assert standard["title"].endswith("(standard scale; citable: make arena-full)")
    assert standard["caption"].startswith("The arena at its standard scale (10 runs, T = 20,000,")
    smoke = arena(SMOKE)
    assert smoke["title"].endswith("(smoke scale)") and "(4 runs, T = 2,000," in smoke["caption"]
    overlay = _write(
        tmp_path / "mine.yaml",
        {
            "scale": "mine",
            "papers": {"arena": {"regret": {"replications": 4, "only": ["geometric100"]}}},
        },
    )
    mine = arena(overlay)
    assert "standard scale" not in grid.title(mine) + grid.caption(mine)
    assert grid.title(mine).startswith(
        "Arena: every algorithm under every delay regime (mine scale; citable: make arena-full); "
        "a subset: 2 of 34 settings (only: geometric100)"
    )
    assert grid.caption(mine).startswith("The arena at its mine scale (4 runs, T = 20,000,")
    assert grid.caption(mine).endswith(" A subset: 2 of 34 settings (only: geometric100).")
    # any other brace stays, and a text with no placeholder is unchanged
    assert (
        captions.filled({}, "Uniform{0..50}, {scale}", scale="paper")
        == "Uniform{0..50}, standard scale"
    )
    assert (
        captions.filled({}, "Vernade et al. 2017, Figure 1", scale="smoke")
        == "Vernade et al. 2017, Figure 1"
    )
    with pytest.raises(ConfigError, match=r"\{runs\} is not a value"):
        captions.filled({"horizon": 5}, "{runs} runs", scale="smoke")


def test_validate_does_not_modify_the_config() -> None:
    config = _smoke()
    before = copy.deepcopy(config)
    cfg.validate(config)
    assert config == before


def test_validate_rejects_estimated_uncensored_cdf_without_geometric_delay() -> None:
    config = _smoke()
    assert "ud-klucb-est" in _fig(config, "fig3")["algorithms"]
    _setting(config, "fig3", "thetaL")["delay"] = {"kind": "uniform", "low": 0, "high": 20}
    with pytest.raises(ConfigError, match=r"papers\.vernade2017\.fig3"):
        cfg.validate(config)


@pytest.mark.probe("config values")
def test_load_rejects_missing_invalid_and_non_mapping_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        cfg.load(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("seed: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        cfg.load(broken)
    listing = tmp_path / "list.yaml"
    listing.write_text("- 1\n- 2\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        cfg.load(listing)
    bad = _smoke()
    _fig(bad).update(horizon=-5)
    with pytest.raises(ConfigError, match=r"papers\.vernade2017\.fig1\.horizon"):
        cfg.load(_write(tmp_path / "bad.yaml", bad))


def test_figure_lookup_lists_what_the_config_has() -> None:
    config = _smoke()
    assert cv.figure(config, PAPER, "fig2") is _fig(config, "fig2")
    with pytest.raises(ConfigError, match="'nobody2020'.*vernade2017"):
        cv.figure(config, "nobody2020", "fig1")
    with pytest.raises(ConfigError, match="'fig9'.*fig1, fig2, fig3"):
        cv.figure(config, PAPER, "fig9")


@pytest.mark.parametrize("replications,size", [(1, 1), (6, 3), (7, 3), (200, 50), (5, 10)])
def test_shards_cover_every_replication_once(replications: int, size: int) -> None:
    ranges = layout.shards(replications, size)
    covered = [r for a, b in ranges for r in range(a, b + 1)]
    assert covered == list(range(replications))
    assert all(0 <= a <= b and b - a + 1 <= size for a, b in ranges)
    assert len(ranges) == -(-replications // size)


# --------------------------------------------------------------------------------------------
# 3. CLI: exit code 2, a message naming the argument and what is allowed, nothing written
# --------------------------------------------------------------------------------------------


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def _leftovers(directory: Path) -> list[Path]:
    return [p for p in directory.rglob("*") if ".tmp" in p.name or p.suffix == ".parquet"]


@pytest.mark.parametrize("option", ["--config", "--configfile"])
def test_cli_validate_good_config(tmp_path: Path, option: str) -> None:
    """--configfile, Snakemake's name for the config files, is --config's alias."""
    result = _cli("validate", option, CONFIG, SMOKE, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout and "scale smoke" in result.stdout


@pytest.mark.probe("config values")
def test_cli_validate_bad_config_exits_2_naming_the_key(tmp_path: Path) -> None:
    bad = _smoke()
    _setting(bad, "fig1", "thetaL")["theta"] = [0.1, 1.5, 0.03]
    path = _write(tmp_path / "bad.yaml", bad)
    result = _cli("validate", "--config", path, cwd=tmp_path)
    assert result.returncode == 2
    assert "papers.vernade2017.fig1.settings.thetaL.theta.1" in result.stderr
    assert "maximum of 1" in result.stderr
    assert "Traceback" not in result.stderr
    assert "valid" not in result.stdout


@pytest.mark.probe("config values")
def test_cli_validate_missing_file_exits_2(tmp_path: Path) -> None:
    result = _cli("validate", "--config", tmp_path / "absent.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert "absent.yaml" in result.stderr and "does not exist" in result.stderr


def _simulate_args(out: Path, config: str | None = None, **override: str) -> list[str]:
    args = {
        "paper": PAPER,
        "figure": "fig1",
        "setting": "thetaH",
        "algorithm": "d-ucb",
        "reps": "0-1",
        "out": str(out),
    }
    args.update(override)
    files = [config] if config else [str(CONFIG), str(SMOKE)]
    return ["simulate", "--config", *files] + [x for k, v in args.items() for x in (f"--{k}", v)]


BAD_SIMULATE: dict[str, tuple[dict[str, str], list[str]]] = {
    "reps-reversed": ({"reps": "5-2"}, ["argument --reps", "FIRST <= LAST", "'5-2'"]),
    "reps-not-a-range": ({"reps": "x"}, ["argument --reps", "FIRST-LAST", "'x'"]),
    "reps-three-parts": ({"reps": "1-2-3"}, ["argument --reps", "FIRST-LAST", "'1-2-3'"]),
    "reps-beyond-replications": (
        {"reps": "4-6"},
        ["--reps 4-6", "< 6", "papers.vernade2017.fig1.replications"],
    ),
    "setting-unknown": (
        {"setting": "thetaZ"},
        ["setting 'thetaZ'", "thetaH, thetaL", "papers.vernade2017.fig1.settings"],
    ),
    "algorithm-unknown": (
        {"algorithm": "thompson"},
        [
            "algorithm 'thompson'",
            "d-ucb, d-klucb, ud-ucb, ud-klucb",
            "papers.vernade2017.fig1.algorithms",
        ],
    ),
    "algorithm-not-in-figure": (
        {"algorithm": "discarding-ucb"},
        ["algorithm 'discarding-ucb'", "d-ucb, d-klucb, ud-ucb, ud-klucb"],
    ),
    "paper-unknown": ({"paper": "nobody2020"}, ["paper 'nobody2020'", "vernade2017"]),
    "figure-unknown": ({"figure": "fig9"}, ["figure 'fig9'", "fig1, fig2, fig3"]),
}


@pytest.mark.probe("files and arguments")
@pytest.mark.parametrize("name", list(BAD_SIMULATE))
def test_cli_simulate_rejects_bad_arguments_and_writes_nothing(tmp_path: Path, name: str) -> None:
    override, expected = BAD_SIMULATE[name]
    out = tmp_path / "out" / "shard.parquet"
    result = _cli(*_simulate_args(out, **override), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    for part in expected:
        assert part in result.stderr, f"{part!r} not in {result.stderr!r}"
    assert "Traceback" not in result.stderr
    assert not out.exists()
    assert _leftovers(tmp_path) == []


@pytest.mark.probe("config values")
def test_cli_simulate_bad_config_writes_nothing(tmp_path: Path) -> None:
    bad = _smoke()
    _fig(bad).update(horizon=0)
    path = _write(tmp_path / "bad.yaml", bad)
    out = tmp_path / "out" / "shard.parquet"
    result = _cli(*_simulate_args(out, config=str(path)), cwd=tmp_path)
    assert result.returncode == 2
    assert "papers.vernade2017.fig1.horizon" in result.stderr
    assert not out.exists()
    assert _leftovers(tmp_path) == []


def test_cli_simulate_good_shard_writes_parquet(tmp_path: Path) -> None:
    smoke = _smoke()
    fig = _fig(smoke)
    out = tmp_path / "out" / "nested" / "shard.parquet"
    result = _cli(*_simulate_args(out, reps="1-2"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert out.is_file()
    frame = pd.read_parquet(out)
    assert list(frame.columns) == ["setting", "algorithm", "replication", "t", "regret"]
    assert set(frame["setting"]) == {"thetaH"}
    assert set(frame["algorithm"]) == {"d-ucb"}
    assert sorted(frame["replication"].unique()) == [1, 2]
    for _, rows in frame.groupby("replication"):
        assert len(rows) == fig["checkpoints"]
        assert rows["t"].is_monotonic_increasing and rows["t"].iloc[-1] == fig["horizon"]
        assert (rows["regret"] >= 0).all() and rows["regret"].is_monotonic_increasing
    # Only the output itself: no temporary file left beside it.
    assert sorted(p.name for p in out.parent.iterdir()) == ["shard.parquet"]


def test_cli_plot_rejects_unsupported_extension(tmp_path: Path) -> None:
    summary = tmp_path / "summary.csv"
    summary.write_text("setting,algorithm,t,mean\n")
    out = tmp_path / "x.svg"
    result = _cli(
        "plot",
        "--config",
        CONFIG,
        SMOKE,
        "--paper",
        PAPER,
        "--figure",
        "fig1",
        "--summary",
        summary,
        "--out",
        out,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert "--out" in result.stderr and "x.svg" in result.stderr
    assert ".pdf" in result.stderr and ".png" in result.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.csv"]


# --------------------------------------------------------------------------------------------
# 4-5. Snakemake: a bad config fails before any job runs; --lint passes
# --------------------------------------------------------------------------------------------


def _workflow_copy(root: Path) -> Path:
    shutil.copy2(REPO / "Snakefile", root / "Snakefile")
    for name in ("workflow", "config", "envs"):
        # symlinks=False: workflow/schemas/config.schema.yaml links into src/.
        shutil.copytree(REPO / name, root / name, symlinks=False)
    return root


def _snakemake(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(
        [SNAKEMAKE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )


def _no_outputs(root: Path) -> None:
    for name in ("results", "figures", "logs", "benchmarks", "smoke"):
        assert not (root / name).exists(), name


def test_snakemake_dry_run_accepts_smoke_config(tmp_path: Path) -> None:
    # Control for the test below: the copied workflow itself is sound.
    root = _workflow_copy(tmp_path)
    result = _snakemake("-n", "--cores", "1", "--configfile", "config/smoke.yaml", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "simulate" in result.stdout + result.stderr
    _no_outputs(root)


def test_snakemake_rejects_bad_config_before_any_job(tmp_path: Path) -> None:
    root = _workflow_copy(tmp_path)
    bad = _smoke()
    _fig(bad, "fig2")["horizon"] = -5
    _write(root / "bad.yaml", bad)
    result = _snakemake("-n", "--cores", "1", "--configfile", "bad.yaml", cwd=root)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "papers.vernade2017.fig2.horizon" in output
    assert "minimum" in output
    assert "rule simulate" not in output  # no job was scheduled
    _no_outputs(root)


def test_snakemake_hands_command_line_overrides_to_the_jobs(tmp_path: Path) -> None:
    root = _workflow_copy(tmp_path)
    result = _snakemake(
        "--configfile",
        "config/smoke.yaml",
        "--config",
        "seed=3",
        "-n",
        "-p",
        "--cores",
        "1",
        "smoke/results/vernade2017/fig2/summary.csv",
        cwd=root,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    command = re.search(r"delayed-bandits simulate --merged (\S+) --paper vernade2017", output)
    assert command is not None, output
    merged, made_from = cfg.read_merged(root / command[1])
    assert made_from["overrides"] == {"seed": 3} and merged["seed"] == 3
    _no_outputs(root)


def test_snakemake_checks_command_line_overrides_before_any_job(tmp_path: Path) -> None:
    root = _workflow_copy(tmp_path)
    result = _snakemake(
        "--configfile", "config/smoke.yaml", "--config", "seed=-1", "-n", "--cores", "1", cwd=root
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "config key 'seed'" in output and "minimum" in output
    assert "rule simulate" not in output
    _no_outputs(root)


def test_an_override_reaches_the_numbers(tmp_path: Path) -> None:
    shards = {}
    for name, extra in (
        ("base", []),
        ("seed3", ["--override", '{"seed": 3}']),
        ("same", ["--override", '{"seed": 7}']),
    ):
        out = tmp_path / name / "shard.parquet"
        assert main([*_simulate_args(out), *extra]) == 0
        shards[name] = pd.read_parquet(out)
    assert shards["base"].equals(shards["same"])  # the smoke seed is 7: overriding it with 7
    assert not shards["base"].equals(shards["seed3"])


@pytest.mark.parametrize("text", ["3", "{seed: 3}", "[1]"])
def test_an_override_must_be_a_json_object(capsys, text: str) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["validate", "--config", str(CONFIG), "--override", text])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--override" in err and "JSON object" in err


def test_snakemake_lint_passes(tmp_path: Path) -> None:
    # --lint writes .snakemake/log, so it runs on a copy of the repository's workflow.
    root = _workflow_copy(tmp_path)
    result = _snakemake("--lint", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    _no_outputs(root)


def test_loading_a_config_skips_rfc3987_syntax_and_leaves_it_importable() -> None:
    """jsonschema would build rfc3987_syntax's grammar (0.65 s) in every job; config loads it
    without, and the package stays importable afterwards for anyone else."""
    code = (
        "import sys\n"
        "from delayed_bandits import config\n"
        "config.load(['config/config.yaml'])\n"
        "assert 'rfc3987_syntax' not in sys.modules, 'imported'\n"
        "import rfc3987_syntax\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


def _ignored(repo: Path, path: str) -> bool:
    done = subprocess.run(["git", "check-ignore", "-q", path], cwd=repo, timeout=60)
    assert done.returncode in (0, 1), f"git check-ignore failed on {path}"
    return done.returncode == 0


def test_the_outputs_of_any_named_scale_are_ignored_by_git(tmp_path: Path) -> None:
    """A scale the repository's .gitignore does not name (``mine``) is ignored once the workflow
    has made its folder (``config.ignore_outputs``), and not before; the paper scale's outputs and
    the sources are as they were."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    shutil.copy(Path(CONFIG).parents[1] / ".gitignore", tmp_path / ".gitignore")
    assert not _ignored(tmp_path, "mine/figures/arena-regret.png")
    assert cfg.ignore_outputs({"scale": "paper"}, tmp_path) is None
    made = cfg.ignore_outputs({"scale": "mine"}, tmp_path)
    assert made == tmp_path / "mine" / ".gitignore"
    for path in ("mine/figures/arena-regret.png", "mine/results/arena/regret/leaderboard.csv"):
        assert _ignored(tmp_path, path), path
    assert _ignored(tmp_path, "results/arena/regret/leaderboard.csv")
    assert _ignored(tmp_path, "variation-0a1b2c3d/figures/arena-regret.png")
    assert not _ignored(tmp_path, "docs/library.md")
    assert cfg.ignore_outputs({"scale": "mine"}, tmp_path) == made  # a second run: unchanged


def _subcommands() -> list[str]:
    actions = _parser()._actions
    return [
        name for a in actions if isinstance(a, argparse._SubParsersAction) for name in a.choices
    ]


@pytest.mark.parametrize("command", [None, *_subcommands()])
def test_help_formats(command: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    """`--help` formats for the CLI and every command: argparse reads a help text as a %-format,
    so a bare '%' (as in '95 % interval') fails only when the help is printed."""
    argv = ["--help"] if command is None else [command, "--help"]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 0
    assert "usage:" in capsys.readouterr().out
