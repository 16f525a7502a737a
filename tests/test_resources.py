"""What jobs ask a cluster for: grows as it should with the config, and stays within what a
cluster's short queues allow at paper scale."""

from __future__ import annotations

import math

import pytest

from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits import grid, kinds, layout, papers, resources
from delayed_bandits.errors import ConfigError


def test_every_paper_has_rates() -> None:
    for paper in papers.registered().values():
        # shards are sized at a typical rate, never below the requests' conservative one
        assert paper.shard_steps_per_second >= paper.steps_per_second > 0, paper.id


def test_runtime_grows_with_work_and_memory_with_the_horizon() -> None:
    small = resources.simulation("vernade2017", 10_000, 100)
    assert small.runtime == resources.MIN_RUNTIME_MIN  # 10^6 steps at 45k/s: 22 s, times 3
    more_runs = resources.simulation("vernade2017", 10_000, 1_000)
    assert more_runs.runtime == 12  # ceil(3 * 10^7 / 45,000 / 60)
    assert more_runs.mem_mb == small.mem_mb  # one replication in memory at a time
    longer = resources.simulation("vernade2017", 10**7, 100)
    assert longer.mem_mb == resources.BASE_MB + 4000 and longer.runtime > more_runs.runtime


@pytest.mark.parametrize(
    "args, bad",
    [
        (("nope", 100, 10), "paper 'nope'"),
        (("thune2019", 0, 10), "positive horizon"),
        (("thune2019", 100, 0), "positive horizon"),
    ],
)
def test_bad_request_is_named(args, bad) -> None:
    with pytest.raises(ConfigError, match=bad):
        resources.simulation(*args)


def test_auto_shard_size_is_the_fewest_even_shards_within_the_target() -> None:
    rate = papers.get("manegueu2020").shard_steps_per_second
    # 200 runs whose estimate is 2.2 targets: 3 shards of 67, the last of 66
    horizon = int(2.2 * resources.AUTO_SHARD_SECONDS * rate / 200)
    assert resources.auto_shard_size("manegueu2020", horizon, 200) == 67
    assert layout.shards(200, 67) == [(0, 66), (67, 133), (134, 199)]
    # within the target: one shard holds every replication
    assert resources.auto_shard_size("manegueu2020", 1000, 200) == 200
    # a single replication longer than the target still gets a shard
    assert resources.auto_shard_size("manegueu2020", 10**9, 3) == 1
    with pytest.raises(ConfigError, match="paper 'nope'"):
        resources.auto_shard_size("nope", 100, 10)


def test_a_job_of_several_curves_asks_for_their_time_and_one_curve_of_memory() -> None:
    one = resources.simulation("vernade2017", 10_000, 1_000)
    three = resources.simulation("vernade2017", 10_000, 1_000, steps=3 * 10_000)
    assert three.runtime == 34  # ceil(3 * 3 * 10^7 / 45,000 / 60)
    assert three.mem_mb == one.mem_mb  # the curves run one after another
    with pytest.raises(ConfigError, match="positive number of agent-steps"):
        resources.simulation("vernade2017", 10_000, 1_000, steps=0)
    rate = papers.get("manegueu2020").shard_steps_per_second
    horizon = int(resources.AUTO_SHARD_SECONDS * rate / 200)  # 200 runs of one curve: one target
    assert resources.auto_shard_size("manegueu2020", horizon, 200) == 200
    assert resources.auto_shard_size("manegueu2020", 4 * horizon, 200) == 50


def test_shard_size_auto_counts_the_curves_a_job_runs() -> None:
    fig = {
        "horizon": 10**5,
        "replications": 200,
        "algorithms": ["patient", "adapt-patient", "d-ucb"],
        "settings": {"long": {}, "short": {"horizon": 10**3}},
    }
    steps = {"per_curve": 10**5, "per_setting": 3 * 10**5, "per_figure": 3 * (10**5 + 10**3)}
    for kind, expected in steps.items():
        cfg_fig = {**fig, "simulate_jobs": kind}
        assert layout.job_steps("manegueu2020", cfg_fig) == (expected, 0), kind
        assert layout.shard_size(
            {"shard_size": "auto"}, "manegueu2020", cfg_fig
        ) == resources.auto_shard_size("manegueu2020", expected, 200)
    assert cv.simulate_jobs(fig) == "per_figure"


def test_an_entrant_without_a_kernel_asks_for_time_at_the_reference_rate(root, monkeypatch) -> None:
    """A curve whose entrant plays its policy in plain Python (declared without ``kernel=``)
    asks for the time of its steps at ``REFERENCE_STEPS_PER_SECOND``: the arena's rate over it
    times a compiled entrant's request for the same curve; a figure listing it sizes its shards
    the same way."""
    from delayed_bandits.arena import experiment
    from delayed_bandits.arena.entrants import from_policy
    from delayed_bandits.arena.policies import IgnoresDelays

    def python_ts(problem, rng):
        return IgnoresDelays(problem.n_arms, "ts", 1.0, 0.0, rng)

    slow = from_policy("ts-python", "TS in Python", "ts without its kernel", python_ts)
    monkeypatch.setattr(experiment, "ALGORITHMS", [*experiment.ALGORITHMS, slow])
    fig = cv.figure(
        cfg.load([root / "config/config.yaml", root / "config/arena-full.yaml"]), "arena", "regret"
    )
    setting = next(iter(grid.settings(fig)))
    horizon, replications = grid.horizon(fig, grid.settings(fig)[setting]), 100_000
    fast = layout.simulation_request("arena", fig, [(setting, "ts")], replications)
    python = layout.simulation_request("arena", fig, [(setting, "ts-python")], replications)
    ratio = papers.get("arena").steps_per_second / resources.REFERENCE_STEPS_PER_SECOND
    assert ratio > 10 and python.runtime / fast.runtime == pytest.approx(ratio, rel=0.01)
    assert python.runtime == math.ceil(
        resources.RUNTIME_FACTOR
        * replications
        * horizon
        / resources.REFERENCE_STEPS_PER_SECOND
        / 60
    )
    assert python.mem_mb == fast.mem_mb
    # the built-in entrants all have kernels (uniform play's is its vectorised draw)
    assert not any(cv.interpreted("arena", fig, name) for name in fig["algorithms"])
    with_it = {**fig, "algorithms": [*fig["algorithms"], "ts-python"]}
    steps, interpreted = layout.job_steps("arena", with_it)
    assert (steps, interpreted) == (
        layout.job_steps("arena", fig)[0],
        sum(grid.horizon(fig, s) for s in grid.settings(fig).values()),
    )
    # a curve a job: 200 runs of a compiled curve fit one target, of the slow one 17 of them
    one = {"simulate_jobs": "per_curve", "replications": 200, "statistics": {"screen_runs": 0}}
    config = {"shard_size": "auto"}  # one stage: every curve runs the 200
    assert layout.shard_size(config, "arena", {**fig, **one}) == 200
    assert layout.shard_size(config, "arena", {**with_it, **one}) == 12


def test_shard_size_auto_asks_the_resource_model_and_a_figure_may_override() -> None:
    fig = {"horizon": 10**5, "replications": 200, "algorithms": ["patient"], "settings": {"s": {}}}
    expected = resources.auto_shard_size("manegueu2020", 10**5, 200)
    assert layout.shard_size({"shard_size": "auto"}, "manegueu2020", fig) == expected
    assert (
        layout.shard_size({"shard_size": "auto"}, "manegueu2020", {**fig, "shard_size": 30}) == 30
    )
    assert layout.shard_size({"shard_size": 50}, "manegueu2020", fig) == 50
    assert (
        layout.shard_size({"shard_size": 50}, "manegueu2020", {**fig, "shard_size": "auto"})
        == expected
    )


def test_paper_scale_jobs_fit_short_queues(root) -> None:
    """Every shard of config/config.yaml asks for at most 2 GB and an hour."""
    config = cfg.load(root / "config" / "config.yaml")
    for paper, figures in config["papers"].items():
        for fig in figures.values():
            if not kinds.simulated(fig):
                continue
            size = layout.shard_size(config, paper, fig)
            horizon = max(grid.horizon(fig, s) for s in grid.settings(fig).values())
            steps, interpreted = layout.job_steps(paper, fig)
            request = resources.simulation(paper, horizon, size, steps, interpreted=interpreted)
            assert request.mem_mb <= 2048 and request.runtime <= 60, (paper, request)


def test_jobs_reading_a_figure_ask_for_its_recorded_values(root) -> None:
    """The citable arena run's summary job peaked at 1,927 MB and 82 s, its leaderboard's at
    1,646 MB and 75 s (Snakemake's benchmarks of that run): the request covers both with room,
    while a figure drawn from the config alone keeps the base request."""
    full = cfg.load([root / "config/config.yaml", root / "config/arena-full.yaml"])
    # the figure at the 80 runs of the run those peaks were measured on (the config has 30 now)
    fig = {**cv.figure(full, "arena", "regret"), "replications": 80}
    values = layout.recorded_values(fig)
    # runs x settings x entrants (however many are declared) x checkpoints
    assert values == 80 * 138 * len(fig["algorithms"]) * 50
    request = resources.analysis(values)
    assert request.mem_mb >= 1.5 * 1927 and request.runtime * 60 >= 3 * 82
    assert resources.analysis(0) == resources.analysis() == resources.Request(1024, 5)
    density = next(f for p in full["papers"].values() for f in p.values() if not kinds.simulated(f))
    assert layout.recorded_values(density) == 0
