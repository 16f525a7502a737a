"""Run a shard of replications of one (paper, figure, setting), for one algorithm or several, each
with its kernel."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from delayed_bandits import algorithms, environment, seeds
from delayed_bandits import config as cfg
from delayed_bandits.errors import ConfigError
from delayed_bandits.provenance import canonical_json

# progress(replications done, replications in the shard, agent-steps done)
ProgressCallback = Callable[[int, int, int], None]
# The algorithms that share one realisation of the environment: the built setting they run on,
# and (curve name, registry entry) of each.
Group = tuple[Any, list[tuple[str, algorithms.Algorithm]]]


def run_shard(config: Mapping[str, Any], paper: str, figure: str, setting: str, algorithm: str,
              first: int, last: int, progress: ProgressCallback | None = None,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pseudo-regret at the figure's checkpoints for replications ``first..last`` (inclusive),
    and the algorithm's side table of events (empty but for ``replication`` when it has none).

    Columns: replication, t, regret. Each replication draws its own environment from its own
    seed, so the rows of a replication do not depend on which shard computes them.
    ``progress``, if given, is called after every replication; it cannot change a number."""
    frame, events = run_curves(config, paper, figure, setting, [algorithm], first, last, progress)
    return frame.drop(columns="algorithm"), events.drop(columns="algorithm")


def run_curves(config: Mapping[str, Any], paper: str, figure: str, setting: str,
               names: Sequence[str], first: int, last: int,
               progress: ProgressCallback | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``run_shard`` for each algorithm of ``names`` (curves of the figure) on one setting.

    Returns the regret frame (columns algorithm, replication, t, regret) and the side tables of
    events (algorithm, replication, then the algorithms' own columns), algorithm by algorithm in
    the order given: each algorithm's rows are exactly ``run_shard``'s. An algorithm that does not
    apply to the setting (``Algorithm.applies``) is not run and has no rows.

    A replication draws its environment once per distinct setting config among the algorithms (a
    variant may change the setting), and every algorithm with that config runs on that draw,
    with the replication's policy seed, as it would alone. ``progress`` counts agent-steps as
    replications x horizon x algorithms run."""
    fig = config["papers"][paper][figure]
    all_settings = cfg.settings(fig)
    if setting not in all_settings:
        raise ConfigError(f"--setting {setting!r} is not one of {', '.join(all_settings)} "
                          f"(papers.{paper}.{figure}.settings)")
    for name in names:
        if name not in fig["algorithms"]:
            raise ConfigError(f"--algorithm {name!r} is not one of "
                              f"{', '.join(fig['algorithms'])} "
                              f"(papers.{paper}.{figure}.algorithms)")
    twice = sorted({name for name in names if list(names).count(name) > 1})
    if twice:
        raise ConfigError(f"--algorithm {', '.join(twice)} given more than once")
    if not 0 <= first <= last < fig["replications"]:
        raise ConfigError(f"--reps {first}-{last}: need 0 <= first <= last < "
                          f"{fig['replications']} (papers.{paper}.{figure}.replications)")
    groups, skipped = _groups(paper, fig, all_settings[setting], names,
                              f"{paper}.{figure}.{setting}")
    ran = [name for name in names if name not in skipped]
    if not ran:
        reasons = "; ".join(f"{name}: {why}" for name, why in skipped.items())
        raise ConfigError(f"no algorithm of {', '.join(names)} applies to setting {setting} of "
                          f"papers.{paper}.{figure} ({reasons})")
    horizon = cfg.horizon(fig, all_settings[setting])
    seed_setting = cfg.seed_name(fig, setting)
    cp = environment.checkpoint_grid(horizon, int(fig["checkpoints"]))
    plugin = algorithms.experiment(paper)
    frames: dict[str, list[pd.DataFrame]] = {name: [] for name in ran}
    side = [pd.DataFrame({"algorithm": pd.Series([], dtype=str),
                          "replication": pd.Series([], dtype=np.int64)})]
    found: dict[str, list[pd.DataFrame]] = {name: [] for name in ran}
    for r in range(first, last + 1):
        env_seed, policy_seed = seeds.replication_seeds(config["seed"], paper, figure,
                                                        seed_setting, r)
        for st, members in groups:
            env = plugin.draw_environment(env_seed, horizon, st)
            for name, algo in members:
                regret, _, events = algo.kernel(st, env, cp, seeds.as_int(policy_seed))
                frames[name].append(pd.DataFrame({
                    "algorithm": name, "replication": np.full(len(cp), r, dtype=np.int64),
                    "t": cp, "regret": regret}))
                if events is not None:
                    found[name].append(events.assign(algorithm=name, replication=r))
        if progress is not None:
            done = r - first + 1
            progress(done, last - first + 1, done * horizon * len(ran))
    events = pd.concat(side + [e for name in ran for e in found[name]], ignore_index=True)
    first_columns = ["algorithm", "replication"]
    return (pd.concat([f for name in ran for f in frames[name]], ignore_index=True),
            events[first_columns + [c for c in events.columns if c not in first_columns]])


def _groups(paper: str, fig: Mapping[str, Any], setting_cfg: Mapping[str, Any],
            names: Sequence[str], where: str) -> tuple[list[Group], dict[str, str]]:
    """The algorithms of ``names`` that apply to the setting, grouped by their resolved setting
    config (canonical JSON, so equal configs share a group whatever their key order), in the
    order of their first member; and why each of the others does not apply."""
    plugin = algorithms.experiment(paper)
    groups: dict[bytes, Group] = {}
    skipped: dict[str, str] = {}
    for name in names:
        registry_id, resolved = cfg.resolve(fig, setting_cfg, name)
        key = canonical_json(resolved)
        if key not in groups:
            groups[key] = (plugin.Setting.from_config(resolved, where), [])
        algo = algorithms.get(paper, registry_id)
        reason = algo.applies(groups[key][0])
        if reason:
            skipped[name] = reason
        else:
            groups[key][1].append((name, algo))
    return [group for group in groups.values() if group[1]], skipped
