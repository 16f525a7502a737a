"""The library (``delayed_bandits.lab``, docs/library.md): its page's examples run, its runs are the
workflow's for a config's setting, its errors are named, and the page's table of information
models is the entrants' declarations."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT
from delayed_bandits import config, delays, lab, quoted, simulate
from delayed_bandits.arena import digest
from delayed_bandits.arena import experiment as arena
from delayed_bandits.errors import BadParameter, ConfigError, MissingParameter, NotApplicable

PAGE = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE, re.S)


def test_the_page_s_examples_run(monkeypatch) -> None:
    """Every python block of docs/library.md, in order, in one namespace, from the top of the
    checkout (the blocks read config/config.yaml); the first is the 20-line example."""
    assert len(BLOCKS) >= 3 and len(BLOCKS[0].splitlines()) <= 20
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for block in BLOCKS:
        exec(compile(block, "docs/library.md", "exec"), namespace)
    ratio = namespace["lab"].ratio(namespace["runs"], "d-ucb", "ts")
    assert ratio.lo <= ratio.ratio <= ratio.hi and ratio.n_runs == 15


def test_a_run_of_a_config_s_setting_is_the_workflow_s() -> None:
    overlay = {"papers": {"arena": {"regret": {"horizon": 600, "leaderboard_at": [600]}}}}
    cfg = config.load([ROOT / "config" / "config.yaml"], "arena", overlay)
    setting = "geometric100_censored-K10-small"
    names = ["d-ucb", "ts", "ucb1-matched"]
    workflow, _ = simulate.run_job(cfg, "arena", "regret", [setting], names, 0, 2)
    mine = lab.run(lab.Setting.from_arena(cfg, "regret", setting), names, 3, seed=cfg["seed"])
    pd.testing.assert_frame_equal(mine, workflow[mine.columns.tolist()], check_dtype=False)
    # another seed, another number: the comparison above could fail
    other = lab.run(lab.Setting.from_arena(cfg, "regret", setting), names, 3, cfg["seed"] + 1)
    assert not np.array_equal(other.regret, mine.regret)


def _small(**changes) -> lab.Setting:
    keys = dict(n_arms=3, base_mean=0.3, gap=0.2, delay=lab.geometric(20), window=40, horizon=400)
    return lab.Setting(**{**keys, **changes}, checkpoints=4)


def test_the_reference_takes_the_kernel_s_actions() -> None:
    setting = _small(censored=True)
    for name in ("d-ucb", "ts-em", "discarding-ts"):
        assert lab.run(setting, [name], 2, 5, reference=True).equals(lab.run(setting, [name], 2, 5))


def test_every_delay_kind_has_one_constructor() -> None:
    assert set(delays.KINDS) <= set(dir(lab))
    assert lab.per_arm(lab.pareto(0.3), lab.pareto(1.0)).spec["kind"] == "per_arm"


@pytest.mark.parametrize(
    "make, error, words",
    [
        (lambda: lab.geometric(-1), BadParameter, "geometric.mean"),
        (lambda: lab.uniform(5, 2), BadParameter, "low <= high"),
        (lambda: _small(n_arms=1), BadParameter, "n_arms"),
        (lambda: _small(gap=0.9), BadParameter, "gap"),
        (lambda: _small(horizon=0), BadParameter, "horizon"),
        (lambda: _small(delay={"kind": "geometric", "mean": 3}), BadParameter, "delay"),
        (lambda: lab.entrant("nope"), BadParameter, "d-ucb"),
        (lambda: lab.run(_small(), ["ts"], 0), BadParameter, "runs"),
        (lambda: lab.run(_small(), ["ts"], 2, seed=-1), BadParameter, "seed"),
        (lambda: lab.run(_small(), ["ts-km"], 2), NotApplicable, "ts-km"),
        (lambda: lab.run(_small(delay=lab.pareto(0.3)), ["odaaf"], 2), NotApplicable, "E[τ]"),
        (lambda: lab.run(_small(), ["patient"], 2), MissingParameter, "alpha_tilde"),
    ],
)
def test_a_bad_or_missing_parameter_is_a_named_error(make, error, words) -> None:
    with pytest.raises(error, match=re.escape(words)) as caught:
        make()
    assert isinstance(caught.value, ConfigError)


def test_patient_runs_once_told_alpha_tilde() -> None:
    frame = lab.run(_small(alpha_tilde=0.5), ["patient"], 2)
    assert frame.regret.notna().all() and len(frame) == 8


def test_summary_and_ratio_intervals() -> None:
    frame = lab.run(_small(), ["ts", "uniform"], 6, seed=3)
    summary = lab.summary(frame)
    assert (summary.lo <= summary["mean"]).all() and (summary["mean"] <= summary.hi).all()
    last = summary[(summary.algorithm == "ts") & (summary.t == 400)].iloc[0]
    runs = frame[(frame.algorithm == "ts") & (frame.t == 400)].regret
    half = 2.5706 * runs.std(ddof=1) / np.sqrt(6)  # t(5) at 0.975
    assert last["mean"] == pytest.approx(runs.mean()) and last.hi - last["mean"] == pytest.approx(
        half, rel=1e-4
    )
    r = lab.ratio(frame, "ts", "uniform")
    at_t = frame[frame.t == 400].pivot(index="replication", columns="algorithm", values="regret")
    assert r.ratio == pytest.approx(at_t.ts.mean() / at_t.uniform.mean())
    assert r.lo < r.ratio < r.hi and r.t == 400
    assert lab.ratio(frame, "ts", "uniform", t=200).t == 200
    with pytest.raises(BadParameter, match="'klucb' has no runs"):
        lab.ratio(frame, "klucb", "uniform")


def test_the_page_s_information_models_are_the_declarations() -> None:
    """The page's table is the block the declarations give (``quote entrants --write``), and it
    puts every entrant in the row of its model, those told T marked (T)."""
    declared = digest.declared()
    assert quoted.stale(PAGE, {"arena-information": declared["arena-information"]}) == []
    text = PAGE.split("<!-- quoted: arena-information -->\n", 1)[1].split("\n<!-- /quoted", 1)[0]
    assert text == declared["arena-information"]
    rows = {
        model: {i.strip() for i in ids.split(",")}
        for model, ids in re.findall(r"^\| ([^|]+?) \| [^|]+ \| ([^|]+) \|$", text, re.M)[1:]
    }
    for a in arena.BUILT_IN:
        assert f"`{a.id}`" + (" (T)" if a.horizon_tuned else "") in rows[a.information], a.id
