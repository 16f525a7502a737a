"""Run a shard of replications of one (paper, figure, setting, algorithm) with its kernel."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import algorithms, environment, seeds
from delayed_bandits import config as cfg
from delayed_bandits.errors import ConfigError

# progress(replications done, replications in the shard, agent-steps done)
ProgressCallback = Callable[[int, int, int], None]


def run_shard(config: Mapping[str, Any], paper: str, figure: str, setting: str, algorithm: str,
              first: int, last: int, progress: ProgressCallback | None = None,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pseudo-regret at the figure's checkpoints for replications ``first..last`` (inclusive),
    and the algorithm's side table of events (empty but for ``replication`` when it has none).

    Columns: replication, t, regret. Each replication draws its own environment from its own
    seed, so the rows of a replication do not depend on which shard computes them.
    ``progress``, if given, is called after every replication; it cannot change a number."""
    fig = config["papers"][paper][figure]
    all_settings = cfg.settings(fig)
    if setting not in all_settings:
        raise ConfigError(f"--setting {setting!r} is not one of {', '.join(all_settings)} "
                          f"(papers.{paper}.{figure}.settings)")
    if algorithm not in fig["algorithms"]:
        raise ConfigError(f"--algorithm {algorithm!r} is not one of {', '.join(fig['algorithms'])} "
                          f"(papers.{paper}.{figure}.algorithms)")
    if not 0 <= first <= last < fig["replications"]:
        raise ConfigError(f"--reps {first}-{last}: need 0 <= first <= last < "
                          f"{fig['replications']} (papers.{paper}.{figure}.replications)")
    registry_id, setting_cfg = cfg.resolve(fig, all_settings[setting], algorithm)
    algo = algorithms.get(paper, registry_id)
    plugin = algorithms.experiment(paper)
    st = plugin.Setting.from_config(setting_cfg, f"{paper}.{figure}.{setting}")
    horizon = cfg.horizon(fig, all_settings[setting])
    seed_setting = cfg.seed_name(fig, setting)
    cp = environment.checkpoint_grid(horizon, int(fig["checkpoints"]))
    frames, side = [], [pd.DataFrame({"replication": pd.Series([], dtype=np.int64)})]
    for r in range(first, last + 1):
        env_seed, policy_seed = seeds.replication_seeds(config["seed"], paper, figure,
                                                        seed_setting, r)
        env = plugin.draw_environment(env_seed, horizon, st)
        regret, _, events = algo.kernel(st, env, cp, seeds.as_int(policy_seed))
        frames.append(pd.DataFrame({"replication": np.full(len(cp), r, dtype=np.int64),
                                    "t": cp, "regret": regret}))
        if events is not None:
            side.append(events.assign(replication=r))
        if progress is not None:
            done = r - first + 1
            progress(done, last - first + 1, done * horizon)
    events = pd.concat(side, ignore_index=True)
    return pd.concat(frames, ignore_index=True), events[["replication"] + [
        c for c in events.columns if c != "replication"]]
