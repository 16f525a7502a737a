"""Small compiled pieces the kernels share."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def arrival_lists(horizon: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(head, tail, link) of per-round FIFO lists of pulls: the pulls whose feedback becomes
    usable at round t are head[t], link[head[t]], ... (-1 ends a list), in the order they were
    made. Rounds are 1-based; index horizon + 1 is spare."""
    return (
        np.full(horizon + 2, -1, dtype=np.int64),
        np.full(horizon + 2, -1, dtype=np.int64),
        np.full(horizon + 1, -1, dtype=np.int64),
    )


@njit(cache=True)
def enqueue(head: np.ndarray, tail: np.ndarray, link: np.ndarray, due: int, pull: int) -> None:
    """Append the pull made at round ``pull`` to the list of round ``due``."""
    if head[due] < 0:
        head[due] = pull
    else:
        link[tail[due]] = pull
    tail[due] = pull


@njit(cache=True)
def record(t: int, regret: float, checkpoints: np.ndarray, out: np.ndarray, ci: int) -> int:
    """Store the regret if t is the next checkpoint; returns the next checkpoint's index."""
    if ci < checkpoints.shape[0] and checkpoints[ci] == t:
        out[ci] = regret
        ci += 1
    return ci
