"""Seed derivation: every random stream comes from an explicit, stable seed.

Replication ``r`` of (paper, figure, setting) gets ``SeedSequence((base_seed, paper, figure,
setting, r))`` with stable 32-bit ids (never Python's salted ``hash``). Its first child seeds the
environment (shared by every algorithm: common random numbers), its second the policy's own
randomness. A shard is a range of replications, so shard size and core count cannot change a
number.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

import numpy as np

from delayed_bandits import grid, papers


def paper_id(paper: str) -> int:
    """The paper's part of every seed: its registered ``seed_id``."""
    return papers.get(paper).seed_id


def stable_id(name: str) -> int:
    """A 32-bit id of a string that is the same on every machine and Python run."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def setting_entropy(base_seed: int, paper: str, figure: str, setting: str) -> list[int]:
    """The entropy of a setting's replications but for the replication index, which comes last;
    provenance records it so that a reader can re-derive any replication's streams."""
    return [base_seed, paper_id(paper), stable_id(figure), stable_id(setting)]


def replication_seeds(
    base_seed: int, paper: str, figure: str, setting: str, replication: int
) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(environment, policy) seed sequences of one replication."""
    root = np.random.SeedSequence(
        setting_entropy(base_seed, paper, figure, setting) + [replication]
    )
    env, policy = root.spawn(2)
    return env, policy


def seed_name(fig: Mapping[str, Any], setting: str) -> str:
    """The setting id the environment's seed uses: the setting's own, but for the dimensions
    along which the figure's settings face the same draws (a paired comparison along them: common
    random numbers), where it takes the part of the id that dimension would give its first value.
    Those dimensions are every setting (``shared_draws``: the first listed setting's id), a sweep
    of an algorithm's parameter (``sweep.environment: false``: the listed setting's id, without
    the sweep's index), each grid axis with ``paired: true`` (the name of its first value:
    every window m of the arena's window study draws as its first m), and a listed setting with
    ``draws_as`` (the listed setting it shares its draws with: the arena's reward-dependent
    regime faces its reward-independent twin's conversions)."""
    if fig.get("shared_draws", False):
        return next(iter(fig["settings"]))
    sweep = fig.get("sweep") or {}
    axes = fig.get("grid") or ()
    paired_sweep = bool(sweep) and not sweep.get("environment", True)
    listed = fig["settings"]
    if (
        not paired_sweep
        and not any(axis.get("paired", False) for axis in axes)
        and not any("draws_as" in cfg for cfg in listed.values())
    ):
        return setting
    p = grid.point(fig, setting)
    return grid.Point(
        listed[p.listed].get("draws_as", p.listed),
        index=None if paired_sweep else p.index,
        names=tuple(
            axis["names"][0] if axis.get("paired", False) else name
            for axis, name in zip(axes, p.names)
        ),
    ).id


def setting_seeds(
    config: Mapping[str, Any], paper: str, figure: str, setting: str, replication: int
) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """(environment, policy) seed sequences of a replication of one of the figure's settings:
    ``replication_seeds`` under the config's root seed and the setting's ``seed_name``. The
    simulation and the replay of a run both draw from these."""
    fig = config["papers"][paper][figure]
    return replication_seeds(config["seed"], paper, figure, seed_name(fig, setting), replication)


def as_int(seed: np.random.SeedSequence) -> int:
    """A 63-bit integer from a seed sequence, for kernels that seed numba's own generator."""
    return int(seed.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def analysis_seed(base_seed: int, paper: str, figure: str, purpose: str) -> np.random.SeedSequence:
    """Seed of a figure-level analysis step (e.g. the bootstrap), apart from every replication."""
    return np.random.SeedSequence(
        [base_seed, paper_id(paper), stable_id(figure), stable_id(purpose), 2**32 - 1]
    )
