"""The arena: every algorithm of the five papers, and two baselines, on one Bernoulli bandit with
delayed conversions, under each delay regime (issue 13).

The problem is Vernade et al. 2017's (Section 2): pulling arm k at round s converts with
probability mu_k, and a conversion is seen D rounds later; with a censoring window m it is seen
only if D <= m. Nothing signals a non-conversion. Each algorithm runs through its own paper's
kernel and reference, on inputs translated from one shared realisation per replication
(``environment.Realisation``: a uniform and a delay per (round, arm)). Where a paper's model
differs from this problem, the translation says how (``docs/decisions.md``, "The arena"):

- arm-labelled conversions (Vernade 2017, Manegueu 2020, QPM-D): the realisation as it is; under
  censoring a conversion with D > m is removed (its uniform set to 1, so it never converts).
- anonymous aggregate (ODAAF, ODAAF-V, Pike-Burke 2018): the same realisation; their kernels
  observe only the sum of the conversions arriving each round.
- per-round loss (DEW, Skipper, Doubling, Thune 2019: adversarial bandits): round t's loss
  l_t^a = 1 - 1{u_t^a < mu_a} (times 1{d_t <= m} under censoring) reaches the learner after
  d_t = D[t, 0] rounds (min(d_t, m) under censoring, when the outcome is settled), so they also
  learn of non-conversions. Their model has one delay per round, whatever the action, so they do
  not apply to arm-dependent delays.
- linear (OTFLinUCB/TS, Vernade 2020) on the canonical basis (d = K, theta = mu): one uniform and
  one delay per round, u[t, 0] and D[t, 0] (the same law as the played arm's); their model's
  delays do not depend on the action either.
The metric is pseudo-regret, sum_s (max mu - mu_{A_s}), recomputed from the actions for all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from delayed_bandits import delays
from delayed_bandits.algorithms import Algorithm, Runner, get
from delayed_bandits.environment import Realisation, draw
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.manegueu2020 import experiment as mg
from delayed_bandits.papers.pikeburke2018 import experiment as pb
from delayed_bandits.papers.thune2019 import experiment as th
from delayed_bandits.papers.vernade2017 import experiment as v17
from delayed_bandits.papers.vernade2020 import experiment as v20
from delayed_bandits.papers.manegueu2020 import policies as pmg

FEEDBACK = ("arm-labelled", "anonymous aggregate", "per-round loss", "none")


@dataclass(frozen=True)
class Setting:
    """One arena problem: the arms' means, the delay law (one for all arms, or one per arm), the
    censoring window, and what the algorithms are told beyond what they compute themselves."""

    mu: np.ndarray
    delay: delays.DelayDistribution | delays.PerArm
    window: int  # m: the censoring window when censored, else the window the windowed methods use
    censored: bool
    alpha_tilde: float  # Patient's tail parameter (Manegueu et al. 2020, Algorithm 1)
    adapt: pmg.AdaptParams = field(default_factory=pmg.AdaptParams)

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        n_arms, gap, base = int(cfg["n_arms"]), float(cfg["gap"]), float(cfg["base_mean"])
        if n_arms < 2:
            raise ConfigError(f"{where}.n_arms: need at least 2 arms, got {n_arms}")
        if not (gap > 0 and base >= 0 and base + gap <= 1):
            raise ConfigError(f"{where}: need 0 < gap and 0 <= base_mean < base_mean + gap <= 1, "
                              f"got base_mean {base}, gap {gap}")
        # the best arm is the last one, so that no lowest-index tie-breaking rule favours it
        mu = np.full(n_arms, base)
        mu[-1] = base + gap
        dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if isinstance(dist, delays.PerArm):
            if len(dist.arms) != 2:
                raise ConfigError(f"{where}.delay: an arena per_arm law has two entries, the law "
                                  f"of the best arm and the law of the others; got {len(dist.arms)}")
            dist = delays.PerArm((dist.arms[1],) * (n_arms - 1) + (dist.arms[0],))
        window = int(cfg["window"])
        if window < 1:
            raise ConfigError(f"{where}.window: m must be >= 1, got {window}")
        # Adapt-Patient's mu_low is a lower bound on the best mean (Section 6.3): it is told mu*
        adapt = replace(pmg.AdaptParams(**cfg.get("adapt", {})), mu_low=float(mu.max()))
        return cls(mu, dist, window, bool(cfg["censored"]), float(cfg["alpha_tilde"]), adapt)

    @property
    def n_arms(self) -> int:
        return len(self.mu)

    @property
    def arm_dependent(self) -> bool:
        return isinstance(self.delay, delays.PerArm)

    @property
    def pooled(self) -> delays.DelayDistribution:
        """The one law an arm-independent method is told: the arms' laws pooled (the law itself
        when it is the same for all arms)."""
        if isinstance(self.delay, delays.PerArm):
            return delays.Pooled(self.delay.arms)
        return self.delay

    @property
    def observable(self) -> delays.DelayDistribution:
        """The pooled law of the delay until a pull's outcome is settled: min(D, m) under
        censoring, D otherwise (what ODAAF's E[tau] and V(tau) are computed from)."""
        return delays.Capped(self.pooled, self.window) if self.censored else self.pooled


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Realisation:
    """A uniform and a delay per (round, arm), uncensored: each algorithm's translation applies
    the window."""
    return draw(seed, horizon, st.n_arms, st.delay)


def _pseudo_regret(mu: np.ndarray, actions: np.ndarray, cp: np.ndarray) -> np.ndarray:
    return np.cumsum(mu.max() - mu[actions])[cp - 1]


def conversions(st: Setting, env: Realisation) -> Realisation:
    """What conversion learners face: under censoring, a conversion with D > m never happens."""
    if not st.censored:
        return env
    return Realisation(np.where(env.delays > st.window, 1.0, env.uniforms), env.delays)


def per_round(st: Setting, env: Realisation) -> tuple[np.ndarray, np.ndarray]:
    """(losses (T, K), delays (T,)) of the per-round-loss translation (module docstring); delays
    are capped at T, which changes no arrival within the game but keeps the total delay D that
    Skipper's tuning reads finite."""
    horizon = env.uniforms.shape[0]
    d = env.delays[:, 0]
    converted = env.uniforms < st.mu
    if st.censored:
        converted &= (d <= st.window)[:, None]
        d = np.minimum(d, st.window)
    return 1.0 - converted, np.ascontiguousarray(np.minimum(d, horizon))


def _translated(paper: str, algorithm: str, paper_setting, environment) -> tuple[Runner, Runner]:
    """(kernel, reference) of a paper's algorithm on the arena: ``paper_setting(st)`` and
    ``environment(st, env)`` translate the arena's setting and realisation into the paper's."""
    algo = get(paper, algorithm)

    def run(runner: Runner):
        def arena_runner(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
            _, actions, events = runner(paper_setting(st), environment(st, env), cp, seed)
            return _pseudo_regret(st.mu, actions, cp), actions, events
        return arena_runner

    return run(algo.kernel), run(algo.reference)


def _vernade2017(st: Setting, law: delays.DelayDistribution | None = None) -> v17.Setting:
    return v17.Setting(st.mu, law or st.pooled, st.window, 0.0, 1.0)


# d-UCB and d-KLUCB run their censored form (Algorithm 1 with window m) in every regime: without
# censoring they ignore conversions later than m by choice, like Discarding and OTFLin. The
# uncensored form (Remark 5) sums tau over every past pull, O(t) per round for a law that is not
# geometric: about 7k rounds per second at T = 10^5 (docs/decisions.md, "The arena").
_DUCB = _translated("vernade2017", "d-ucb", _vernade2017, conversions)
_DKLUCB = _translated("vernade2017", "d-klucb", _vernade2017, conversions)

# UCB that ignores delays: uncensored DelayedUCB told that every delay is 0 (a geometric law with
# mean 0, whose recursion costs O(K) per round), so its estimate is the conversions seen so far
# over the pulls, with the Hoeffding bonus sqrt(log t / (2 N)).
_NO_DELAY = delays.Geometric(0.0)
_UCB1 = _translated("vernade2017", "ud-ucb", lambda st: _vernade2017(st, _NO_DELAY), conversions)


def _pikeburke(st: Setting) -> pb.Setting:
    return pb.Setting(st.mu, st.observable)


def _manegueu(st: Setting) -> mg.Setting:
    law = st.delay if isinstance(st.delay, delays.PerArm) else delays.PerArm((st.delay,) * st.n_arms)
    return mg.Setting(st.mu, law, st.alpha_tilde, st.adapt)


def _thune(st: Setting) -> th.Setting:
    return th.Setting(st.n_arms, th.Losses("bernoulli_gap", float(st.mu.max() - np.sort(st.mu)[-2])))


def _thune_environment(st: Setting, env: Realisation) -> th.Environment:
    return th.Environment(*per_round(st, env))


def _vernade2020(st: Setting) -> v20.Setting:
    return v20.Setting(st.mu, st.n_arms, "canonical", st.pooled, st.window)


def _linear_environment(st: Setting, env: Realisation) -> v20.Environment:
    """Canonical basis: action k is e_k every round, so <A_t, theta> = mu_k."""
    horizon = env.uniforms.shape[0]
    basis = np.broadcast_to(np.eye(st.n_arms), (horizon, st.n_arms, st.n_arms))
    return v20.Environment(basis, np.ascontiguousarray(env.uniforms[:, 0]),
                           np.ascontiguousarray(env.delays[:, 0]))


def _uniform_play() -> tuple[Runner, Runner]:
    """Uniform play: one vectorised draw of the arms from the policy seed, so its kernel is its
    reference (there is no loop to compile)."""
    def runner(st: Setting, env: Realisation, cp: np.ndarray, seed: int):
        actions = np.random.default_rng(seed).integers(0, st.n_arms, env.uniforms.shape[0])
        return _pseudo_regret(st.mu, actions, cp), actions, None
    return runner, runner


def _needs_finite(moment: str):
    def check(st: Setting) -> str:
        value = getattr(st.observable, moment)
        return "" if math.isfinite(value) else (
            f"needs a finite {'E[τ]' if moment == 'mean' else 'V(τ)'}; this uncensored law has none")
    return check


def _action_independent(st: Setting) -> str:
    return ("its model has one delay per round, whatever the action; these delays depend on the "
            "arm" if st.arm_dependent else "")


ALGORITHMS: list[Algorithm] = [
    Algorithm("d-ucb", "d-UCB", "DelayedUCB (Vernade et al. 2017, Algorithm 1), window m",
              *_DUCB),
    Algorithm("d-klucb", "d-KLUCB", "DelayedKLUCB (Vernade et al. 2017, Algorithm 1), window m",
              *_DKLUCB),
    Algorithm("discarding-ucb", "Discarding UCB", "UCB on pulls older than m (Vernade et al. 2017)",
              *_translated("vernade2017", "discarding-ucb", _vernade2017, conversions)),
    Algorithm("qpm-d", "QPM-D", "QPM-D with UCB1 (Joulani et al. 2013), arm-labelled feedback",
              *_translated("pikeburke2018", "qpm-d", _pikeburke, conversions)),
    Algorithm("odaaf", "ODAAF", "Pike-Burke et al. 2018, Algorithm 1 with n_m of eq. (2)",
              *_translated("pikeburke2018", "odaaf", _pikeburke, conversions),
              applies=_needs_finite("mean")),
    Algorithm("odaaf-v", "ODAAF-V", "Pike-Burke et al. 2018, Algorithm 1 with n_m of eq. (7)",
              *_translated("pikeburke2018", "odaaf-v", _pikeburke, conversions),
              applies=_needs_finite("variance")),
    Algorithm("patient", "Patient", "Patient Bandits (Manegueu et al. 2020, Algorithm 1)",
              *_translated("manegueu2020", "patient", _manegueu, conversions)),
    Algorithm("adapt-patient", "Adapt-Patient", "Manegueu et al. 2020, Algorithm 2",
              *_translated("manegueu2020", "adapt-patient", _manegueu, conversions)),
    Algorithm("dew", "DEW", "Thune et al. 2019, Algorithm 1 (Theorem 1 tuning, knows d_max, D)",
              *_translated("thune2019", "dew", _thune, _thune_environment),
              applies=_action_independent),
    Algorithm("skipper", "Skipper", "Thune et al. 2019, Algorithm 2 over DEW (Corollary 4, knows D)",
              *_translated("thune2019", "skipper-explicit", _thune, _thune_environment),
              applies=_action_independent),
    Algorithm("doubling", "Doubling", "Thune et al. 2019, Section 4.1 (knows nothing)",
              *_translated("thune2019", "doubling", _thune, _thune_environment),
              applies=_action_independent),
    Algorithm("otflinucb", "OTFLinUCB", "Vernade et al. 2020, Algorithm 1, canonical basis",
              *_translated("vernade2020", "otflinucb", _vernade2020, _linear_environment),
              applies=_action_independent),
    Algorithm("otflints", "OTFLinTS", "Vernade et al. 2020, Algorithm 2, canonical basis",
              *_translated("vernade2020", "otflints", _vernade2020, _linear_environment),
              applies=_action_independent),
    Algorithm("ucb1", "UCB (ignores delays)", "UCB on the conversions seen so far over all pulls",
              *_UCB1),
    Algorithm("uniform", "Uniform play", "an arm uniformly at random each round",
              *_uniform_play()),
]

FEEDBACK_OF = {
    "d-ucb": "arm-labelled", "d-klucb": "arm-labelled", "discarding-ucb": "arm-labelled",
    "qpm-d": "arm-labelled", "odaaf": "anonymous aggregate", "odaaf-v": "anonymous aggregate",
    "patient": "arm-labelled", "adapt-patient": "arm-labelled", "dew": "per-round loss",
    "skipper": "per-round loss", "doubling": "per-round loss", "otflinucb": "arm-labelled",
    "otflints": "arm-labelled", "ucb1": "arm-labelled", "uniform": "none",
}


def told(algorithm: str, st: Setting) -> str:
    """What an algorithm is given beyond its feedback, with the values of this setting."""
    law = "pooled law's" if st.arm_dependent else "law's"
    cdf = f"m = {st.window} and the {law} CDF τ(d) up to m"
    obs = st.observable
    where = f" of min(D, m = {st.window})" if st.censored else ""
    return {
        "d-ucb": cdf, "d-klucb": cdf,
        "discarding-ucb": f"m = {st.window} and τ_m = {float(st.pooled.cdf(st.window)):.3g}",
        "qpm-d": "nothing",
        "odaaf": f"T and E[τ]{where} = {obs.mean:.4g}",
        "odaaf-v": f"T, E[τ] = {obs.mean:.4g} and V(τ) = {obs.variance:.4g}{where}",
        "patient": f"T and α̃ = {st.alpha_tilde:g}",
        "adapt-patient": f"T, α_low = {st.adapt.alpha_low:g}, c = {st.adapt.c:g}, "
                         f"μ_low = μ* = {st.adapt.mu_low:g}",
        "dew": "T, and d_max and D of the realised delays",
        "skipper": "T and D of the realised delays",
        "doubling": "nothing",
        "otflinucb": f"m = {st.window}, λ = 1, δ = 0.1",
        "otflints": f"m = {st.window}, λ = 1, δ = 0.1",
        "ucb1": "nothing (treats conversions in flight as failures)",
        "uniform": "nothing",
    }[algorithm]


# K = 10, small gap, geometric delays with mean 100, censored at m = 200: used by the bench.
BENCH = Setting(np.array([0.4] * 9 + [0.45]), delays.Geometric(100.0), 200, True, 0.5)
