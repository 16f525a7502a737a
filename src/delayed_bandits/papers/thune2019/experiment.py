"""Thune, Cesa-Bianchi, Seldin (NeurIPS 2019): Example 8 as an experiment.

A setting is an oblivious adversarial K-armed bandit (Section 2) with Example 8's delays
(d_t = T - t for t < sqrt(K T / ln K), else 0) and a loss sequence drawn once per replication from
the environment seed, before the game, so every algorithm faces the same sequence. The algorithms
are DEW tuned as in Theorem 1 with d_max = max_t d_t, Skipper with Corollary 4's explicit tuning
(knows T and D), Skipper tuned by Doubling (Section 4, eqs. 4-6, delays known at action time) and
Skipper with the oracle beta* minimising Theorem 3's bound on the realised delays.

Regret (Section 2, on the realised sequence): R(t) = sum_{s <= t} l_s^{A_s} - min_a sum_{s <= t}
l_s^a, the comparator being the best fixed arm in hindsight over the first t rounds. Its mean over
replications estimates the expected regret the paper bounds, the expectation taken over the
policy's draws and the loss sequence's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from delayed_bandits.algorithms import Algorithm, Runner, declaring
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.thune2019 import bounds as sb
from delayed_bandits.papers.thune2019 import kernels as k19
from delayed_bandits.papers.thune2019 import policies as p19
from delayed_bandits.preconditions import Array, Inputs

LOSS_KINDS = ("bernoulli_gap", "bernoulli_switch")
DELAY_KINDS = ("example8",)
COROLLARY4_READINGS = ("with_skip_term", "without_skip_term")


@dataclass(frozen=True)
class Losses:
    """The oblivious loss sequence, Bernoulli with means fixed before the game.

    ``bernoulli_gap``: the best arm has mean 1/2 - gap, every other arm 1/2.
    ``bernoulli_switch``: a harder sequence for a learner that commits early: during the first
    ``switch`` T rounds a decoy arm has mean 1/2 - gap and the best arm 1/2; afterwards the best
    arm has 1/2 - gap and the decoy 1/2 (all others 1/2 throughout). With switch < 1/2 the best arm
    is still best in hindsight, by (1 - 2 switch) gap T in expectation."""

    kind: str
    gap: float
    switch: float = 0.0

    def phases(self, horizon: int, n_arms: int) -> list[tuple[int, np.ndarray]]:
        """(rounds, mean loss per arm) of each phase; arm 0 is the best arm, arm 1 the decoy."""
        base = np.full(n_arms, 0.5)
        best = base.copy()
        best[0] -= self.gap
        if self.kind == "bernoulli_gap":
            return [(horizon, best)]
        decoy = base.copy()
        decoy[1] -= self.gap
        first = int(round(self.switch * horizon))
        return [(first, decoy), (horizon - first, best)]


@dataclass(frozen=True)
class Setting:
    """One problem of the figure: K arms, the loss sequence, Example 8's delays, and the reading
    of Corollary 4's threshold (docs/decisions/thune2019.md#corollary4-beta)."""

    n_arms: int
    losses: Losses
    delay: str = "example8"
    corollary4_skip_term: bool = True

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        def need(mapping: Mapping[str, Any], key: str, path: str) -> Any:
            if key not in mapping:
                raise ConfigError(f"{path}: missing key '{key}'")
            return mapping[key]

        n_arms = need(cfg, "n_arms", where)
        if isinstance(n_arms, bool) or not isinstance(n_arms, int) or n_arms < 2:
            raise ConfigError(f"{where}.n_arms: need an integer K >= 2, got {n_arms!r}")
        spec = need(cfg, "losses", where)
        kind = need(spec, "kind", f"{where}.losses")
        if kind not in LOSS_KINDS:
            raise ConfigError(
                f"{where}.losses.kind: {kind!r} is not one of {', '.join(LOSS_KINDS)}"
            )
        gap = need(spec, "gap", f"{where}.losses")
        if isinstance(gap, bool) or not isinstance(gap, (int, float)) or not 0 < gap <= 0.5:
            raise ConfigError(f"{where}.losses.gap: need 0 < gap <= 0.5, got {gap!r}")
        switch = 0.0
        if kind == "bernoulli_switch":
            switch = need(spec, "switch", f"{where}.losses")
            if (
                isinstance(switch, bool)
                or not isinstance(switch, (int, float))
                or not 0 < switch < 0.5
            ):
                raise ConfigError(
                    f"{where}.losses.switch: need 0 < switch < 0.5 (the best arm "
                    f"must stay best in hindsight), got {switch!r}"
                )
        elif "switch" in spec:
            raise ConfigError(f"{where}.losses.switch: only bernoulli_switch has a switch")
        delay = need(need(cfg, "delay", where), "kind", f"{where}.delay")
        if delay not in DELAY_KINDS:
            raise ConfigError(
                f"{where}.delay.kind: {delay!r} is not one of {', '.join(DELAY_KINDS)}"
            )
        reading = cfg.get("corollary4_beta", COROLLARY4_READINGS[0])
        if reading not in COROLLARY4_READINGS:
            raise ConfigError(
                f"{where}.corollary4_beta: {reading!r} is not one of "
                f"{', '.join(COROLLARY4_READINGS)}"
            )
        return cls(
            n_arms, Losses(kind, float(gap), float(switch)), delay, reading == "with_skip_term"
        )

    def delays(self, horizon: int) -> np.ndarray:
        """d_1..d_T (deterministic for Example 8)."""
        return sb.example8_delays(horizon, self.n_arms)

    def uniform_play_regret(self, horizon: int) -> float:
        """Expected regret at T of playing uniformly at random, against the arm with the least
        expected total loss: the linear regret of a learner that learns nothing."""
        phases = self.losses.phases(horizon, self.n_arms)
        totals = sum(rounds * means for rounds, means in phases)
        return float(totals.mean() - totals.min())


@dataclass(frozen=True)
class Environment:
    """One replication's game, fixed before it starts: losses l_t^a and delays d_t."""

    losses: np.ndarray  # float64, (T, K), row t-1 is round t
    delays: np.ndarray  # int64, (T,)


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Environment:
    """Which arm is best (and which is the decoy) by a random permutation, then one uniform per
    (round, arm): l_t^a = 1{u_t^a < mean_t^a}. The delays are Example 8's."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(st.n_arms)  # arm order[0] is the best arm, order[1] the decoy
    uniforms = rng.random((horizon, st.n_arms))
    losses = np.empty((horizon, st.n_arms))
    start = 0
    for rounds, means in st.losses.phases(horizon, st.n_arms):
        arm_means = np.empty(st.n_arms)
        arm_means[order] = means
        losses[start : start + rounds] = uniforms[start : start + rounds] < arm_means
        start += rounds
    return Environment(losses, st.delays(horizon))


def policy_uniforms(seed: int, horizon: int) -> np.ndarray:
    """The policy's uniform for drawing A_t, for t = 1..T: the kernel and the reference consume
    the same numbers, so their actions can be compared exactly."""
    return np.random.default_rng(seed).random(horizon)


def tuning(
    algorithm: str, st: Setting, horizon: int, delays: np.ndarray
) -> tuple[float, float, float]:
    """(eta, d_max, beta) of a fixed-threshold algorithm: DEW(eta, d_max) under Skipper(beta).

    ``dew``: Theorem 1's eta with d_max = max_t d_t, no skipping (beta = inf).
    ``skipper-explicit``: Corollary 4, eta = 1 / (4 e beta), knowing T and D.
    ``skipper-oracle``: beta* minimising Theorem 3's bound on the realised delays,
    eta = 1 / (4 e beta*)."""
    total = float(delays.sum())
    if algorithm == "dew":
        return p19.theorem1_rate(st.n_arms, horizon, total), float(delays.max()), math.inf
    if algorithm == "skipper-explicit":
        beta = p19.corollary4_beta(st.n_arms, horizon, total, st.corollary4_skip_term)
    else:
        beta = sb.oracle_beta(delays, st.n_arms).beta
    return 1.0 / (4.0 * math.e * beta), beta, beta


def _fixed(algorithm: str) -> tuple[Runner, Runner]:
    def kernel(
        st: Setting, env: Environment, cp: np.ndarray, seed: int
    ) -> tuple[np.ndarray, np.ndarray, None]:
        horizon = env.losses.shape[0]
        eta, d_max, beta = tuning(algorithm, st, horizon, env.delays)
        actions = np.zeros(horizon, dtype=np.int64)
        regret = k19.skipper(
            env.losses,
            env.delays,
            policy_uniforms(seed, horizon),
            p19.truncated_rate(eta, d_max),
            beta,
            cp,
            actions,
        )
        return regret, actions, None

    def reference(
        st: Setting, env: Environment, cp: np.ndarray, seed: int
    ) -> tuple[np.ndarray, np.ndarray, None]:
        horizon = env.losses.shape[0]
        eta, d_max, beta = tuning(algorithm, st, horizon, env.delays)
        dew = p19.DEW(st.n_arms, eta, d_max)
        policy = dew if math.isinf(beta) else p19.Skipper(beta, dew)
        uniforms = policy_uniforms(seed, horizon)
        actions = p19.run(policy, env.losses, env.delays, uniforms)
        return p19.regret_at(env.losses, actions, cp), actions, None

    return kernel, reference


def _doubling() -> tuple[Runner, Runner]:
    def kernel(
        st: Setting, env: Environment, cp: np.ndarray, seed: int
    ) -> tuple[np.ndarray, np.ndarray, None]:
        horizon = env.losses.shape[0]
        actions = np.zeros(horizon, dtype=np.int64)
        regret = k19.doubling(env.losses, env.delays, policy_uniforms(seed, horizon), cp, actions)
        return regret, actions, None

    def reference(
        st: Setting, env: Environment, cp: np.ndarray, seed: int
    ) -> tuple[np.ndarray, np.ndarray, None]:
        policy = p19.Doubling(st.n_arms)
        uniforms = policy_uniforms(seed, env.losses.shape[0])
        actions = p19.run(policy, env.losses, env.delays, uniforms)
        return p19.regret_at(env.losses, actions, cp), actions, None

    return kernel, reference


INPUTS = Inputs(
    (
        Array("env.losses", "f", ("T", "K"), 0.0, 1.0),
        Array("env.delays", "iu", ("T",), 0.0),
    )
)
"""What every kernel of the paper indexes (``preconditions``): a loss per (round, arm) and a
delay per round."""


ALGORITHMS: list[Algorithm] = declaring(
    INPUTS,
    [
        Algorithm(
            "dew",
            "DEW (d_max)",
            "Algorithm 1 tuned as in Theorem 1 with d_max = max_t d_t",
            *_fixed("dew"),
        ),
        Algorithm(
            "skipper-explicit",
            "Skipper (Cor. 4)",
            "Algorithm 2 over DEW, beta and eta = 1/(4e beta) of Corollary 4 (knows T and D)",
            *_fixed("skipper-explicit"),
        ),
        Algorithm(
            "doubling",
            "Doubling",
            "Skipper over DEW tuned by Doubling (Section 4.1, eqs. 5-6; delays at action time)",
            *_doubling(),
        ),
        Algorithm(
            "skipper-oracle",
            "Skipper (oracle β*)",
            "Skipper over DEW with beta* minimising Theorem 3's bound on the realised delays",
            *_fixed("skipper-oracle"),
        ),
    ],
)

# Four arms, gap 0.2: the paper-scale setting, used by `delayed-bandits bench`.
BENCH = Setting(4, Losses("bernoulli_gap", 0.2))
