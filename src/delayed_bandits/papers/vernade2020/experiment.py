"""Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (ICML 2020): the experiment's
setting, environment and algorithms.

A setting is one linear bandit of Section 8: d, K actions per round drawn afresh, θ, the delay law
(geometric, the heavy-tailed quantile table, or a local copy of the Criteo dataset) and the window
m, plus the policies' inputs λ and δ, the reading of their widths (``paper`` or ``code``), the
window sum (``exact`` or ``stored``) and the code's σ₀. Figures vary the policy inputs per curve
through config ``variants``, and may vary the action-set construction too (``action_set``: the
paper's text draws {0,1}^d, the authors' simulator [0,1]^d): every curve of a setting faces the
same reward uniforms and delays, and curves with the same construction the same action sets."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits import delays, grid, kinds
from delayed_bandits.algorithms import Algorithm, Runner, declaring
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.vernade2020 import criteo
from delayed_bandits.papers.vernade2020 import kernels as kvn
from delayed_bandits.papers.vernade2020 import policies as pvn
from delayed_bandits.preconditions import Array, Inputs, at_least

ACTION_SETS = ("binary", "continuous")
TRACE_COLUMNS = pvn.TRACE_COLUMNS


@dataclass(frozen=True)
class Setting:
    """One problem of Section 8 and the inputs of the policies run on it."""

    theta: np.ndarray
    n_actions: int  # K
    # "binary" ({0,1}^d without 0, Section 8's text) or "continuous" (Uniform[0,1]^d, the
    # authors' simulator)
    action_set: str
    delay: delays.DelayDistribution
    window: int  # m
    lam: float = 1.0  # λ
    delta: float = 0.1  # δ
    width: str = "paper"
    window_sum: str = "stored"
    sigma0: float = 0.5  # σ₀ of the code's OTFLinTS

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        d = int(cfg["dimension"])
        # Section 8: θ = (1/√d, ..., 1/√d) unless the config gives one
        theta = np.asarray(cfg.get("theta", [1.0 / math.sqrt(d)] * d), dtype=np.float64)
        if theta.shape != (d,):
            raise ConfigError(f"{where}.theta: {theta.size} entries for dimension {d}")
        # Section 3 needs <a, θ> in [0, 1] for every action; actions lie in the positive orthant
        # with unit norm, so θ >= 0 and ||θ|| <= 1 guarantee it.
        if theta.min() < 0 or np.linalg.norm(theta) > 1.0 + 1e-12:
            raise ConfigError(
                f"{where}.theta: need entries >= 0 and norm <= 1, got {theta.tolist()}"
            )
        if ("delay" in cfg) == ("criteo" in cfg):
            raise ConfigError(
                f"{where}: give exactly one of delay (a delay law) or criteo (a "
                "local copy of the Criteo attribution dataset)"
            )
        if "criteo" in cfg:
            spec = cfg["criteo"]
            dist = criteo.empirical_delays(
                spec["path"], float(spec.get("scale", 0.01)), f"{where}.criteo"
            )
        else:
            dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if isinstance(dist, delays.PerArm):
            raise ConfigError(
                f"{where}.delay: D_t is drawn independently of the action "
                "(Section 3, 3.b); per_arm delays do not apply"
            )
        choices = {"action_set": ACTION_SETS, "width": pvn.WIDTHS, "window_sum": pvn.WINDOW_SUMS}
        defaults = {"action_set": "binary", "width": "paper", "window_sum": "stored"}
        picked = {key: cfg.get(key, defaults[key]) for key in choices}
        for key, allowed in choices.items():
            if picked[key] not in allowed:
                raise ConfigError(
                    f"{where}.{key}: {picked[key]!r} is not one of {', '.join(allowed)}"
                )
        if picked["width"] == "code" and picked["window_sum"] == "exact":
            raise ConfigError(
                f"{where}: window_sum 'exact' applies to the paper width only; the "
                "authors' code always sums its stored buffer"
            )
        window = int(cfg["window"])
        if window < 1:
            raise ConfigError(f"{where}.window: m must be >= 1, got {window}")
        return cls(
            theta,
            int(cfg["n_actions"]),
            picked["action_set"],
            dist,
            window,
            float(cfg.get("lambda", 1.0)),
            float(cfg.get("delta", 0.1)),
            picked["width"],
            picked["window_sum"],
            float(cfg.get("sigma0", 0.5)),
        )

    @property
    def dimension(self) -> int:
        return len(self.theta)

    @property
    def n_arms(self) -> int:
        """K, the actions of a round, as the other papers' settings name it (the resource
        model counts it, ``config._built``)."""
        return self.n_actions

    @property
    def tau_m(self) -> float:
        """τ_m = P(D <= m) (Theorem 1): the share of conversions the window lets through."""
        return float(self.delay.cdf(self.window))


@dataclass(frozen=True)
class Environment:
    """Everything one replication draws, shared by every algorithm of a setting (rows are rounds
    1..T): the action sets, the reward uniforms (X_t = 1 iff uniforms[t-1] < <A_t, θ>) and the
    delays D_t."""

    action_sets: np.ndarray  # float64, (T, K, d), unit-norm rows
    uniforms: np.ndarray  # float64, (T,)
    delays: np.ndarray  # int64, (T,)


def heavy_law(fig_cfg: Mapping[str, Any]) -> tuple[str, Setting]:
    """Figure 2's single setting, whose delay law must be a quantile table of log10 delays
    (the default table, or a Criteo file)."""
    items = list(grid.settings(fig_cfg).items())
    if len(items) != 1:
        raise ConfigError(f"a delay_density figure has one setting, got {len(items)}")
    name, raw = items[0]
    st = Setting.from_config(raw, name)
    if not (isinstance(st.delay, delays.Empirical) and st.delay.log10):
        raise ConfigError(
            f"setting {name}: a delay_density figure needs a quantile table of "
            "log10 delays (delay kind empirical with log10: true, or criteo)"
        )
    return name, st


def check_figure(fig: Mapping[str, Any], where: str) -> None:
    """Figure-level checks, called by ``config.validate``: a delay_density figure runs no
    simulation, so its setting is checked here, as ``heavy_law`` will read it."""
    if kinds.of(fig) == "delay_density":
        try:
            heavy_law(fig)
        except ConfigError as exc:
            raise ConfigError(f"config key '{where}': {exc}") from None


def draw_action_sets(
    rng: np.random.Generator, horizon: int, n_actions: int, dimension: int, kind: str
) -> np.ndarray:
    """K actions per round: vectors of {0,1}^d (``binary``, Section 8's text) or Uniform[0,1]^d
    (``continuous``, the authors' simulator), a zero vector redrawn, normalised to unit norm."""

    def draw(n: int) -> np.ndarray:
        if kind == "binary":
            return rng.integers(0, 2, size=(n, dimension)).astype(np.float64)
        return rng.random((n, dimension))

    # a vector of nonnegative entries is zero where they sum to 0: one matrix product, where
    # any() over an axis of d entries is a slow reduction (most of this function's time)
    ones = np.ones(dimension)
    vectors = draw(horizon * n_actions).reshape(horizon, n_actions, dimension)
    zero = vectors @ ones == 0
    while zero.any():
        vectors[zero] = draw(int(zero.sum()))
        zero = vectors @ ones == 0
    return np.ascontiguousarray(vectors / np.linalg.norm(vectors, axis=2, keepdims=True))


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Environment:
    """The binary action sets, then the reward uniforms, then the delays, from one generator; a
    continuous action set is drawn after them from the same generator. The binary sets are drawn
    whatever the construction, so that a curve on continuous actions faces the same uniforms and
    delays as the binary curves of its setting (the pairing the figures compare)."""
    rng = np.random.default_rng(seed)
    action_sets = draw_action_sets(rng, horizon, st.n_actions, st.dimension, "binary")
    uniforms = rng.random(horizon)
    delay = np.ascontiguousarray(st.delay.sample(rng, horizon), dtype=np.int64)
    if st.action_set != "binary":
        action_sets = draw_action_sets(rng, horizon, st.n_actions, st.dimension, st.action_set)
    return Environment(action_sets, uniforms, delay)


def pseudo_regret(
    env: Environment, theta: np.ndarray, chosen: np.ndarray, checkpoints: np.ndarray
) -> np.ndarray:
    """Σ_{s<=t} (<A*_s, θ> - <A_s, θ>) at the checkpoints (eq. 1)."""
    sets = env.action_sets
    if sets.strides[0] == 0:
        # one action set every round, broadcast (the arena's canonical basis): its means once
        means = sets[0] @ theta
        gaps = means.max() - means[chosen]
    else:
        means = sets @ theta
        gaps = means.max(axis=1) - means[np.arange(len(chosen)), chosen]
    return np.cumsum(gaps)[checkpoints - 1]


def _events(trace: np.ndarray) -> pd.DataFrame:
    integer = {"t", "observed"}  # column by column: a frame's astype costs more than the kernel
    return pd.DataFrame(
        {
            c: trace[:, i].astype(np.int64) if c in integer else trace[:, i]
            for i, c in enumerate(TRACE_COLUMNS)
        }
    )


def _otf(thompson: bool) -> tuple[Runner, Runner]:
    """(kernel, reference) runners. OTFLinTS's normals come from the policy seed and are handed
    to kernel and reference alike, so both draw the same θ̃_t."""

    def normals(st: Setting, horizon: int, seed: int) -> np.ndarray:
        if not thompson:
            return np.zeros((0, st.dimension))
        return np.random.default_rng(seed).standard_normal((horizon, st.dimension))

    def kernel(st: Setting, env: Environment, cp: np.ndarray, seed: int):
        horizon = env.uniforms.shape[0]
        chosen = np.zeros(horizon, dtype=np.int64)
        trace = np.zeros((len(cp), len(TRACE_COLUMNS)))
        kvn.otf_lin(
            env.action_sets,
            env.uniforms,
            env.delays,
            st.theta,
            st.window,
            st.lam,
            st.delta,
            thompson,
            st.width == "code",
            st.window_sum == "exact",
            st.sigma0,
            normals(st, horizon, seed),
            cp,
            chosen,
            trace,
        )
        return pseudo_regret(env, st.theta, chosen, cp), chosen, _events(trace)

    def reference(st: Setting, env: Environment, cp: np.ndarray, seed: int):
        policy_class = pvn.OTFLinTS if thompson else pvn.OTFLinUCB
        policy = policy_class(
            st.dimension, st.window, st.lam, st.delta, st.width, st.window_sum, st.sigma0
        )
        chosen, trace = pvn.run(
            policy,
            env.action_sets,
            env.uniforms,
            env.delays,
            st.theta,
            normals(st, env.uniforms.shape[0], seed),
            cp,
        )
        return pseudo_regret(env, st.theta, chosen, cp), chosen, _events(trace)

    return kernel, reference


INPUTS = Inputs(
    (
        Array("setting.theta", "f", ("d",)),
        Array("env.action_sets", "f", ("T", "K", "d")),
        Array("env.uniforms", "f", ("T",), 0.0),
        Array("env.delays", "iu", ("T",), 0.0),
    ),
    (at_least("setting.window", 1),),
)
"""What every kernel of the paper indexes (``preconditions``): θ, the action sets, a uniform and
a delay per round, the window m at least 1."""


ALGORITHMS: list[Algorithm] = declaring(
    INPUTS,
    [
        Algorithm(
            "otflinucb",
            "OTFLinUCB",
            "Algorithm 1, widths of eq. (6) or of the authors' code",
            *_otf(False),
        ),
        Algorithm(
            "otflints",
            "OTFLinTS",
            "Algorithm 2, beta of Section 7 or the authors' code",
            *_otf(True),
        ),
    ],
)

# Figure 1's left panel, (m, mu) = (100, 100), paper width with the O(d^2) window sum, used by
# `delayed-bandits bench`.
BENCH = Setting(np.full(5, 1.0 / math.sqrt(5.0)), 10, "binary", delays.Geometric(100.0), 100)
# the paper width's exact window sum costs O(m) per round: Figure 3 runs it with m = 2000
BENCH_READINGS = {"exact sum, m=500": replace(BENCH, window=500, window_sum="exact")}
