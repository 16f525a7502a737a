"""Pike-Burke et al. (ICML 2018): the experiment's setting and its algorithms.

A setting is a Bernoulli bandit with i.i.d. delays (Section 5: two arms, mu = (0.5, 0.6)); the
algorithms are ODAAF, ODAAF-B, ODAAF-V (Algorithm 1 with n_m of eqs. 2, 6, 7) and the QPM-D
baseline with UCB1."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import delays
from delayed_bandits.algorithms import Algorithm, Runner, declaring
from delayed_bandits.curves import resolve
from delayed_bandits.environment import Realisation, draw
from delayed_bandits.errors import ConfigError
from delayed_bandits.indices import INDEX_CODES
from delayed_bandits.papers.pikeburke2018 import kernels as kpb
from delayed_bandits.papers.pikeburke2018 import policies as ppb
from delayed_bandits.preconditions import Array, Inputs

EVENT_COLUMNS = ["phase", "step1_end", "bridge_end", "n_active", "eliminated"]
MAX_PHASES = 64


@dataclass(frozen=True)
class Setting:
    """One problem of Section 5: arm means, the delay law, and ODAAF's open constants."""

    mu: np.ndarray
    delay: delays.DelayDistribution
    constants: ppb.PhaseConstants = field(default_factory=ppb.PhaseConstants)
    bridge_leader: bool = True  # Step 4's arm: the empirical leader, or the first active arm
    # QPM-D's base bonus sqrt(c log n / N): UCB1's c = 2 here; the arena also runs c = 1/2
    qpmd_coefficient: float = 2.0

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if isinstance(dist, delays.PerArm):
            raise ConfigError(f"{where}.delay: Pike-Burke et al. assume i.i.d. delays across arms")
        constants = ppb.PhaseConstants(**cfg.get("phase_constants", {}))
        return cls(
            np.asarray(cfg["mu"], dtype=np.float64),
            dist,
            constants,
            cfg.get("bridge_arm", "leader") == "leader",
        )

    @property
    def n_arms(self) -> int:
        return len(self.mu)

    @property
    def bound(self) -> float:
        """The delay bound d of Assumption 2, or inf for an unbounded law."""
        if isinstance(self.delay, delays.Uniform):
            return float(self.delay.high)
        if isinstance(self.delay, delays.Exponential) and self.delay.bound is not None:
            return float(self.delay.bound)
        return math.inf


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Realisation:
    """Reward uniforms and delays for every (round, arm): shared by all algorithms."""
    return draw(seed, horizon, st.n_arms, st.delay)


def _regret_at(mu: np.ndarray, actions: np.ndarray, cp: np.ndarray) -> np.ndarray:
    return np.cumsum(mu.max() - mu[actions])[cp - 1]


def _constants(st: Setting) -> np.ndarray:
    c = st.constants
    return np.array([c.a, c.b, c.odaaf, c.bounded, c.variance, c.variance_weight])


def _odaaf(variant: int) -> tuple[Runner, Runner]:
    bridge = variant > 0  # Section 5: ODAAF runs without the bridge period

    def kernel(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        horizon = env.uniforms.shape[0]
        actions = np.zeros(horizon, dtype=np.int64)
        events = np.zeros((MAX_PHASES, len(EVENT_COLUMNS)), dtype=np.int64)
        n = kpb.odaaf(
            st.mu,
            env.uniforms,
            env.delays,
            variant,
            st.delay.mean,
            st.delay.variance,
            st.bound,
            _constants(st),
            bridge,
            st.bridge_leader,
            actions,
            events,
        )
        return (
            _regret_at(st.mu, actions, cp),
            actions,
            pd.DataFrame(events[:n], columns=EVENT_COLUMNS),
        )

    def reference(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        horizon = env.uniforms.shape[0]
        c = _constants(st)

        def required(m: int) -> int:
            return ppb.samples_required(
                m, horizon, variant, st.delay.mean, st.delay.variance, st.bound, *c
            )

        actions, events = ppb.run_odaaf(
            st.mu, env.uniforms, env.delays, required, bridge, st.bridge_leader
        )
        return (
            _regret_at(st.mu, actions, cp),
            actions,
            pd.DataFrame(events, columns=EVENT_COLUMNS, dtype=np.int64),
        )

    return kernel, reference


def _qpmd(base: str = "ucb") -> tuple[Runner, Runner]:
    """QPM-D over ``base`` (``policies.QPMD_BASES``); a randomised base draws from the policy
    seed."""

    def kernel(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        actions = np.zeros(env.uniforms.shape[0], dtype=np.int64)
        kpb.qpmd(
            st.mu,
            env.uniforms,
            env.delays,
            actions,
            st.qpmd_coefficient,
            INDEX_CODES[base],
            np.random.default_rng(seed),
        )
        return _regret_at(st.mu, actions, cp), actions, None

    def reference(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        actions = ppb.run_qpmd(st.mu, env.uniforms, env.delays, st.qpmd_coefficient, base, seed)
        return _regret_at(st.mu, actions, cp), actions, None

    return kernel, reference


def _needs_bound(st: Setting) -> str:
    return (
        ""
        if math.isfinite(st.bound)
        else "ODAAF-B needs a bounded delay law (uniform, or exponential with a bound)"
    )


def _needs_variance(st: Setting) -> str:
    return (
        "" if math.isfinite(st.delay.variance) else "ODAAF-V needs a delay law with finite variance"
    )


def _needs_mean(st: Setting) -> str:
    return "" if math.isfinite(st.delay.mean) else "ODAAF needs a delay law with a finite mean"


INPUTS = Inputs(
    (
        Array("setting.mu", "f", ("K",), 0.0, 1.0),
        Array("env.uniforms", "f", ("T", "K"), 0.0),
        Array("env.delays", "iu", ("T", "K"), 0.0),
    ),
)
"""What every kernel of the paper indexes (``preconditions``): the means, and a uniform and a
delay per (round, arm)."""


ALGORITHMS: list[Algorithm] = declaring(
    INPUTS,
    [
        Algorithm(
            "qpm-d",
            "QPM-D",
            "QPM-D with UCB1, non-anonymous feedback (Joulani et al. 2013)",
            *_qpmd(),
        ),
        # not in the paper: QPM-D over the arena's other base learners
        # (docs/decisions/arena.md#qpmd-any-base)
        Algorithm(
            "qpm-d-klucb",
            "QPM-D over KL-UCB",
            "QPM-D with Bernoulli KL-UCB at log n",
            *_qpmd("klucb"),
        ),
        Algorithm(
            "qpm-d-ts", "QPM-D over TS", "QPM-D with Beta(1, 1) Thompson sampling", *_qpmd("ts")
        ),
        Algorithm(
            "odaaf",
            "ODAAF",
            "Algorithm 1, n_m of eq. (2), no bridge period (Section 5)",
            *_odaaf(0),
            precondition=_needs_mean,
        ),
        Algorithm(
            "odaaf-b",
            "ODAAF-B",
            "Algorithm 1 with bridge, n_m of eq. (6) using the bound d",
            *_odaaf(1),
            precondition=_needs_bound,
        ),
        Algorithm(
            "odaaf-v",
            "ODAAF-V",
            "Algorithm 1 with bridge, n_m of eq. (7) using V(tau)",
            *_odaaf(2),
            precondition=_needs_variance,
        ),
    ],
)


def coefficient_band(fig: Mapping[str, Any], where: str = "") -> dict[str, dict[str, float]]:
    """Per setting, the delay coefficient (``phase_constants.odaaf``, eq. 2) of ODAAF and of each
    variant in the figure's ``coefficient_band``, in increasing order; {} when the figure has no
    band. A member must be a curve of the figure whose constants, in every setting, differ from
    ODAAF's in that coefficient only, so the band shows the coefficient and nothing else."""
    members = list(fig.get("coefficient_band", []))
    if not members:
        return {}
    key = f"config key '{where}.coefficient_band'"
    if "odaaf" not in fig["algorithms"]:
        raise ConfigError(f"{key}: the band is drawn around odaaf, which is not in algorithms")
    for member in members:
        if (
            member not in fig["algorithms"]
            or resolve(fig, {}, member)[0] != "odaaf"
            or member == "odaaf"
        ):
            raise ConfigError(f"{key}: {member!r} must be a variant of odaaf listed in algorithms")
    band = {}
    for name, raw in fig["settings"].items():
        constants = {
            c: Setting.from_config(resolve(fig, raw, c)[1], name).constants
            for c in ["odaaf", *members]
        }
        for member in members:
            if replace(constants[member], odaaf=constants["odaaf"].odaaf) != constants["odaaf"]:
                raise ConfigError(
                    f"{key}: {member!r} changes phase constants other than odaaf (setting {name})"
                )
        band[name] = dict(
            sorted(
                ((c, float(k.odaaf)) for c, k in constants.items()),
                key=lambda item: (item[1], item[0]),
            )
        )
    return band


def check_figure(fig: Mapping[str, Any], where: str) -> None:
    """Figure-level checks, called by ``config.validate``."""
    coefficient_band(fig, where)


# Figure 3a's Uniform{0..50} problem, used by `delayed-bandits bench`.
BENCH = Setting(np.array([0.5, 0.6]), delays.Uniform(0, 50))
