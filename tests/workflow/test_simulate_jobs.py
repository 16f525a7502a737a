"""Simulation jobs: one job runs every curve of a figure (``simulate_jobs: per_figure``, the
default) or of a setting (``per_setting``) on the same realisations, and gets exactly the numbers
of one job per curve (``per_curve``); curves that do not apply to a setting are skipped there and
refused in per-curve figures."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from pandas.testing import assert_frame_equal

from conftest import CONFIG, SMOKE, copy_workflow, smoke_config, snakemake
from delayed_bandits import algorithms, grid, layout
from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits.cli import main
from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import write_parquet
from delayed_bandits.simulate import run_curves, run_job, run_shard
from delayed_bandits.tables import BINDING_KEY


def _smoke() -> dict[str, Any]:
    return smoke_config()


def _one_by_one(
    config: dict[str, Any],
    paper: str,
    figure: str,
    setting: str,
    names: list[str],
    first: int,
    last: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``run_shard`` per algorithm, each frame tagged with its algorithm, concatenated."""
    runs = [(name, run_shard(config, paper, figure, setting, name, first, last)) for name in names]
    frames = pd.concat([f.assign(algorithm=n) for n, (f, _) in runs], ignore_index=True)
    events = pd.concat([e.assign(algorithm=n) for n, (_, e) in runs], ignore_index=True)
    first_columns = ["algorithm", "replication"]
    return (
        frames[["algorithm", "replication", "t", "regret"]],
        events[first_columns + [c for c in events.columns if c not in first_columns]],
    )


# pikeburke2018 fig3a: two variants (odaaf-c2, odaaf-c4) change the setting's phase constants,
# and ODAAF has events; the order given is not the figure's, so rows must follow it.
@pytest.mark.parametrize(
    "paper, figure, setting, names",
    [
        ("vernade2017", "fig1", "thetaH", ["d-ucb", "ud-klucb", "d-klucb"]),
        ("pikeburke2018", "fig3a", "unif50", ["odaaf-c4", "qpm-d", "odaaf-c2", "odaaf", "odaaf-b"]),
    ],
)
def test_run_curves_equals_the_curves_run_one_by_one(paper, figure, setting, names) -> None:
    config = _smoke()
    frame, events = run_curves(config, paper, figure, setting, names, 1, 3)
    expected_frame, expected_events = _one_by_one(config, paper, figure, setting, names, 1, 3)
    assert_frame_equal(frame, expected_frame, check_exact=True)
    assert_frame_equal(events, expected_events, check_exact=True)
    assert list(dict.fromkeys(frame.algorithm)) == names
    if paper == "pikeburke2018":
        assert set(events.algorithm) == {"odaaf", "odaaf-b", "odaaf-c2", "odaaf-c4"}


# Thune et al.'s settings have horizons of their own, so a job's settings differ in checkpoints.
@pytest.mark.parametrize("paper, figure", [("thune2019", "example8"), ("vernade2017", "fig1")])
def test_a_job_of_several_settings_is_each_settings_curves(paper, figure) -> None:
    config = _smoke()
    fig = config["papers"][paper][figure]
    settings = list(reversed(grid.settings(fig)))  # the order given is the rows' order
    frame, events = run_job(config, paper, figure, settings, fig["algorithms"], 1, 3)
    assert list(dict.fromkeys(frame.setting)) == settings
    for setting in settings:
        alone, alone_events = run_curves(config, paper, figure, setting, fig["algorithms"], 1, 3)
        rows = frame[frame.setting == setting].drop(columns="setting").reset_index(drop=True)
        assert_frame_equal(rows, alone, check_exact=True)
        found = events[events.setting == setting].drop(columns="setting")
        assert_frame_equal(
            found.dropna(axis=1, how="all").reset_index(drop=True),
            alone_events.dropna(axis=1, how="all"),
            check_exact=True,
            check_dtype=False,
        )


def test_a_job_refuses_unknown_or_repeated_settings() -> None:
    config = _smoke()
    with pytest.raises(
        ConfigError,
        match=r"--setting 'thetaX' is not one of thetaH, thetaL "
        r"\(papers\.vernade2017\.fig1\.settings\)",
    ):
        run_job(config, "vernade2017", "fig1", ["thetaH", "thetaX"], ["d-ucb"], 0, 1)
    with pytest.raises(ConfigError, match="--setting thetaH given more than once"):
        run_job(config, "vernade2017", "fig1", ["thetaH", "thetaH"], ["d-ucb"], 0, 1)


def test_environment_is_drawn_once_per_distinct_setting(monkeypatch) -> None:
    plugin = algorithms.experiment("pikeburke2018")
    draws: list[int] = []
    original = plugin.draw_environment

    def counting(seed, horizon, st):
        draws.append(horizon)
        return original(seed, horizon, st)

    monkeypatch.setattr(plugin, "draw_environment", counting)
    config = _smoke()
    steps: list[tuple[int, int, int]] = []
    # qpm-d, odaaf and odaaf-b share the setting; odaaf-c2 and odaaf-c4 each change it
    run_curves(
        config,
        "pikeburke2018",
        "fig3a",
        "unif50",
        ["qpm-d", "odaaf", "odaaf-b", "odaaf-c2", "odaaf-c4"],
        0,
        1,
        progress=lambda *p: steps.append(p),
    )
    assert len(draws) == 2 * 3
    horizon = config["papers"]["pikeburke2018"]["fig3a"]["horizon"]
    assert steps == [(1, 2, horizon * 5), (2, 2, 2 * horizon * 5)]
    draws.clear()
    run_curves(config, "pikeburke2018", "fig3a", "unif50", ["qpm-d", "odaaf", "odaaf-b"], 0, 1)
    assert len(draws) == 2


def _not_on_low_theta(monkeypatch, algorithm: str = "d-klucb") -> str:
    """Make ``algorithm`` of vernade2017 not apply where the best arm's rate is below 0.2 (the
    smoke config's thetaL); returns the reason it gives."""
    plugin = algorithms.experiment("vernade2017")
    reason = "assumes a best arm of rate at least 0.2"
    patched = [
        replace(a, applies=lambda st: reason if max(st.theta) < 0.2 else "")
        if a.id == algorithm
        else a
        for a in plugin.ALGORITHMS
    ]
    monkeypatch.setattr(plugin, "ALGORITHMS", patched)
    return reason


def test_a_curve_that_does_not_apply_is_skipped(monkeypatch) -> None:
    _not_on_low_theta(monkeypatch)
    config = _smoke()
    frame, _ = run_curves(config, "vernade2017", "fig1", "thetaL", ["d-ucb", "d-klucb"], 0, 2)
    assert set(frame.algorithm) == {"d-ucb"}
    alone, _ = run_shard(config, "vernade2017", "fig1", "thetaL", "d-ucb", 0, 2)
    assert_frame_equal(frame.drop(columns="algorithm"), alone, check_exact=True)
    # where it applies it runs
    frame, _ = run_curves(config, "vernade2017", "fig1", "thetaH", ["d-ucb", "d-klucb"], 0, 2)
    assert set(frame.algorithm) == {"d-ucb", "d-klucb"}
    with pytest.raises(
        ConfigError,
        match=r"no algorithm of d-klucb applies to setting thetaL.*"
        r"d-klucb: assumes a best arm",
    ):
        run_curves(config, "vernade2017", "fig1", "thetaL", ["d-klucb"], 0, 2)


def test_validate_refuses_a_curve_that_does_not_apply_in_a_per_curve_figure(monkeypatch) -> None:
    reason = _not_on_low_theta(monkeypatch)
    config = _smoke()
    cfg.validate(config)  # per_figure, the default, skips that curve
    fig1 = config["papers"]["vernade2017"]["fig1"]
    curves = cv.curves("vernade2017", "fig1", fig1)
    assert ("thetaL", "d-klucb") not in curves and ("thetaH", "d-klucb") in curves
    assert len(curves) == 2 * len(fig1["algorithms"]) - 1
    config["papers"]["vernade2017"]["fig1"]["simulate_jobs"] = "per_curve"
    with pytest.raises(ConfigError) as refused:
        cfg.validate(config)
    message = str(refused.value)
    for part in (
        "papers.vernade2017.fig1.settings.thetaL",
        "algorithm d-klucb does not apply",
        reason,
        "simulate_jobs: per_curve",
        "simulate_jobs: per_setting",
    ):
        assert part in message, message


def test_curves_of_a_per_curve_figure_are_every_pair() -> None:
    fig = {**_smoke()["papers"]["pikeburke2018"]["fig3a"], "simulate_jobs": "per_curve"}
    assert cv.curves("pikeburke2018", "fig3a", fig) == [
        (s, a) for s in fig["settings"] for a in fig["algorithms"]
    ]


def test_simulate_jobs_takes_three_values() -> None:
    config = _smoke()
    config["papers"]["vernade2017"]["fig1"]["simulate_jobs"] = "per_algorithm"
    with pytest.raises(
        ConfigError,
        match=r"papers\.vernade2017\.fig1\.simulate_jobs.*"
        r"per_figure.*per_setting.*per_curve",
    ):
        cfg.validate(config)


def _simulate(out: Path, *names: str, reps: str = "0-2") -> int:
    return main(
        [
            "simulate",
            "--config",
            str(CONFIG),
            str(SMOKE),
            "--paper",
            "pikeburke2018",
            "--figure",
            "fig3a",
            "--setting",
            "exp50d75",
            "--algorithm",
            *names,
            "--reps",
            reps,
            "--out",
            str(out),
            "--events",
            str(out.with_suffix(".events.parquet")),
        ]
    )


def test_cli_writes_every_algorithm_given(tmp_path: Path) -> None:
    out = tmp_path / "rep0-2.parquet"
    assert _simulate(out, "qpm-d", "odaaf-c2") == 0
    frame = pd.read_parquet(out)
    events = pd.read_parquet(out.with_suffix(".events.parquet"))
    assert list(frame.columns) == ["setting", "algorithm", "replication", "t", "regret"]
    assert (frame.setting == "exp50d75").all()
    expected, expected_events = _one_by_one(
        _smoke(), "pikeburke2018", "fig3a", "exp50d75", ["qpm-d", "odaaf-c2"], 0, 2
    )
    assert_frame_equal(frame.drop(columns="setting"), expected, check_exact=True)
    assert_frame_equal(events.drop(columns="setting"), expected_events, check_exact=True)
    assert set(events.algorithm) == {"odaaf-c2"}  # QPM-D has no events


@pytest.mark.parametrize(
    "names, why",
    [
        (["qpm-d", "thompson"], "--algorithm 'thompson' is not one of qpm-d, odaaf, odaaf-b"),
        (["odaaf", "qpm-d", "odaaf"], "--algorithm odaaf given more than once"),
    ],
)
def test_cli_refuses_bad_algorithm_lists(tmp_path: Path, capsys, names, why) -> None:
    out = tmp_path / "rep0-2.parquet"
    assert _simulate(out, *names) == 2
    assert why in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_shard_missing_one_curves_replication_is_refused(tmp_path: Path, capsys) -> None:
    shard = tmp_path / "rep0-2.parquet"
    assert _simulate(shard, "qpm-d", "odaaf") == 0
    frame = pd.read_parquet(shard)
    made_by = {BINDING_KEY: pq.read_schema(shard).metadata[BINDING_KEY]}  # its own: read on
    write_parquet(frame[(frame.algorithm != "odaaf") | (frame.replication != 1)], shard, made_by)
    out = tmp_path / "summary.csv"
    assert (
        main(
            [
                "aggregate",
                "--config",
                str(CONFIG),
                str(SMOKE),
                "--paper",
                "pikeburke2018",
                "--figure",
                "fig3a",
                "--out",
                str(out),
                str(shard),
            ]
        )
        == 2
    )
    assert (
        "exp50d75/odaaf holds replications 0-2 (2 runs), its name promises 0-2 (3 runs)"
        in capsys.readouterr().err
    )
    assert not out.exists()


def _jobs(work: Path, kinds: dict[tuple[str, str], str]) -> dict[str, Any]:
    """Set ``simulate_jobs`` of some figures of the copied smoke config."""
    config = _smoke()
    for (paper, figure), kind in kinds.items():
        config["papers"][paper][figure]["simulate_jobs"] = kind
    (work / "config/smoke.yaml").write_text(
        yaml.safe_dump(config, allow_unicode=True, sort_keys=False)
    )
    return config


def test_workflow_runs_the_jobs_each_figure_asks_for(tmp_path: Path) -> None:
    work = copy_workflow(tmp_path)
    config = _jobs(
        work, {("pikeburke2018", "fig3a"): "per_setting", ("pikeburke2018", "fig3b"): "per_curve"}
    )
    run = snakemake(
        work,
        "-n",
        "-p",
        "--cores",
        "1",
        "smoke/results/pikeburke2018/fig3a/ratios.csv",
        "smoke/results/pikeburke2018/fig3b/summary.csv",
        "smoke/results/pikeburke2018/appE/summary.csv",
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout + run.stderr
    figs = config["papers"]["pikeburke2018"]
    n_shards = len(layout.shards(figs["fig3a"]["replications"], config["shard_size"]))
    jobs = dict(re.findall(r"^(\w+)\s+(\d+)$", out, re.M))
    assert int(jobs["simulate_setting"]) == len(figs["fig3a"]["settings"]) * n_shards
    assert int(jobs["simulate"]) == (
        len(figs["fig3b"]["settings"]) * len(figs["fig3b"]["algorithms"]) * n_shards
    )
    assert int(jobs["simulate_figure"]) == n_shards  # appE: the default, per_figure
    assert (
        "--setting unif50 --algorithm qpm-d odaaf odaaf-b odaaf-c2 odaaf-c4 --reps 0-2"
        " --out smoke/results/pikeburke2018/fig3a/unif50/rep0-2.parquet"
        " --events smoke/results/pikeburke2018/fig3a/unif50/rep0-2.events.parquet"
    ) in out
    assert "smoke/logs/pikeburke2018/fig3a/unif50/rep0-2.log" in out
    appe = figs["appE"]
    assert (
        f"--setting {' '.join(appe['settings'])} --algorithm {' '.join(appe['algorithms'])}"
        " --reps 0-2 --out smoke/results/pikeburke2018/appE/rep0-2.parquet"
        " --events smoke/results/pikeburke2018/appE/rep0-2.events.parquet"
    ) in out
    assert "smoke/logs/pikeburke2018/appE/rep0-2.log" in out


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["per_setting", "per_curve"])
def test_finer_jobs_give_the_same_summary_and_claims(
    tmp_path: Path, smoke_run: Path, kind: str
) -> None:
    work = copy_workflow(tmp_path)
    _jobs(work, {("vernade2017", "fig2"): kind})
    outputs = [
        "smoke/results/vernade2017/fig2/summary.csv",
        "smoke/results/vernade2017/fig2/claims.json",
    ]
    run = snakemake(work, "--cores", "2", *outputs)
    assert run.returncode == 0, run.stderr[-3000:]
    for target in outputs:
        assert (work / target).read_bytes() == (smoke_run / target).read_bytes(), target
    fig = _smoke()["papers"]["vernade2017"]["fig2"]
    settings = list(fig["settings"])  # thetaL and, on the same draws, thetaL-same-round
    found = sorted(
        p.relative_to(work / "smoke/results/vernade2017/fig2").as_posix()
        for p in (work / "smoke/results/vernade2017/fig2").rglob("rep*[0-9].parquet")
    )
    dirs = (
        [f"{s}/" for s in settings]
        if kind == "per_setting"
        else [f"{s}/{a}/" for s in settings for a in fig["algorithms"]]
    )
    assert found == sorted(f"{d}rep{r}.parquet" for d in dirs for r in ("0-2", "3-5"))
