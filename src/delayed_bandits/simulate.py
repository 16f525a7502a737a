"""Run a shard of replications of a figure's curves (one, those of one setting, or every one),
each with its kernel."""

from __future__ import annotations

import faulthandler
import signal
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from delayed_bandits import algorithms, environment, provenance, seeds
from delayed_bandits import curves as cv
from delayed_bandits.errors import ConfigError, TimeLimitError
from delayed_bandits.tables import canonical_json, curve_key

TIME_LIMIT_S = 3600
"""A simulation job's time limit when the config sets none (key ``simulation_time_limit``): about
sixty times the longest job of the paper-scale run (``shard_size: auto`` aims at a minute)."""
# A kernel compiled by numba holds the interpreter until it returns, so the limit's own error can
# only be raised between Python steps (a user's Python policy that never returns is stopped);
# this long after the limit, the process is ended by faulthandler whatever it is running.
HARD_STOP_S = 60
# After the limit, the error is raised again this often until the block ends: a policy that
# swallows it (a bare ``except:``) meets it again on its next step.
REPEAT_S = 1.0


def _stderr_fd() -> int:
    """The descriptor of stderr (2 where sys.stderr is no file, as under pytest's capture)."""
    try:
        return sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return 2


@contextmanager
def time_limit(seconds: int, job: str) -> Iterator[None]:
    """Raise ``TimeLimitError`` naming ``job`` if the block runs longer than ``seconds``, again
    every ``REPEAT_S`` until the block ends, and at its end if the block swallowed it; end the
    process (its stack dumped to stderr) ``HARD_STOP_S`` later if the block cannot be
    interrupted."""
    message = (
        f"{job} ran longer than its time limit of {seconds} s (config key "
        "simulation_time_limit); no output was written. Raise the limit, or look for a "
        "policy that never returns"
    )
    passed = []

    def expired(signum: int, frame: Any) -> None:
        passed.append(True)
        raise TimeLimitError(message)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT_S)
    faulthandler.dump_traceback_later(seconds + HARD_STOP_S, exit=True, file=_stderr_fd())
    try:
        yield
        if passed:  # caught and dropped inside the block: its results are not to be trusted
            raise TimeLimitError(message)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)


# progress(replications done, replications in the shard, agent-steps done)
ProgressCallback = Callable[[int, int, int], None]
# The algorithms that share one realisation of the environment: the built setting they run on,
# and (curve name, registry entry) of each.
Group = tuple[Any, list[tuple[str, algorithms.Algorithm]]]


def run_shard(
    config: Mapping[str, Any],
    paper: str,
    figure: str,
    setting: str,
    algorithm: str,
    first: int,
    last: int,
    progress: ProgressCallback | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pseudo-regret at the figure's checkpoints for replications ``first..last`` (inclusive),
    and the algorithm's side table of events (empty but for ``replication`` when it has none).

    Columns: replication, t, regret. Each replication draws its own environment from its own
    seed, so the rows of a replication do not depend on which shard computes them.
    ``progress``, if given, is called after every replication; it cannot change a number."""
    frame, events = run_curves(config, paper, figure, setting, [algorithm], first, last, progress)
    return frame.drop(columns="algorithm"), events.drop(columns="algorithm")


def run_curves(
    config: Mapping[str, Any],
    paper: str,
    figure: str,
    setting: str,
    names: Sequence[str],
    first: int,
    last: int,
    progress: ProgressCallback | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``run_shard`` for each algorithm of ``names`` (curves of the figure) on one setting:
    ``run_job`` on that setting alone, without its ``setting`` column."""
    frame, events = run_job(config, paper, figure, [setting], names, first, last, progress)
    return frame.drop(columns="setting"), events.drop(columns="setting")


def run_job(
    config: Mapping[str, Any],
    paper: str,
    figure: str,
    settings: Sequence[str],
    names: Sequence[str],
    first: int,
    last: int,
    progress: ProgressCallback | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Replications ``first..last`` of each algorithm of ``names`` (curves of the figure) on each
    setting of ``settings``: what one simulation job runs.

    Returns the regret frame (columns setting, algorithm, replication, t, regret) and the side
    tables of events (setting, algorithm, replication, then the algorithms' own columns), setting
    by setting and algorithm by algorithm in the order given: each curve's rows are exactly
    ``run_shard``'s. An algorithm that does not apply to a setting (``Algorithm.applies``) is not
    run there and has no rows; a setting where none applies is an error.

    A replication draws its environment once per distinct setting config among the algorithms (a
    variant may change the setting), and every algorithm with that config runs on that draw,
    with the replication's policy seed, as it would alone. Everything a curve's numbers depend on
    is read from its spec (``provenance.curve_specs``), the one whose hash its shard records.
    ``progress`` is called after each replication of every setting, with agent-steps counted as
    horizon x algorithms run."""
    fig = config["papers"][paper][figure]
    cv.check_curves(paper, figure, fig, settings, names)
    if not 0 <= first <= last < int(fig["replications"]):
        raise ConfigError(
            f"--reps {first}-{last}: need 0 <= first <= last < {int(fig['replications'])} "
            f"(papers.{paper}.{figure}.replications)"
        )
    plugin = algorithms.experiment(paper)
    specs = provenance.curve_specs(config, paper, figure, [(s, n) for s in settings for n in names])
    jobs = [
        _Curves.of(paper, figure, s, {n: specs[curve_key(s, n)] for n in names}) for s in settings
    ]
    frames: dict[tuple[str, str], list[pd.DataFrame]] = {
        (job.setting, name): [] for job in jobs for name in job.ran
    }
    found: dict[tuple[str, str], list[pd.DataFrame]] = {key: [] for key in frames}
    steps = 0
    for r in range(first, last + 1):
        for job in jobs:
            env_seed, policy_seed = seeds.replication_seeds(
                job.seed, paper, figure, job.seed_setting, r
            )
            for st, members in job.groups:
                env = plugin.draw_environment(env_seed, job.horizon, st)
                for name, algo in members:
                    regret, actions, events = algo.kernel(
                        st, env, job.checkpoints, seeds.as_int(policy_seed)
                    )
                    if algo.audited and r == 0 and algo.kernel is not algo.reference:
                        audit(algo, st, env, job, seeds.as_int(policy_seed), actions)
                    frames[job.setting, name].append(
                        pd.DataFrame(
                            {
                                "setting": job.setting,
                                "algorithm": name,
                                "replication": np.full(len(job.checkpoints), r, dtype=np.int64),
                                "t": job.checkpoints,
                                "regret": regret,
                            }
                        )
                    )
                    if events is not None:
                        found[job.setting, name].append(
                            events.assign(setting=job.setting, algorithm=name, replication=r)
                        )
            steps += job.horizon * len(job.ran)
        if progress is not None:
            progress(r - first + 1, last - first + 1, steps)
    side = [
        pd.DataFrame(
            {
                "setting": pd.Series([], dtype=str),
                "algorithm": pd.Series([], dtype=str),
                "replication": pd.Series([], dtype=np.int64),
            }
        )
    ]
    events = pd.concat(side + [e for key in frames for e in found[key]], ignore_index=True)
    first_columns = ["setting", "algorithm", "replication"]
    return (
        pd.concat([f for key in frames for f in frames[key]], ignore_index=True),
        events[first_columns + [c for c in events.columns if c not in first_columns]],
    )


def audit(
    algo: algorithms.Algorithm, st: Any, env: Any, job: _Curves, seed: int, actions: np.ndarray
) -> None:
    """``ConfigError`` naming ``algo``, the setting and the first round where its reference,
    played on the same replication, takes another arm than its kernel's ``actions``: a kernel
    not built in is held to its policy on replication 0 of every setting at the setting's
    horizon, once per run, before its results count (``Algorithm.audited``). Replication 0 is in
    one shard of each setting, and the summary reads every shard."""
    _, expected, _ = algo.reference(st, env, job.checkpoints, seed)
    differ = np.flatnonzero(np.asarray(actions) != np.asarray(expected))
    if differ.size:
        t = int(differ[0]) + 1
        raise ConfigError(
            f"entrant {algo.id!r}: its kernel played arm {int(actions[t - 1])} at round {t} of "
            f"replication 0 of setting {job.setting}, its reference (the policy) arm "
            f"{int(expected[t - 1])}; a kernel must take its policy's actions. No output was "
            f"written (check it with: delayed-bandits check-entrant {algo.id})"
        )


@dataclass(frozen=True)
class _Curves:
    """What a job runs on one setting: the algorithms that apply (``ran``), grouped by the
    setting config they run on, with the setting's horizon and checkpoints, and the root seed
    and setting id its seeds derive from (``seeds.replication_seeds``)."""

    setting: str
    ran: list[str]
    groups: list[Group]
    horizon: int
    checkpoints: np.ndarray
    seed: int
    seed_setting: str

    @classmethod
    def of(
        cls, paper: str, figure: str, setting: str, specs: Mapping[str, Mapping[str, Any]]
    ) -> _Curves:
        """The curves of ``specs`` (each algorithm's spec on ``setting``, by algorithm); every
        spec of one setting has the same horizon, checkpoints and seeds."""
        groups, skipped = _groups(paper, specs, f"{paper}.{figure}.{setting}")
        if len(skipped) == len(specs):
            reasons = "; ".join(f"{name}: {why}" for name, why in skipped.items())
            raise ConfigError(
                f"no algorithm of {', '.join(specs)} applies to setting {setting} "
                f"of papers.{paper}.{figure} ({reasons})"
            )
        spec = next(iter(specs.values()))
        return cls(
            setting,
            [name for name in specs if name not in skipped],
            groups,
            spec["horizon"],
            environment.checkpoint_grid(spec["horizon"], int(spec["checkpoints"])),
            spec["seed"],
            spec["seed_setting"],
        )


def _groups(
    paper: str, specs: Mapping[str, Mapping[str, Any]], where: str
) -> tuple[list[Group], dict[str, str]]:
    """The algorithms of ``specs`` (by name) that apply to the setting, grouped by the setting
    config they run on (canonical JSON, so equal configs share a group whatever their key
    order), in the order of their first member; and why each of the others does not apply."""
    plugin = algorithms.experiment(paper)
    groups: dict[bytes, Group] = {}
    skipped: dict[str, str] = {}
    for name, spec in specs.items():
        key = canonical_json(spec["setting"])
        if key not in groups:
            groups[key] = (plugin.Setting.from_config(spec["setting"], where), [])
        algo = algorithms.get(paper, spec["algorithm"])
        reason = algo.applies(groups[key][0])
        if reason:
            skipped[name] = reason
        else:
            groups[key][1].append((name, algo))
    return [group for group in groups.values() if group[1]], skipped
