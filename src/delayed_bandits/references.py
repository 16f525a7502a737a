"""What the readable reference policies share: the lowest-index argmax, and the loop that plays a
policy on arm-labelled delayed conversions.

A policy of that feedback model (Vernade et al. 2017's, the arena's, yours: docs/extending.md) has
three methods: ``choose(t)`` returns the arm (0-based) of round t = 1..T; ``played(t, arm)`` is
told the pull; ``observe(s, arm, delay)`` is told, at the start of a round, that the pull of
``arm`` at round s converted, ``delay`` rounds later.

A policy that observes every outcome, 0 or 1 (labelled outcomes, as QPM-D's queues need), has
``observe_outcome(s, arm, reward, delay)`` instead, played by ``run_outcomes``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from delayed_bandits.errors import ConfigError


def first_argmax(values: list[float]) -> int:
    """Index of the largest value, the lowest index on ties."""
    return max(range(len(values)), key=lambda k: (values[k], -k))


def checked_arm(arm: Any, t: int, n_arms: int, who: str) -> int:
    """``arm``, the choice of ``who`` (e.g. "entrant 'my-id'") at round t, if it is an arm: an
    integer in 0..K-1 (Python's or numpy's, not a bool). Anything else raises ``ConfigError``
    naming who, the round and the value: -1 would index the last arm, 2.0 or True would
    index one, without a word."""
    if isinstance(arm, (int, np.integer)) and not isinstance(arm, bool) and 0 <= arm < n_arms:
        return int(arm)
    raise ConfigError(
        f"{who} chose arm {arm!r} ({type(arm).__name__}) at round {t}; an arm is an integer "
        f"in 0..{n_arms - 1} (K = {n_arms})"
    )


def run(
    policy: Any,
    theta: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    window: int | None,
    usable: Callable[[int, int], int] = lambda s, d: s + d + 1,
    who: str = "the policy",
) -> np.ndarray:
    """Play one replication with a reference policy (anything with choose(t), played(t, arm) and
    observe(s, arm, delay), e.g. Vernade et al. 2017's ``DelayedIndexPolicy``); returns the arms
    played (0-based).

    A pull at round s converts iff uniforms[s-1, arm] < theta[arm]; the conversion reaches the
    learner at the start of round ``usable(s, D)`` (s + D + 1, Vernade et al. 2017's timing, by
    default), if D <= window (censored) and that round exists. Each arm ``choose`` returns is
    checked (``checked_arm``; ``who`` names the policy in the error)."""
    horizon = uniforms.shape[0]
    pending: dict[int, list[tuple[int, int, int]]] = {}
    actions = []
    for t in range(1, horizon + 1):
        for s, arm, delay in pending.pop(t, []):
            policy.observe(s, arm, delay)
        arm = checked_arm(policy.choose(t), t, len(theta), who)
        policy.played(t, arm)
        actions.append(arm)
        delay = int(delays[t - 1, arm])
        converted = uniforms[t - 1, arm] < theta[arm]
        arrival = usable(t, delay)
        if converted and (window is None or delay <= window) and arrival <= horizon:
            pending.setdefault(arrival, []).append((t, arm, delay))
    return np.array(actions, dtype=np.int64)


class _Outcomes:
    """A policy with ``observe_outcome`` seen through ``run``'s conversions: ``run_outcomes`` makes
    every pull "convert", and this adds the pull's reward, read from the realisation."""

    def __init__(self, policy: Any, theta: np.ndarray, uniforms: np.ndarray) -> None:
        self.policy, self.theta, self.uniforms = policy, theta, uniforms

    def choose(self, t: int) -> int:
        return self.policy.choose(t)

    def played(self, t: int, arm: int) -> None:
        self.policy.played(t, arm)

    def observe(self, s: int, arm: int, delay: int) -> None:
        reward = 1.0 if self.uniforms[s - 1, arm] < self.theta[arm] else 0.0
        self.policy.observe_outcome(s, arm, reward, delay)


def run_outcomes(
    policy: Any,
    theta: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    usable: Callable[[int, int], int] = lambda s, d: s + d + 1,
    who: str = "the policy",
) -> np.ndarray:
    """Play one replication with a policy that observes every outcome: the reward of the pull at
    round s, 1 iff uniforms[s-1, arm] < theta[arm], reaches ``observe_outcome(s, arm, reward, D)``
    at the start of round ``usable(s, D)`` (s + D + 1 by default) if that round exists. Returns
    the arms played (0-based), each checked as ``run`` checks it."""
    always = np.full(len(theta), np.inf)  # every pull "converts": its outcome is delivered
    return run(_Outcomes(policy, theta, uniforms), always, uniforms, delays, None, usable, who)
