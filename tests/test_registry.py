"""The paper registry is the one list of papers: what still lists them agrees with it, and a new
paper joins the library and the workflow through its own folder alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import BIN, CONFIG, copy_workflow, plugin
from delayed_bandits import algorithms, config, kinds, papers, seeds
from delayed_bandits.errors import ConfigError

# Pinned: a paper's seed id is part of every one of its seeds, so changing one would silently
# change every published number of that paper. A new paper takes any unused id (the test below
# checks that none is shared); it need not be added here.
SEED_IDS = {
    "vernade2017": 1,
    "pikeburke2018": 2,
    "thune2019": 3,
    "vernade2020": 4,
    "manegueu2020": 5,
    "arena": 6,
}


def test_seed_ids_are_pinned_and_distinct():
    registered = papers.registered()
    assert {paper: registered[paper].seed_id for paper in SEED_IDS} == SEED_IDS
    assert all(seeds.paper_id(paper) == seed_id for paper, seed_id in SEED_IDS.items())
    ids = [p.seed_id for p in registered.values()]
    assert len(ids) == len(set(ids)), "two papers share a seed_id"


def test_the_schema_lists_exactly_the_registered_papers():
    schema = config.schemas()
    assert set(schema["config.schema.yaml"]["properties"]["papers"]["properties"]) == set(
        papers.ids()
    )
    assert set(schema) == {"config.schema.yaml"} | {f"{p}.schema.yaml" for p in papers.ids()}
    assert set(yaml.safe_load(CONFIG.read_text())["papers"]) <= set(papers.ids())


@pytest.mark.parametrize("paper", papers.ids())
def test_what_a_paper_schema_still_lists_is_its_registry(paper):
    props = config.schemas()[f"{paper}.schema.yaml"]["properties"]
    ids = set(algorithms.registry(paper))
    listed = (
        props["variants"]["additionalProperties"]["properties"]["algorithm"]["enum"]
        if "variants" in props
        else props["algorithms"]["items"]["enum"]
    )
    assert set(listed) <= ids and listed  # a paper may narrow what a variant varies, no more
    allowed = {kinds.GENERIC} | {k.name for k in papers.get(paper).kinds if k.in_config}
    assert set(props["kind"]["enum"]) == allowed


def test_an_unknown_paper_is_refused_naming_the_registered_ones():
    with pytest.raises(ConfigError, match="'nope' is not one of vernade2017, pikeburke2018"):
        papers.get("nope")


# --------------------------------------------------------------------------------------------
# A sixth paper, from outside the package
# --------------------------------------------------------------------------------------------

TOY = {
    "__init__.py": '''
        """A toy paper: round-robin play on a delayed Bernoulli bandit."""

        from delayed_bandits.papers import Paper

        PAPER = Paper(id="toy2026", seed_id=99, title="A toy paper (tests/test_registry.py).",
                      figure_ids="^fig[0-9]+$", steps_per_second=10**6,
                      shard_steps_per_second=10**6, package="toy_paper")
        ''',
    "experiment.py": """
        from dataclasses import dataclass

        import numpy as np

        from delayed_bandits import delays
        from delayed_bandits.algorithms import Algorithm
        from delayed_bandits.environment import draw


        @dataclass(frozen=True)
        class Setting:
            theta: np.ndarray
            delay: delays.DelayDistribution

            @classmethod
            def from_config(cls, cfg, where):
                return cls(np.asarray(cfg["theta"], dtype=float),
                           delays.from_spec(cfg["delay"], f"{where}.delay"))


        def draw_environment(seed, horizon, st):
            return draw(seed, horizon, len(st.theta), st.delay)


        def round_robin(st, env, cp, seed):
            actions = np.arange(env.uniforms.shape[0]) % len(st.theta)
            return np.cumsum(st.theta.max() - st.theta[actions])[cp - 1], actions, None


        ALGORITHMS = [Algorithm("round-robin", "Round robin", "Each arm in turn.", round_robin,
                                round_robin)]
        BENCH = Setting(np.array([0.5, 0.4]), delays.Geometric(10.0))
        """,
    "claims.py": """
        from delayed_bandits.claims import Claim


        def fig1(tables, fig):
            summary = tables["summary"]
            end = summary[summary.t == summary.t.max()]
            gap = sum(max(s["theta"]) - min(s["theta"]) for s in fig["settings"].values())
            measured = float(end["mean"].iloc[0])
            expected = fig["horizon"] * gap / 2
            return [Claim("linear", "Round robin's regret is T times the mean gap", "toy",
                          f"{measured:g}", f"{expected:g}", abs(measured - expected) <= 1)]


        CHECKS = {"fig1": fig1}
        """,
    "schema.yaml": """
        $schema: "https://json-schema.org/draft/2020-12/schema"
        description: One figure of the toy paper.
        allOf: [{$ref: "config.schema.yaml#/$defs/figure_common"}]
        type: object
        additionalProperties: false
        properties:
          title: {description: Title., type: string}
          horizon: {description: Number of rounds T.}
          replications: {description: Runs.}
          checkpoints: {description: Checkpoints.}
          algorithms:
            description: Algorithms.
            type: array
            items: {description: A registry id.}
          settings:
            description: Problems.
            type: object
            additionalProperties:
              description: One problem.
              type: object
              additionalProperties: false
              required: [theta, delay]
              properties:
                theta: {description: Means., type: array}
                delay: {$ref: "config.schema.yaml#/$defs/delay"}
        """,
}

TOY_CONFIG = {
    "papers": {
        "toy2026": {
            "fig1": {
                "title": "Toy figure",
                "horizon": 400,
                "replications": 4,
                "checkpoints": 10,
                "algorithms": ["round-robin"],
                "settings": {
                    "easy": {"theta": [0.5, 0.3], "delay": {"kind": "geometric", "mean": 5}}
                },
            }
        }
    }
}


@pytest.fixture
def toy(tmp_path: Path) -> dict[str, str]:
    """The toy paper's folder (outside the package), and the environment that registers it."""
    return plugin(tmp_path / "plugins" / "toy_paper", TOY)


@pytest.mark.slow
def test_a_toy_paper_joins_through_its_folder_alone(tmp_path: Path, toy: dict[str, str]):
    (tmp_path / "work").mkdir()
    work = copy_workflow(tmp_path / "work")
    (work / "toy.yaml").write_text(yaml.safe_dump(TOY_CONFIG))
    run = subprocess.run(
        [
            f"{BIN}/snakemake",
            "--cores",
            "2",
            "toy2026",
            "--configfile",
            "config/smoke.yaml",
            "toy.yaml",
        ],
        cwd=work,
        env=toy,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert (work / "smoke/figures/toy2026-fig1.pdf").stat().st_size > 5000
    summary = pd.read_csv(work / "smoke/results/toy2026/fig1/summary.csv")
    assert summary.t.max() == 400 and (summary.n_runs == 4).all()
    [claim] = json.loads((work / "smoke/results/toy2026/fig1/claims.json").read_text())
    assert claim["holds"] is True and claim["measured"] == "40"  # 400 rounds x gap 0.2 / 2
    # nothing of the five papers ran: the registry gave the toy paper its own target
    assert not (work / "smoke/results/vernade2017").exists()


def test_a_toy_paper_is_checked_by_the_schema_it_brings(tmp_path: Path, toy: dict[str, str]):
    bad = json.loads(json.dumps(TOY_CONFIG))
    bad["papers"]["toy2026"]["fig1"]["settings"]["easy"]["theta"] = "high"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    result = subprocess.run(
        [f"{BIN}/delayed-bandits", "validate", "--config", str(CONFIG), str(tmp_path / "bad.yaml")],
        env=toy,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "papers.toy2026.fig1.settings.easy.theta" in result.stderr
