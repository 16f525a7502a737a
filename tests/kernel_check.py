"""The check every paper's tests make: a kernel and its reference, run on the same realisation
with the same policy seed, take the same actions and report the same regret, bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np

from delayed_bandits.algorithms import Algorithm


def same_run(
    alg: Algorithm, setting: Any, env: Any, checkpoints: np.ndarray, seed: int
) -> tuple[np.ndarray, np.ndarray, Any, Any]:
    """Assert identical actions (naming the first round that differs) and identical regret;
    returns (regret, actions, kernel events, reference events) for further checks."""
    regret_k, actions_k, events_k = alg.kernel(setting, env, checkpoints, seed)
    regret_r, actions_r, events_r = alg.reference(setting, env, checkpoints, seed)
    mismatch = np.flatnonzero(actions_k != actions_r)
    assert mismatch.size == 0, f"first different action at round {mismatch[:1] + 1}"
    np.testing.assert_array_equal(regret_k, regret_r)
    return regret_k, actions_k, events_k, events_r
