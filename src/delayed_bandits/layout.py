"""How a run of a config splits a figure's replications into shards and where it puts its
results: the shards' ranges and sizes, the paths of a figure's shards and tables, and every file a
whole run (``snakemake``, rule ``all``) makes under results/, figures/ and reports/. The workflow
lists its jobs' inputs from here (workflow/rules/common.smk) and ``delayed-bandits verify`` checks
a run is complete against it, so the two cannot disagree.

Paths are relative to the run's directory (the top of the repository at the paper scale,
``<scale>/`` at another: ``config.output_prefix``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from delayed_bandits import curves as cv
from delayed_bandits import grid, kinds, papers
from delayed_bandits import resources as rs
from delayed_bandits.tables import sidecar_path


def shards(replications: int, shard_size: int) -> list[tuple[int, int]]:
    """Replication ranges (first, last), both inclusive, of at most ``shard_size`` runs."""
    return [(a, min(a + shard_size, replications) - 1) for a in range(0, replications, shard_size)]


def contest_paths(paper: str, figure: str, plan: Mapping[str, Any]) -> list[str]:
    """The shards of the contest, the arena's second stage (``arena.leaderboard.screen_plan``):
    one job per setting with contenders, its contenders on all the stage's replications
    ``first`` to ``last`` (``<setting>/contest<first>-<last>``). A setting's contenders are a
    part of a figure's curves, and a job per curve or per replication would pay an interpreter's
    start-up and the kernels' load for each of thousands."""
    first, last = int(plan["first"]), int(plan["last"])
    return [
        f"results/{paper}/{figure}/{setting}/contest{first}-{last}.parquet"
        for setting in plan["settings"]
    ]


def shard_size(config: Mapping[str, Any], paper: str, fig: Mapping[str, Any]) -> int:
    """Replications per job: the figure's own ``shard_size`` or the global one; ``auto`` asks the
    resource model (``resources.auto_shard_size``) for the fewest jobs of bounded length."""
    size = fig.get("shard_size", config["shard_size"])
    if size == "auto":
        steps, interpreted = job_steps(paper, fig)
        return rs.auto_shard_size(paper, steps, cv.first_stage(fig), interpreted)
    return int(size)


def job_steps(paper: str, fig: Mapping[str, Any]) -> tuple[int, int]:
    """Agent-steps of one replication in the figure's largest simulation job: the horizons of the
    curves it may run (every algorithm counts, whether or not it applies), as (those of
    algorithms with a compiled kernel, those of algorithms without, ``curves.interpreted``),
    which the resource model times apart."""
    horizons = [grid.horizon(fig, s) for s in grid.settings(fig).values()]
    slow = sum(cv.interpreted(paper, fig, name) for name in fig["algorithms"])
    counts = (len(fig["algorithms"]) - slow, slow)
    kind = cv.simulate_jobs(fig)
    if kind == "per_curve":  # the slowest curve
        return (0, max(horizons)) if slow else (max(horizons), 0)
    steps = max(horizons) if kind == "per_setting" else sum(horizons)
    return steps * counts[0], steps * counts[1]


def simulation_request(
    paper: str, fig: Mapping[str, Any], curves: Sequence[tuple[str, str]], replications: int
) -> rs.Request:
    """Memory and run time of one shard of ``replications`` replications of the figure's
    ``curves`` ((setting, algorithm) pairs, run one after another: the workflow's simulation
    jobs), each curve's horizon counted at the rate of its algorithm (``curves.interpreted``)."""
    if not curves:  # a job with no curve has no request of its own: its command says why
        return rs.simulation(paper, int(fig["horizon"]), replications)
    all_settings = grid.settings(fig)
    rounds = [grid.horizon(fig, all_settings[setting]) for setting, _ in curves]
    steps = [0, 0]  # with a compiled kernel, without
    for (_, algorithm), horizon in zip(curves, rounds):
        steps[cv.interpreted(paper, fig, algorithm)] += horizon
    return rs.simulation(paper, max(rounds), replications, steps[0], interpreted=steps[1])


def recorded_values(fig: Mapping[str, Any]) -> int:
    """How many regret values a simulated figure records (every run of every curve at every
    checkpoint, counting every (setting, algorithm) pair, so an upper bound): what a job reading
    all its shards holds (``resources.analysis``); 0 for a figure drawn from the config alone."""
    if not kinds.simulated(fig):
        return 0
    n_curves = len(grid.settings(fig)) * len(fig["algorithms"])
    return int(fig["replications"]) * n_curves * int(fig["checkpoints"])


def shard_paths(
    config: Mapping[str, Any],
    paper: str,
    figure: str,
    suffix: str = "parquet",
    curves: Sequence[tuple[str, str]] | None = None,
) -> list[str]:
    """A figure's shards: rep<a>-<b> (per_figure, the default), <setting>/rep<a>-<b> per setting
    that has a curve (per_setting), or <setting>/<algorithm>/rep<a>-<b> per curve (per_curve),
    over the replications every curve runs (``curves.first_stage``: the arena's screen); none
    for a figure drawn from the configuration alone. ``suffix``: ``events.parquet`` for the
    side tables beside them; ``curves``: the figure's ``curves.curves``, when the caller has them
    (working them out builds every setting)."""
    fig = cv.figure(config, paper, figure)
    if not kinds.simulated(fig):
        return []
    if curves is None:
        curves = cv.curves(paper, figure, fig)
    kind = cv.simulate_jobs(fig)
    if kind == "per_figure":
        jobs = [""]
    elif kind == "per_setting":
        jobs = [f"{setting}/" for setting in dict.fromkeys(setting for setting, _ in curves)]
    else:
        jobs = [f"{setting}/{algorithm}/" for setting, algorithm in curves]
    return [
        f"results/{paper}/{figure}/{job}rep{a}-{b}.{suffix}"
        for job in jobs
        for a, b in shards(cv.first_stage(fig), shard_size(config, paper, fig))
    ]


def figure_tables(config: Mapping[str, Any], paper: str, figure: str) -> dict[str, str]:
    """The summary, and the tables the figure's kind reads besides (kinds.Kind.tables), by name;
    none for a figure drawn from the configuration alone."""
    fig = cv.figure(config, paper, figure)
    if not kinds.simulated(fig):
        return {}
    return {
        name: f"results/{paper}/{figure}/{name}.csv" for name in ("summary", *kinds.tables(fig))
    }


def expected(config: Mapping[str, Any], notebooks: Iterable[str] = ()) -> list[str]:
    """Every file a whole run of ``config`` makes under results/, figures/ and reports/, sorted:
    each figure's shards and side tables, tables with their records, the summary's provenance
    page, claims and figure; each paper's own outputs (``Paper.extra_targets``) and claims; the
    claims of the run; and a page per notebook (``notebooks``: their names)."""
    found: list[str] = ["results/claims.md"]
    for paper, figures in config["papers"].items():
        found += [f"results/{paper}/claims.md", *papers.get(paper).extra_targets]
        for figure in figures:
            found += shard_paths(config, paper, figure)
            found += shard_paths(config, paper, figure, "events.parquet")
            tables = list(figure_tables(config, paper, figure).values())
            found += tables + [sidecar_path(Path(t)).as_posix() for t in tables]
            if tables:
                found.append(f"results/{paper}/{figure}/summary.provenance.html")
            claims = f"results/{paper}/{figure}/claims.json"
            found += [claims, sidecar_path(Path(claims)).as_posix()]
            found.append(f"results/{paper}/{figure}/claims.html")
            found += [f"figures/{paper}-{figure}.{ext}" for ext in ("pdf", "png")]
    found += [f"reports/{name}.html" for name in notebooks]
    return sorted(set(found))


def notebooks(workdir: Path) -> list[str]:
    """The notebooks a run in ``workdir`` renders (its notebooks/ folder), by name."""
    return sorted(path.stem for path in (workdir / "notebooks").glob("*.ipynb"))
