"""What a job asks a cluster scheduler for: memory and run time, from the config.

Every kernel is single-threaded, and a shard runs its replications one after another, keeping
one realisation of the environment in memory at a time. So a simulation job's run time grows
with replications x agent-steps per replication (the horizons of the curves it runs, one after
another: one curve, those of a setting or those of a figure) and its memory with the largest
horizon alone.

The rates below are measured, not guessed: the slowest simulation job of each paper in the
paper-scale run on the development machine (2 cores, ``benchmarks/<paper>/...``), net of Python
start-up, then rounded down by about a third. Run time is asked for with a factor of three on
top, so that a slower cluster node or a busy file system does not kill a job at its limit."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

from delayed_bandits import papers
from delayed_bandits.errors import ConfigError

# The rates are each paper's registration (papers/<paper>/__init__.py): ``steps_per_second``, the
# slowest (setting, algorithm) job at its largest horizon, asks for run time; and
# ``shard_steps_per_second``, the slowest job of one whole figure (simulate_jobs: per_figure, every
# algorithm of it), sizes `shard_size: auto` shards. Both are net of Python start-up and rounded
# down by about a third. A figure of only the slowest algorithms runs longer than the second says,
# which only makes its shards longer: the requests still cover it.
# Resident memory of the largest job was 403 MB at T = 10^6 (Thune et al.), 255 MB of it the
# interpreter with numpy, pandas and the compiled kernels: 150 bytes per round, asked for as 400.
BASE_MB = 512
BYTES_PER_ROUND = 400
# The rates and BYTES_PER_ROUND were measured on at most ARMS_MEASURED arms (Vernade et al. 2020's
# actions, the arena's grid). Each arm beyond adds a value per round to a realisation (Thune et
# al.'s losses, the arena's draws are T x K arrays) and an entry to the arena's K x K basis (its
# linear entrants see each arm as a vector), and a step of an index policy costs K / ARMS_MEASURED
# of a measured one.
ARMS_MEASURED = 10
BYTES_PER_ARM_ROUND = 8
BYTES_PER_ARM_PAIR = 8
# A kernel told a window m holds tables of m + 1 cells (Vernade et al. 2017's CDF τ(0..m), the
# Kaplan-Meier fit's deaths, survival and each arm's pulls in flight): float64s, one table per arm
# and a few more, counted as K + 4 tables, so that a window of 10^12 is refused before any job
# runs (config.validate) rather than failing to allocate inside one.
BYTES_PER_WINDOW_CELL = 8
WINDOW_TABLES_BEYOND_ARMS = 4
# An algorithm without a compiled kernel (``Algorithm.interpreted``: an arena entrant declared
# without ``kernel=``, whose runs play its policy through ``references.run``) has no rate of its
# paper: its steps are timed at this rate instead, whatever the job. The slowest of the arena's
# policies played in plain Python (the references of ts, klucb, ucb1 and ucb1-matched, as
# `delayed-bandits bench --paper arena` times them, on BENCH and its uncensored reading, T = 20000:
# 30,000 to 150,000 steps/s, measured with both cores busy), rounded down by about a third.
# Chosen over timing each plug-in's policy when the workflow is planned: a timing would make
# `shard_size: auto`, hence the shards' paths, change from one run to the next
# (docs/decisions/engineering.md#interpreted-entrants).
REFERENCE_STEPS_PER_SECOND = 20_000
RUNTIME_FACTOR = 3
MIN_RUNTIME_MIN = 5
# A job reading a figure's tables: bytes and time per recorded value (the arena's full run read
# 12.5 M values in about 80 s per job at 1.6-1.9 GB)
BYTES_PER_VALUE = 200
VALUES_PER_SECOND = 150_000
# The caps a config is held to before any job runs (config.validate), so that a few digits too
# many fail at once, naming the key, rather than exhausting the machine hours later: a figure's
# simulations at most this many CPU hours at the paper's slowest rate (the largest shipped run,
# the arena at `make arena-full`, is estimated at 5), in at most this many jobs (it has 80).
MAX_FIGURE_CPU_HOURS = 1000
MAX_JOBS = 10_000
# `shard_size: auto`: a shard is estimated to run at most this long at the typical rate, so
# a figure takes as few jobs as that allows (each job pays about a second of Python start-up)
AUTO_SHARD_SECONDS = 60


@dataclass(frozen=True)
class Request:
    """A job's request: ``mem_mb`` megabytes and ``runtime`` minutes (Snakemake's own units)."""

    mem_mb: int
    runtime: int


def _seconds(
    paper: str, steps: int, replications: int, typical: bool = False, interpreted: int = 0
) -> float:
    """Estimated run time of ``replications`` replications of ``steps`` agent-steps each at the
    paper's slowest rate (its typical one, for a whole figure, when ``typical``), and of
    ``interpreted`` agent-steps each of algorithms without a compiled kernel at
    ``REFERENCE_STEPS_PER_SECOND``."""
    registration = papers.get(paper)
    if steps < 0 or interpreted < 0 or steps + interpreted <= 0:
        raise ConfigError(
            f"need a positive number of agent-steps per replication, got {steps} "
            f"(and {interpreted} without a kernel)"
        )
    rate = registration.shard_steps_per_second if typical else registration.steps_per_second
    return replications * (steps / rate + interpreted / REFERENCE_STEPS_PER_SECOND)


def simulation(
    paper: str,
    horizon: int,
    replications: int,
    steps: int | None = None,
    arms: int = 1,
    interpreted: int = 0,
    window: int = 0,
) -> Request:
    """Request of one shard: ``replications`` replications of ``steps`` agent-steps each (the
    horizons of the curves the job runs with compiled kernels, one after another; by default one
    curve, ``horizon``) and ``interpreted`` agent-steps each (those of curves whose algorithm has
    no compiled kernel, ``Algorithm.interpreted``), keeping one realisation of at most
    ``horizon`` rounds and ``arms`` arms in memory at a time, and the tables of a ``window``
    (m + 1 cells each, ``BYTES_PER_WINDOW_CELL``) where its kernels are told one."""
    if horizon <= 0 or replications <= 0:
        raise ConfigError(
            f"need a positive horizon and replication count, got {horizon} and {replications}"
        )
    seconds = _seconds(
        paper, horizon if steps is None else steps, replications, interpreted=interpreted
    )
    minutes = math.ceil(RUNTIME_FACTOR * seconds / 60)
    extra = max(0, arms - ARMS_MEASURED)
    held = horizon * (BYTES_PER_ROUND + BYTES_PER_ARM_ROUND * extra) + BYTES_PER_ARM_PAIR * extra**2
    held += (
        BYTES_PER_WINDOW_CELL * (window + 1) * (arms + WINDOW_TABLES_BEYOND_ARMS) if window else 0
    )
    return Request(mem_mb=BASE_MB + math.ceil(held / 1e6), runtime=max(MIN_RUNTIME_MIN, minutes))


def cpu_hours(
    paper: str,
    replications: int,
    curves: Sequence[tuple[int, int]],
    interpreted: Sequence[tuple[int, int]] = (),
) -> float:
    """Estimated CPU hours of ``replications`` replications of each curve, given as (rounds,
    arms), at the paper's slowest rate, and of each of ``interpreted`` (curves whose algorithm
    has no compiled kernel) at ``REFERENCE_STEPS_PER_SECOND`` (a step on K arms costing
    K / ``ARMS_MEASURED`` of a measured one, when K is larger)."""

    def steps(given: Sequence[tuple[int, int]]) -> int:
        return math.ceil(sum(rounds * max(1.0, arms / ARMS_MEASURED) for rounds, arms in given))

    return _seconds(paper, steps(curves), replications, interpreted=steps(interpreted)) / 3600


def auto_shard_size(paper: str, steps: int, replications: int, interpreted: int = 0) -> int:
    """Replications per shard for ``shard_size: auto``, for a job of ``steps`` agent-steps per
    replication with compiled kernels and ``interpreted`` without (``layout.job_steps``): the
    fewest shards whose estimated run time is at most ``AUTO_SHARD_SECONDS`` each at the paper's
    typical rate (``REFERENCE_STEPS_PER_SECOND`` for the steps without a kernel), sized evenly
    (e.g. 200 runs that take 130 s become 3 shards of 67)."""
    seconds = _seconds(paper, steps, replications, typical=True, interpreted=interpreted)
    n_shards = max(1, math.ceil(seconds / AUTO_SHARD_SECONDS))
    return math.ceil(replications / n_shards)


def analysis(values: int = 0) -> Request:
    """Request of the jobs that read a figure's tables: summaries, ratios, leaderboards,
    claims and plots, which hold the figure's ``values`` recorded values at once
    (``layout.recorded_values``). At paper scale the largest of the papers' took 12 s (a
    Pike-Burke et al. plot) and 413 MB (Thune et al.'s plot, which evaluates the regret bounds);
    the arena's full run (12.5 M values) peaked at 1.9 GB in its summary and 1.6 GB in its
    leaderboard, about 130 bytes a value, asked for as ``BYTES_PER_VALUE``."""
    minutes = math.ceil(RUNTIME_FACTOR * values / VALUES_PER_SECOND / 60)
    return Request(
        mem_mb=2 * BASE_MB + math.ceil(values * BYTES_PER_VALUE / 1e6),
        runtime=max(MIN_RUNTIME_MIN, minutes),
    )


def physical_memory_mb() -> int:
    """The memory of this machine, in MB: a config whose largest job asks for more is refused
    when it is validated (``config.validate``), rather than failing in the job."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 1_000_000
