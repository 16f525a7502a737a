"""Vernade, Cappé, Perchet (UAI 2017): the experiment's setting and its algorithms.

A setting is one bandit problem of Sections 2 and 7 (conversion rates, one delay law, a censoring
window); the algorithms are the policies of Sections 5-6 and Appendix D, each with its compiled
kernel and its readable reference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from delayed_bandits import delays
from delayed_bandits.algorithms import Algorithm, Runner, declaring
from delayed_bandits.environment import Realisation, draw
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.vernade2017 import kernels as k17
from delayed_bandits.papers.vernade2017 import lower_bounds
from delayed_bandits.papers.vernade2017 import policies as p17
from delayed_bandits.preconditions import Array, Inputs, at_least
from delayed_bandits.references import run


@dataclass(frozen=True)
class Setting:
    """One bandit problem of Vernade et al. 2017 (Sections 2 and 7)."""

    theta: np.ndarray  # conversion rates
    delay: delays.Geometric | delays.DelayDistribution
    window: int  # censoring threshold m
    epsilon: float  # beta(t) = (1 + eps) log t
    gamma: float  # Appendix D stochastic-approximation step exponent
    # when a conversion observed "at time s + D" (Section 2) is usable: p17.ARRIVALS
    arrival: str = p17.NEXT_ROUND

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if isinstance(dist, delays.PerArm):
            raise ConfigError(
                f"{where}.delay: Vernade et al. 2017 assume one delay law for all arms"
            )
        arrival = cfg.get("arrival", p17.NEXT_ROUND)
        if arrival not in p17.ARRIVALS:
            raise ConfigError(
                f"{where}.arrival: {arrival!r} is not an arrival convention; one of "
                f"{', '.join(p17.ARRIVALS)}"
            )
        return cls(
            np.asarray(cfg["theta"], dtype=np.float64),
            dist,
            int(cfg["window"]),
            float(cfg.get("epsilon", 0.0)),
            float(cfg.get("gamma", 1.0)),
            arrival,
        )

    @property
    def n_arms(self) -> int:
        return len(self.theta)

    @property
    def lag(self) -> int:
        """The arrival convention's lag L: a conversion is usable from round s + max(D + L, 1)."""
        return p17.ARRIVALS[self.arrival]


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Realisation:
    """Conversion uniforms and delays for every (round, arm): shared by all algorithms."""
    return draw(seed, horizon, st.n_arms, st.delay)


def _regret_at(theta: np.ndarray, actions: np.ndarray, checkpoints: np.ndarray) -> np.ndarray:
    gaps = theta.max() - theta[actions]
    return np.cumsum(gaps)[checkpoints - 1]


def _delayed(censored: bool, kl: bool, estimate: bool, ts: bool = False) -> tuple[Runner, Runner]:
    """Algorithm 1's runners; ``ts``: Thompson sampling on N~ instead of the index (not in the
    paper: the arena's crossing of the delay correction with a TS base), drawing from the policy
    seed."""

    def kernel(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        horizon = env.uniforms.shape[0]
        tau = delays.cdf_table(st.delay, st.window if censored else horizon)
        if _needs_geometric(censored, estimate)(st):
            raise ConfigError(_needs_geometric(censored, estimate)(st))
        q = st.delay.q if isinstance(st.delay, delays.Geometric) else -1.0
        actions = np.zeros(horizon, dtype=np.int64)
        regret = k17.delayed_index(
            st.theta,
            env.uniforms,
            env.delays,
            tau,
            st.window,
            censored,
            kl,
            estimate,
            q,
            st.gamma,
            st.epsilon,
            cp,
            actions,
            ts,
            np.random.default_rng(seed),
            0,
            st.lag,
        )
        return regret, actions, None

    def reference(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        window = st.window if censored else None
        # the kernel's table: the same values, without a numpy call per past pull and round
        tau = delays.cdf_table(st.delay, st.window if censored else env.uniforms.shape[0])
        policy = p17.DelayedIndexPolicy(
            st.n_arms,
            lambda d: float(tau[d]),
            window,
            kl,
            st.epsilon,
            estimate,
            st.gamma,
            rng=np.random.default_rng(seed) if ts else None,
            lag=st.lag,
            q=st.delay.q if isinstance(st.delay, delays.Geometric) else None,
        )
        actions = run(policy, st.theta, env.uniforms, env.delays, window, _usable(st))
        return _regret_at(st.theta, actions, cp), actions, None

    return kernel, reference


def _usable(st: Setting) -> Callable[[int, int], int]:
    """When the reference loop delivers a conversion: the setting's arrival convention."""
    return lambda s, d: p17.usable(s, d, st.lag)


def _needs_geometric(censored: bool, estimate: bool) -> Callable[[Any], str]:
    def check(st: Setting) -> str:
        if not censored and estimate and not isinstance(st.delay, delays.Geometric):
            return "delay must be geometric: the uncensored CDF estimator of Appendix D assumes it"
        return ""

    return check


def _discarding(kl: bool, ts: bool = False) -> tuple[Runner, Runner]:
    """Discarding's runners; ``ts``: Thompson sampling on the settled pulls (not in the paper)."""

    def kernel(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        actions = np.zeros(env.uniforms.shape[0], dtype=np.int64)
        tau_m = float(st.delay.cdf(st.window))
        regret = k17.discarding(
            st.theta,
            env.uniforms,
            env.delays,
            tau_m,
            st.window,
            kl,
            st.epsilon,
            cp,
            actions,
            ts,
            np.random.default_rng(seed),
            st.lag,
        )
        return regret, actions, None

    def reference(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        rng = np.random.default_rng(seed) if ts else None
        policy = p17.DiscardingPolicy(
            st.n_arms, float(st.delay.cdf(st.window)), st.window, kl, st.epsilon, rng, st.lag
        )
        actions = run(policy, st.theta, env.uniforms, env.delays, st.window, _usable(st))
        return _regret_at(st.theta, actions, cp), actions, None

    return kernel, reference


INPUTS = Inputs(
    (
        Array("setting.theta", "f", ("K",), 0.0, 1.0),
        Array("env.uniforms", "f", ("T", "K"), 0.0),
        Array("env.delays", "iu", ("T", "K"), 0.0),
    ),
    (at_least("setting.window", 1),),
)
"""What every kernel of the paper indexes (``preconditions``): the means, and a uniform and a
delay per (round, arm), the window m at least 1."""


ALGORITHMS: list[Algorithm] = declaring(
    INPUTS,
    [
        Algorithm(
            "d-ucb",
            "d-UCB",
            "DelayedUCB, censored (Alg. 1, Sec. 5.2)",
            *_delayed(True, False, False),
        ),
        Algorithm(
            "d-klucb",
            "d-KLUCB",
            "DelayedKLUCB, censored (Alg. 1, Sec. 5.3)",
            *_delayed(True, True, False),
        ),
        Algorithm(
            "ud-ucb",
            "ud-UCB",
            "DelayedUCB, uncensored (Alg. 1, Remark 5)",
            *_delayed(False, False, False),
        ),
        Algorithm(
            "ud-klucb",
            "ud-KLUCB",
            "DelayedKLUCB, uncensored (Alg. 1, Remark 5)",
            *_delayed(False, True, False),
        ),
        Algorithm(
            "discarding-ucb",
            "Discarding UCB",
            "UCB on pulls older than m (Sec. 6)",
            *_discarding(False),
        ),
        Algorithm(
            "discarding-klucb",
            "Discarding KLUCB",
            "KL-UCB on pulls older than m (Sec. 6)",
            *_discarding(True),
        ),
        # not in the paper: Thompson sampling on N~ and on the settled pulls, the arena's crossing of
        # the delay correction and of discarding with a TS base (docs/decisions/arena.md#handling-base)
        Algorithm(
            "d-ts",
            "d-TS",
            "Thompson sampling on N~, censored (Alg. 1 with a Beta(1 + S, 1 + N~ - S) draw)",
            *_delayed(True, False, False, ts=True),
        ),
        Algorithm(
            "ud-ts",
            "ud-TS",
            "Thompson sampling on N~, uncensored (Alg. 1, Remark 5, with a posterior draw)",
            *_delayed(False, False, False, ts=True),
        ),
        Algorithm(
            "discarding-ts",
            "Discarding TS",
            "Thompson sampling on pulls older than m",
            *_discarding(False, ts=True),
        ),
        Algorithm(
            "d-klucb-est",
            "d-KLUCB (estimated CDF)",
            "DelayedKLUCB, censored, empirical CDF of observed delays (App. D)",
            *_delayed(True, True, True),
        ),
        Algorithm(
            "d-ucb-est",
            "d-UCB (estimated CDF)",
            "DelayedUCB, censored, empirical CDF of observed delays (App. D's estimator)",
            *_delayed(True, False, True),
        ),
        Algorithm(
            "d-ts-est",
            "d-TS (estimated CDF)",
            "Thompson sampling on N~, censored, empirical CDF of observed delays (App. D's estimator)",
            *_delayed(True, False, True, ts=True),
        ),
        Algorithm(
            "ud-klucb-est",
            "ud-KLUCB (estimated CDF)",
            "DelayedKLUCB, uncensored, geometric mean by stochastic approximation (App. D)",
            *_delayed(False, True, True),
            precondition=_needs_geometric(False, True),
        ),
    ],
)

# Figure 2's problem, used by `delayed-bandits bench`.
BENCH = Setting(np.array([0.1, 0.05, 0.03]), delays.Geometric(500.0), 1000, 0.0, 1.0)


def reference_lines(figure: str, setting_cfg: Mapping[str, Any]) -> list[tuple[str, float]]:
    """(label, c) of the c log t curves drawn on Figure 1: the lower-bound constants of
    Theorems 3 and 4 on the plotted pseudo-regret scale (Theorem 3's divided by τ_m, since it
    bounds the τ_m-weighted regret of eq. (3); Theorem 4's needs no change)."""
    if figure != "fig1":
        return []
    st = Setting.from_config(setting_cfg, "setting")
    tau_m = float(st.delay.cdf(st.window))
    return [
        (
            "lower bound, censored (Thm 3 / τ_m)",
            lower_bounds.censored_pseudo_constant(st.theta, tau_m),
        ),
        ("lower bound, uncensored (Thm 4)", lower_bounds.uncensored_constant(st.theta)),
    ]
