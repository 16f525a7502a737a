"""Manegueu et al. (ICML 2020): the experiment's setting and its algorithms.

A setting is a Bernoulli bandit whose arms have their own delay laws (Section 2; Pareto tails in
Section 8), plus the algorithms' parameters: Patient's tail parameter alpha_tilde, Adapt-Patient's
inputs, and D-UCB's window m and the delay CDF it is given (Section 8.2). Figures vary these
through sweeps and named variants (config/config.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import delays
from delayed_bandits.algorithms import Algorithm, Runner, declaring
from delayed_bandits.environment import Realisation, draw
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.manegueu2020 import kernels as kmg
from delayed_bandits.papers.manegueu2020 import policies as pmg
from delayed_bandits.papers.vernade2017 import kernels as k17
from delayed_bandits.papers.vernade2017 import policies as p17
from delayed_bandits.preconditions import Array, Inputs, at_least
from delayed_bandits.references import run

TRACE_COLUMNS = ["t", "alpha_hat", "alpha_t", "difference"]


@dataclass(frozen=True)
class Setting:
    """Arms' means, per-arm delays, and the parameters of the algorithms run on them."""

    mu: np.ndarray
    delay: delays.PerArm
    alpha_tilde: float = 0.5
    adapt: pmg.AdaptParams = field(default_factory=pmg.AdaptParams)
    window: int = 100  # D-UCB's threshold m
    assumed_delay: delays.DelayDistribution = delays.Pareto(0.7)  # the CDF D-UCB is given
    ducb_wait: bool = True  # D-UCB cycles through the arms for its first m + K rounds (Sec. 8.2)

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        if "mu" in cfg:
            mu = np.asarray(cfg["mu"], dtype=np.float64)
        elif "mu_base" in cfg and "gap" in cfg:  # Figure 3: mu = (mu_base, mu_base + gap)
            mu = np.array([cfg["mu_base"], cfg["mu_base"] + cfg["gap"]], dtype=np.float64)
        else:
            raise ConfigError(f"{where}: give either mu, or mu_base and gap")
        if mu.max() > 1 or mu.min() < 0:
            raise ConfigError(f"{where}: arm means {mu.tolist()} must lie in [0, 1]")
        dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if not isinstance(dist, delays.PerArm):
            dist = delays.PerArm((dist,) * len(mu))
        if len(dist.arms) != len(mu):
            raise ConfigError(f"{where}.delay: {len(dist.arms)} delay laws for {len(mu)} arms")
        assumed = delays.from_spec(
            cfg.get("assumed_delay", {"kind": "pareto", "alpha": 0.7}), f"{where}.assumed_delay"
        )
        if isinstance(assumed, delays.PerArm):
            raise ConfigError(f"{where}.assumed_delay: D-UCB takes one CDF for all arms")
        return cls(
            mu,
            dist,
            float(cfg.get("alpha_tilde", 0.5)),
            pmg.AdaptParams(**cfg.get("adapt", {})),
            int(cfg.get("window", 100)),
            assumed,
            bool(cfg.get("ducb_wait", True)),
        )

    @property
    def n_arms(self) -> int:
        return len(self.mu)


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Realisation:
    """Reward uniforms and per-arm delays for every (round, arm): shared by all algorithms."""
    return draw(seed, horizon, st.n_arms, st.delay)


def _adapt_array(st: Setting) -> np.ndarray:
    a = st.adapt
    return np.array(
        [a.alpha_low, a.c, a.mu_low, a.lcb_constant, a.window_alpha, float(a.lower_confidence)]
    )


def _patient(adaptive: bool) -> tuple[Runner, Runner]:
    def kernel(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        horizon = env.uniforms.shape[0]
        actions = np.zeros(horizon, dtype=np.int64)
        trace = np.zeros((len(cp), len(TRACE_COLUMNS)))
        start = st.adapt.alpha_low if adaptive else st.alpha_tilde
        regret = kmg.patient(
            st.mu, env.uniforms, env.delays, start, adaptive, _adapt_array(st), cp, actions, trace
        )
        if not adaptive:  # no trace to keep: a DataFrame costs more than Patient's run at T = 5000
            return regret, actions, None
        return regret, actions, pd.DataFrame(trace, columns=TRACE_COLUMNS).astype({"t": np.int64})

    def reference(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        start = st.adapt.alpha_low if adaptive else st.alpha_tilde
        actions, trace = pmg.run_patient(
            st.mu, env.uniforms, env.delays, start, st.adapt if adaptive else None, cp
        )
        regret = np.cumsum(st.mu.max() - st.mu[actions])[cp - 1]
        events = pd.DataFrame(trace, columns=TRACE_COLUMNS).astype({"t": np.int64})
        return regret, actions, events if adaptive else None

    return kernel, reference


def _ducb() -> tuple[Runner, Runner]:
    """D-UCB: the censored DelayedUCB of Vernade et al. 2017 with window m and the CDF it is
    given (Section 8.2), on this paper's per-arm delays; with ``ducb_wait`` it cycles through the
    arms for its first m + K rounds, as Section 8.2 says it does. It keeps its own arrival
    convention (usable from s + D + 1), one round later than Patient's s + max(D, 1)."""

    def kernel(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        horizon = env.uniforms.shape[0]
        tau = delays.cdf_table(st.assumed_delay, st.window)
        actions = np.zeros(horizon, dtype=np.int64)
        regret = k17.delayed_index(
            st.mu,
            env.uniforms,
            env.delays,
            tau,
            st.window,
            True,
            False,
            False,
            -1.0,
            1.0,
            0.0,
            cp,
            actions,
            False,
            np.random.default_rng(0),  # unused: d-UCB draws nothing
            st.window if st.ducb_wait else 0,
        )
        return regret, actions, None

    def reference(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        policy = p17.DelayedIndexPolicy(
            st.n_arms,
            lambda d: float(st.assumed_delay.cdf(d)),
            st.window,
            False,
            0.0,
            wait=st.window if st.ducb_wait else 0,
        )
        actions = run(policy, st.mu, env.uniforms, env.delays, st.window)
        return np.cumsum(st.mu.max() - st.mu[actions])[cp - 1], actions, None

    return kernel, reference


def _needs_positive_alpha(st: Setting) -> str:
    return "" if st.alpha_tilde > 0 else "alpha_tilde must be > 0"


INPUTS = Inputs(
    (
        Array("setting.mu", "f", ("K",), 0.0, 1.0),
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
            "patient",
            "Patient Bandits",
            "Algorithm 1 with tail parameter alpha_tilde",
            *_patient(False),
            precondition=_needs_positive_alpha,
        ),
        Algorithm(
            "adapt-patient",
            "Adapt-Patient",
            "Algorithm 2, alpha estimated online (Sec. 6.3)",
            *_patient(True),
        ),
        Algorithm(
            "d-ucb",
            "D-UCB",
            "censored DelayedUCB of Vernade et al. 2017, waiting m + K rounds (Sec. 8.2)",
            *_ducb(),
        ),
    ],
)

# Figure 5's problem (alpha_1 = 1, alpha_2 = 0.3), used by `delayed-bandits bench`.
BENCH = Setting(
    np.array([0.6, 0.8]), delays.PerArm((delays.Pareto(1.0), delays.Pareto(0.3))), alpha_tilde=0.3
)
