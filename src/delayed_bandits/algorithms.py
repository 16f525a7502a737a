"""The registry: every algorithm by paper and path-safe id, with its paper name, its compiled
kernel and its plain-Python reference. The CLI, the config schema's checks and the docs read
this one list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from delayed_bandits import delays
from delayed_bandits.environment import Realisation
from delayed_bandits.errors import ConfigError
from delayed_bandits.kernels import vernade2017 as k17
from delayed_bandits.policies import vernade2017 as p17


@dataclass(frozen=True)
class Vernade2017Setting:
    """One bandit problem of Vernade et al. 2017 (Sections 2 and 7)."""

    theta: np.ndarray  # conversion rates
    delay: delays.Geometric | delays.DelayDistribution
    window: int  # censoring threshold m
    epsilon: float  # beta(t) = (1 + eps) log t
    gamma: float  # Appendix D stochastic-approximation step exponent

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Vernade2017Setting":
        dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if isinstance(dist, delays.PerArm):
            raise ConfigError(f"{where}.delay: Vernade et al. 2017 assume one delay law for all arms")
        return cls(np.asarray(cfg["theta"], dtype=np.float64), dist, int(cfg["window"]),
                   float(cfg.get("epsilon", 0.0)), float(cfg.get("gamma", 1.0)))

    @property
    def n_arms(self) -> int:
        return len(self.theta)


Runner = Callable[[Any, Realisation, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Algorithm:
    """``kernel`` and ``reference`` both map (setting, realisation, checkpoints) to
    (pseudo-regret at checkpoints, actions)."""

    id: str
    label: str
    description: str
    kernel: Runner
    reference: Runner
    # What the algorithm needs of a setting: an error message when the setting lacks it, else "".
    precondition: Callable[[Any], str] = lambda setting: ""


def _regret_at(theta: np.ndarray, actions: np.ndarray, checkpoints: np.ndarray) -> np.ndarray:
    gaps = theta.max() - theta[actions]
    return np.cumsum(gaps)[checkpoints - 1]


def _delayed(censored: bool, kl: bool, estimate: bool) -> tuple[Runner, Runner]:
    def kernel(st: Vernade2017Setting, env: Realisation, cp: np.ndarray):
        horizon = env.uniforms.shape[0]
        tau = delays.cdf_table(st.delay, st.window if censored else horizon)
        if _needs_geometric(censored, estimate)(st):
            raise ConfigError(_needs_geometric(censored, estimate)(st))
        q = st.delay.q if isinstance(st.delay, delays.Geometric) else -1.0
        actions = np.zeros(horizon, dtype=np.int64)
        regret = k17.delayed_index(st.theta, env.uniforms, env.delays, tau, st.window, censored,
                                   kl, estimate, q, st.gamma, st.epsilon, cp, actions)
        return regret, actions

    def reference(st: Vernade2017Setting, env: Realisation, cp: np.ndarray):
        window = st.window if censored else None
        policy = p17.DelayedIndexPolicy(st.n_arms, lambda d: float(st.delay.cdf(d)), window, kl,
                                        st.epsilon, estimate, st.gamma)
        actions = p17.run(policy, st.theta, env.uniforms, env.delays, window)
        return _regret_at(st.theta, actions, cp), actions

    return kernel, reference


def _needs_geometric(censored: bool, estimate: bool) -> Callable[[Any], str]:
    def check(st: Vernade2017Setting) -> str:
        if not censored and estimate and not isinstance(st.delay, delays.Geometric):
            return "delay must be geometric: the uncensored CDF estimator of Appendix D assumes it"
        return ""
    return check


def _discarding(kl: bool) -> tuple[Runner, Runner]:
    def kernel(st: Vernade2017Setting, env: Realisation, cp: np.ndarray):
        actions = np.zeros(env.uniforms.shape[0], dtype=np.int64)
        tau_m = float(st.delay.cdf(st.window))
        regret = k17.discarding(st.theta, env.uniforms, env.delays, tau_m, st.window, kl,
                                st.epsilon, cp, actions)
        return regret, actions

    def reference(st: Vernade2017Setting, env: Realisation, cp: np.ndarray):
        policy = p17.DiscardingPolicy(st.n_arms, float(st.delay.cdf(st.window)), st.window, kl,
                                      st.epsilon)
        actions = p17.run(policy, st.theta, env.uniforms, env.delays, st.window)
        return _regret_at(st.theta, actions, cp), actions

    return kernel, reference


def _entry(id_: str, label: str, description: str, runners: tuple[Runner, Runner],
           precondition: Callable[[Any], str] | None = None) -> Algorithm:
    if precondition is None:
        return Algorithm(id_, label, description, *runners)
    return Algorithm(id_, label, description, *runners, precondition)


REGISTRY: dict[str, dict[str, Algorithm]] = {
    "vernade2017": {a.id: a for a in [
        _entry("d-ucb", "d-UCB", "DelayedUCB, censored (Alg. 1, Sec. 5.2)",
               _delayed(True, False, False)),
        _entry("d-klucb", "d-KLUCB", "DelayedKLUCB, censored (Alg. 1, Sec. 5.3)",
               _delayed(True, True, False)),
        _entry("ud-ucb", "ud-UCB", "DelayedUCB, uncensored (Alg. 1, Remark 5)",
               _delayed(False, False, False)),
        _entry("ud-klucb", "ud-KLUCB", "DelayedKLUCB, uncensored (Alg. 1, Remark 5)",
               _delayed(False, True, False)),
        _entry("discarding-ucb", "Discarding UCB", "UCB on pulls older than m (Sec. 6)",
               _discarding(False)),
        _entry("discarding-klucb", "Discarding KLUCB", "KL-UCB on pulls older than m (Sec. 6)",
               _discarding(True)),
        _entry("d-klucb-est", "d-KLUCB (estimated CDF)",
               "DelayedKLUCB, censored, empirical CDF of observed delays (App. D)",
               _delayed(True, True, True)),
        _entry("ud-klucb-est", "ud-KLUCB (estimated CDF)",
               "DelayedKLUCB, uncensored, geometric mean by stochastic approximation (App. D)",
               _delayed(False, True, True), _needs_geometric(False, True)),
    ]},
}

SETTINGS: dict[str, Callable[[Mapping[str, Any], str], Any]] = {
    "vernade2017": Vernade2017Setting.from_config,
}


def get(paper: str, algorithm: str) -> Algorithm:
    """Look up an algorithm; the error lists what is allowed."""
    if paper not in REGISTRY:
        raise ConfigError(f"paper {paper!r} is not one of {', '.join(REGISTRY)}")
    if algorithm not in REGISTRY[paper]:
        raise ConfigError(f"algorithm {algorithm!r} is not one of "
                          f"{', '.join(REGISTRY[paper])} (paper {paper})")
    return REGISTRY[paper][algorithm]
