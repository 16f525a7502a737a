"""The arena: every algorithm of the five papers, and the baselines practitioners use, on one
Bernoulli bandit with delayed conversions (``problem``), under each delay regime.

Each algorithm is one ``Entrant`` (``entrants``), with its information model
(``entrants.INFORMATION``). The papers' algorithms run through their own paper's kernel and
reference, on inputs translated from the replication's draw (the arms in the replication's
order, and a uniform and a delay per (round, arm)) by the observation layer (``observe``), which
writes each model's rule once: what its learners may see, and when
(``docs/decisions/arena.md#information-models``). No runner applies a window of its own to the
problem's feedback.

- conversions (Vernade 2017's d-UCB family, Manegueu 2020, the baselines that ignore delays):
  ``observe.conversions``, the realisation as it is; under censoring a conversion with D > m is
  removed (its uniform set to 1, so it never converts). The windowed methods (d-UCB, d-KLUCB,
  d-TS, OTFLinUCB/TS) then keep the conversions within their own window,
  ``Setting.learner_window``: m under censoring, the law's 0.99 quantile without
  (``docs/decisions/arena.md#uncensored-window``).
- settled at m (Discarding): ``observe.settled``, a conversion within m at s + D + 1, every
  other pull a 0 at s + m + 1, censored or not; Discarding counts the pulls older than m.
- labelled outcomes, an oracle (QPM-D over each base): ``observe.labelled``, every pull's 0 or 1
  queued at s + D + 1, or at s + min(D, m) + 1 under censoring, a conversion later than m a 0.
- anonymous aggregate (ODAAF, ODAAF-V, Pike-Burke 2018): ``observe.conversions``; their kernels
  observe only the sum of the conversions arriving each round.
- per-round loss (DEW, Skipper, Doubling, Thune 2019: adversarial bandits): ``observe.losses``,
  round t's loss l_t^a = 1 - 1{u_t^a < mu_a} (times 1{d_t <= m} under censoring) after
  d_t = D[t, 0] rounds; under censoring a 1 after m, never earlier, so they also learn of
  non-conversions, when they are settled. Their model has one delay per round, whatever the
  action, so they do not apply to arm-dependent delays.
- linear (OTFLinUCB/TS, Vernade 2020) on the canonical basis (d = K, theta = mu): the
  conversions, one uniform and one delay per round, u[t, 0] and D[t, 0] (the same law as the
  played arm's); their model's delays do not depend on the action either.

Exploration is compared twice (``entrants.FIELDS``): every index method of the UCB family at its
paper's constant, and at the common exploration function f(t) = log t. The metric is
pseudo-regret, sum_s (max mu - mu_{A_s}), recomputed from the actions for all; under switching
means, with the round's means (``problem.pseudo_regret``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Mapping

import numpy as np

from delayed_bandits import delays, papers
from delayed_bandits.algorithms import Runner, get
from delayed_bandits.arena.entrants import (
    ANONYMOUS,
    LABELLED,
    LOSSES,
    MATCHED,
    NONE,
    PUBLISHED,
    SETTLED,
    Base,
    Entrant,
    Handling,
    Problem,
    from_policy,
)
from delayed_bandits.arena.kernels import (
    run_em_thompson_kernel,
    run_ignores_delays_kernel,
    run_km_bootstrap_kernel,
)
from delayed_bandits.arena.observe import conversions, labelled, losses, settled
from delayed_bandits.arena.policies import EMThompson, IgnoresDelays, KaplanMeierBootstrap
from delayed_bandits.arena.problem import (
    UNCENSORED_COVERAGE,
    WINDOW_LIMIT,
    Draw,
    Setting,
    draw_environment,
    pseudo_regret,
)
from delayed_bandits.environment import Realisation, checkpoint_grid
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.manegueu2020 import experiment as mg
from delayed_bandits.papers.pikeburke2018 import experiment as pb
from delayed_bandits.papers.thune2019 import experiment as th
from delayed_bandits.papers.vernade2017 import experiment as v17
from delayed_bandits.papers.vernade2020 import experiment as v20

__all__ = [
    "ALGORITHMS",
    "BENCH",
    "BENCH_READINGS",
    "Setting",
    "draw_environment",
]  # the papers.Experiment contract


def _translated(
    paper: str,
    algorithm: str,
    paper_setting: Callable[[Setting], Any],
    environment: Callable[[Setting, Realisation], Any],
) -> tuple[Runner, Runner]:
    """(kernel, reference) of a paper's algorithm on the arena: ``paper_setting(st)`` and
    ``environment(st, env)`` translate the replication's problem and realisation into the
    paper's."""
    algo = get(paper, algorithm)

    def run(runner: Runner):
        def arena_runner(_: Setting, draw: Draw, cp: np.ndarray, seed: int):
            st = draw.setting
            _, actions, events = runner(
                paper_setting(st), environment(st, draw.realisation), cp, seed
            )
            return pseudo_regret(st, actions, cp), actions, events

        return arena_runner

    return run(algo.kernel), run(algo.reference)


def _vernade2017(st: Setting) -> v17.Setting:
    """epsilon = 0: beta(t) = log t, the common exploration function, as in our reproduction of
    Vernade et al. 2017 (docs/decisions/vernade2017.md#exploration); the window m is the
    setting's, where Discarding's pulls are settled."""
    return v17.Setting(st.mu, st.pooled, st.window, 0.0, 1.0)


def _windowed(st: Setting) -> v17.Setting:
    """Algorithm 1's windowed form at its window, ``Setting.learner_window``: m under censoring,
    the law's ``UNCENSORED_COVERAGE`` quantile without (Corollary 10's proof)."""
    return replace(_vernade2017(st), window=st.learner_window)


def _estimated(st: Setting) -> str:
    return (
        f"m = {st.window} and nothing of the delay law: the CDF up to m is the empirical one of "
        "the delays of the conversions seen"
    )


def _pikeburke(coefficient: float) -> Callable[[Setting], pb.Setting]:
    def translate(st: Setting) -> pb.Setting:
        return pb.Setting(st.mu, st.observable, qpmd_coefficient=coefficient)

    return translate


def _manegueu(st: Setting) -> mg.Setting:
    law = (
        st.delay if isinstance(st.delay, delays.PerArm) else delays.PerArm((st.delay,) * st.n_arms)
    )
    return mg.Setting(st.mu, law, st.alpha_tilde, st.adapt)


def _thune(st: Setting) -> th.Setting:
    return th.Setting(
        st.n_arms, th.Losses("bernoulli_gap", float(st.mu.max() - np.sort(st.mu)[-2]))
    )


def _thune_environment(st: Setting, env: Realisation) -> th.Environment:
    return th.Environment(*losses(st, env))


def _vernade2020(st: Setting) -> v20.Setting:
    """OTFLin's window is its own parameter (Vernade et al. 2020, Section 4): the problem's m
    under censoring, the law's ``UNCENSORED_COVERAGE`` quantile without
    (``Setting.learner_window``)."""
    return v20.Setting(st.mu, st.n_arms, "canonical", st.pooled, st.learner_window)


def _linear_environment(st: Setting, env: Realisation) -> v20.Environment:
    """Canonical basis: action k is e_k every round, so <A_t, theta> = mu_k; the conversions of
    the observation layer, one uniform and one delay per round (column 0)."""
    horizon = env.uniforms.shape[0]
    seen = conversions(st, env)
    basis = np.broadcast_to(np.eye(st.n_arms), (horizon, st.n_arms, st.n_arms))
    return v20.Environment(
        basis, np.ascontiguousarray(seen.uniforms[:, 0]), np.ascontiguousarray(seen.delays[:, 0])
    )


def _uniform_play() -> tuple[Runner, Runner]:
    """Uniform play: one vectorised draw of the arms from the policy seed, so its kernel is its
    reference (there is no loop to compile)."""

    def runner(_: Setting, draw: Draw, cp: np.ndarray, seed: int):
        st = draw.setting
        actions = np.random.default_rng(seed).integers(
            0, st.n_arms, draw.realisation.uniforms.shape[0]
        )
        return pseudo_regret(st, actions, cp), actions, None

    return runner, runner


def _ignores_delays(index: str, coefficient: float = 1.0, loglog: float = 0.0):
    """(policy factory, kernel) of a baseline that ignores delays (``policies.IgnoresDelays``)."""

    def policy(problem: Problem, rng: np.random.Generator) -> IgnoresDelays:
        return IgnoresDelays(problem.n_arms, index, coefficient, loglog, rng)

    def kernel(
        problem: Problem, mu: np.ndarray, uniforms: np.ndarray, delays_: np.ndarray, seed: int
    ) -> np.ndarray:
        cp = np.array([problem.horizon], dtype=np.int64)
        return run_ignores_delays_kernel(
            mu, uniforms, delays_, index, coefficient, loglog, seed, cp
        )[1]

    return policy, kernel


def _em_thompson():
    """(policy factory, kernel) of Thompson sampling on the EM delay model
    (``policies.EMThompson``), told m where the problem censors."""

    def window(problem: Problem) -> int | None:
        return problem.window if problem.censored else None

    def policy(problem: Problem, rng: np.random.Generator) -> EMThompson:
        return EMThompson(problem.n_arms, window(problem), rng)

    def kernel(
        problem: Problem, mu: np.ndarray, uniforms: np.ndarray, delays_: np.ndarray, seed: int
    ) -> np.ndarray:
        return run_em_thompson_kernel(mu, uniforms, delays_, window(problem), seed)

    return policy, kernel


def _em_knows(st: Setting) -> str:
    fitted = "nothing of the delay law: a geometric law fitted by EM with the rates"
    if st.censored:
        return f"m = {st.window} (a conversion later than m never arrives) and {fitted}"
    return f"{fitted}, no window"


def _km_bootstrap():
    """(policy factory, kernel) of bootstrap Thompson sampling on a Kaplan-Meier EM fit
    (``policies.KaplanMeierBootstrap``), told m."""

    def policy(problem: Problem, rng: np.random.Generator) -> KaplanMeierBootstrap:
        return KaplanMeierBootstrap(problem.n_arms, problem.window, rng)

    def kernel(
        problem: Problem, mu: np.ndarray, uniforms: np.ndarray, delays_: np.ndarray, seed: int
    ) -> np.ndarray:
        return run_km_bootstrap_kernel(mu, uniforms, delays_, problem.window, seed)

    return policy, kernel


def _km_knows(st: Setting) -> str:
    return (
        f"m = {st.window} (a conversion later than m never arrives) and nothing of the delay "
        "law: a Kaplan-Meier law fitted by EM with the rates"
    )


def _censored(st: Setting) -> str:
    """Where the bootstrap's pulls in flight are the last m rounds' (``KaplanMeierBootstrap``)."""
    if st.censored:
        return ""
    return (
        "uncensored, every pull not converted yet is in flight: its bootstrap resamples each, "
        "O(t) a round, not affordable at this T"
    )


def _needs_finite(moment: str):
    def check(st: Setting) -> str:
        value = getattr(st.observable, moment)
        return (
            ""
            if math.isfinite(value)
            else (
                f"needs a finite {'E[τ]' if moment == 'mean' else 'V(τ)'}; this uncensored law has none"
            )
        )

    return check


def _action_independent(st: Setting) -> str:
    if st.arm_dependent:
        return (
            "its model has one delay per round, whatever the action; these delays depend on the arm"
        )
    if st.reward_dependent:
        return (
            "its model has one delay per round, whatever the action; these delays depend on "
            "the played arm's outcome"
        )
    return ""


def _cdf(st: Setting) -> str:
    law = "pooled law's" if st.arm_dependent else "law's"
    return f"m = {_window(st)} and the {law} CDF τ(d) up to m"


def _window(st: Setting) -> str:
    """The window a windowed method is told, and where it comes from when uncensored."""
    if st.censored:
        return str(st.window)
    return f"{st.learner_window} (the law's {UNCENSORED_COVERAGE:g} quantile: uncensored)"


def _window_affordable(st: Setting) -> str:
    """Where a windowed method's window is affordable (``problem.WINDOW_LIMIT``)."""
    if st.learner_window <= WINDOW_LIMIT:
        return ""
    return (
        f"uncensored, its window is the law's {UNCENSORED_COVERAGE:g} quantile, "
        f"{st.learner_window} rounds: beyond {WINDOW_LIMIT}, a sum over the window each round "
        "is not affordable at this T"
    )


def _linear_applies(st: Setting) -> str:
    return _action_independent(st) or _window_affordable(st) or _stationary(st)


def _stationary(st: Setting) -> str:
    """OTFLin's runs decide a round's reward with one uniform for every action (Vernade et al.
    2020, Section 3), which the switch's per-arm rescaled uniforms (``problem.draw_environment``)
    do not give."""
    if st.switch is not None:
        return (
            "its runs draw one reward uniform per round for every action, which does not carry "
            "per-arm switching means"
        )
    return ""


def _settled(st: Setting) -> str:
    return f" of min(D, m = {st.window})" if st.censored else ""


def _uncensored_form(st: Setting) -> str:
    """Where Algorithm 1's uncensored form (Remark 5) is affordable: the geometric law's
    recursion (6) is O(1) a round; any other law's N~ sums tau over every past pull, O(t)."""
    if st.censored:
        return "under censoring the windowed form is the exact one (the row without 'u')"
    if st.arm_dependent or not isinstance(st.delay, delays.Geometric):
        return (
            "the uncensored N~ sums τ over every past pull, O(t) a round, unless the law is "
            "geometric: not affordable at this T"
        )
    return ""


def _full_cdf(st: Setting) -> str:
    law = st.pooled
    return (
        f"the geometric law's CDF (q = {law.q:.4g}), no window"
        if isinstance(law, delays.Geometric)
        else "the law's CDF, no window"
    )


def _tau_m(st: Setting) -> str:
    return f"m = {st.window} and τ_m = {float(st.pooled.cdf(st.window)):.3g}"


def _told(text: str) -> Callable[[Setting], str]:
    return lambda st: text


IGNORANT = "nothing (treats conversions in flight as failures)"
LOG_T = "f(t) = log t"

# The curves' families, in the order of their colours (``views.families``); a family of a plug-in
# entrant that is not here takes the next colour.
VERNADE2017, TS_ON_N = "Vernade et al. 2017", "Thompson sampling on N~"
ESTIMATING = "told no delay law"
DISCARDING, QUEUEING = "Discarding (settled at m)", "QPM-D (labelled outcomes)"
PIKEBURKE2018, MANEGUEU2020 = "Pike-Burke et al. 2018", "Manegueu et al. 2020"
THUNE2019, VERNADE2020 = "Thune et al. 2019", "Vernade et al. 2020"
IGNORING = "ignoring delays"
FAMILIES = (
    VERNADE2017,
    DISCARDING,
    TS_ON_N,
    ESTIMATING,
    QUEUEING,
    PIKEBURKE2018,
    MANEGUEU2020,
    THUNE2019,
    VERNADE2020,
    IGNORING,
)

# The handling × base tables: the ways of handling delays (rows, in this order) crossed with the
# base learners (columns).
IGNORE = Handling("ignore delays", "ignore delays")
CORRECT = Handling(
    "correct Ñ, window m",
    "correct the count Ñ with the known CDF, window m (Vernade et al. 2017)",
)
UNCENSORED = Handling(
    "correct Ñ, uncensored form",
    "the same, uncensored form (Remark 5: geometric laws, uncensored)",
)
ESTIMATE = Handling(
    "correct Ñ, CDF estimated, window m",
    "the same, told no delay law: the CDF up to m estimated online from the delays of the "
    "conversions seen (Vernade et al. 2017, Appendix D)",
)
FIT = Handling(
    "fit conversion and delay (EM)",
    "told no delay law: conversion rates and a geometric delay law fitted jointly by EM, each "
    "pending pull weighted by its chance to convert still (Chapelle 2014)",
)
BOOTSTRAP = Handling(
    "bootstrap a Kaplan-Meier EM fit",
    "told no delay law, censored at m: conversion rates and a Kaplan-Meier delay law fitted "
    "jointly by EM, each arm's rate resampled by the bootstrap every round (Gigli and Stella "
    "2024)",
)
DISCARD = Handling(
    "discard what is not settled at m",
    "discard what is not settled at m (Vernade et al. 2017, Section 6)",
)
QUEUE = Handling(
    "queue until known (QPM-D, oracle)",
    "queue until the outcome is known (QPM-D, Joulani et al. 2013)",
)
HANDLINGS = (IGNORE, CORRECT, UNCENSORED, ESTIMATE, FIT, BOOTSTRAP, DISCARD, QUEUE)
UCB = Base("UCB at log t", "UCB at log t")
KLUCB = Base("KL-UCB at log t", "KL-UCB at log t")
TS = Base("Thompson sampling", "Beta(1, 1) TS")
BASES = (UCB, KLUCB, TS)


BUILT_IN: list[Entrant] = [
    Entrant(
        "d-ucb",
        "d-UCB",
        "DelayedUCB (Vernade et al. 2017, Algorithm 1), window m",
        *_translated("vernade2017", "d-ucb", _windowed, conversions),
        applies=_window_affordable,
        knows=_cdf,
        bonus=f"{LOG_T} (ε = 0)",
        family=VERNADE2017,
        handling=CORRECT,
        base=UCB,
    ),
    Entrant(
        "d-klucb",
        "d-KLUCB",
        "DelayedKLUCB (Vernade et al. 2017, Algorithm 1), window m",
        *_translated("vernade2017", "d-klucb", _windowed, conversions),
        applies=_window_affordable,
        knows=_cdf,
        bonus=f"{LOG_T} (ε = 0)",
        family=VERNADE2017,
        handling=CORRECT,
        base=KLUCB,
    ),
    Entrant(
        "d-ts",
        "d-TS",
        "Beta(1, 1) Thompson sampling on Vernade et al. 2017's N~, window m: "
        "Beta(1 + S, 1 + max(N~ - S, 0))",
        *_translated("vernade2017", "d-ts", _windowed, conversions),
        applies=_window_affordable,
        knows=_cdf,
        family=TS_ON_N,
        handling=CORRECT,
        base=TS,
    ),
    Entrant(
        "ud-ucb",
        "ud-UCB",
        "DelayedUCB (Vernade et al. 2017, Algorithm 1), uncensored form (Remark 5)",
        *_translated("vernade2017", "ud-ucb", _vernade2017, conversions),
        applies=_uncensored_form,
        knows=_full_cdf,
        bonus=f"{LOG_T} (ε = 0)",
        family=VERNADE2017,
        handling=UNCENSORED,
        base=UCB,
    ),
    Entrant(
        "ud-klucb",
        "ud-KLUCB",
        "DelayedKLUCB (Vernade et al. 2017, Algorithm 1), uncensored form (Remark 5)",
        *_translated("vernade2017", "ud-klucb", _vernade2017, conversions),
        applies=_uncensored_form,
        knows=_full_cdf,
        bonus=f"{LOG_T} (ε = 0)",
        family=VERNADE2017,
        handling=UNCENSORED,
        base=KLUCB,
    ),
    Entrant(
        "ud-ts",
        "ud-TS",
        "Beta(1, 1) Thompson sampling on N~, uncensored form (Remark 5)",
        *_translated("vernade2017", "ud-ts", _vernade2017, conversions),
        applies=_uncensored_form,
        knows=_full_cdf,
        family=TS_ON_N,
        handling=UNCENSORED,
        base=TS,
    ),
    Entrant(
        "d-ucb-est",
        "d-UCB (estimated CDF)",
        "DelayedUCB (Vernade et al. 2017, Algorithm 1) with Appendix D's estimated CDF, window m",
        *_translated("vernade2017", "d-ucb-est", _vernade2017, conversions),
        knows=_estimated,
        bonus=f"{LOG_T} (ε = 0)",
        family=ESTIMATING,
        handling=ESTIMATE,
        base=UCB,
    ),
    Entrant(
        "d-klucb-est",
        "d-KLUCB (estimated CDF)",
        "DelayedKLUCB (Vernade et al. 2017, Algorithm 1) with Appendix D's estimated CDF, window m",
        *_translated("vernade2017", "d-klucb-est", _vernade2017, conversions),
        knows=_estimated,
        bonus=f"{LOG_T} (ε = 0)",
        family=ESTIMATING,
        handling=ESTIMATE,
        base=KLUCB,
    ),
    Entrant(
        "d-ts-est",
        "d-TS (estimated CDF)",
        "Beta(1, 1) Thompson sampling on N~ with Appendix D's estimated CDF, window m",
        *_translated("vernade2017", "d-ts-est", _vernade2017, conversions),
        knows=_estimated,
        family=ESTIMATING,
        handling=ESTIMATE,
        base=TS,
    ),
    from_policy(
        "ts-em",
        "TS on an EM delay model",
        "Beta(1, 1) Thompson sampling on the expected conversions of Chapelle 2014's "
        "delayed-feedback model (a rate per arm, one geometric delay law), fitted online by EM",
        *_em_thompson(),
        knows=_em_knows,
        family=ESTIMATING,
        handling=FIT,
        base=TS,
    ),
    from_policy(
        "ts-km",
        "Bootstrap TS on a Kaplan-Meier fit",
        "Bootstrap Thompson sampling (Gigli and Stella 2024, finite-armed): each round, each "
        "arm's pulls resampled and weighted by an EM fit of the rates and a Kaplan-Meier delay "
        "law, under censoring at m",
        *_km_bootstrap(),
        knows=_km_knows,
        applies=_censored,
        family=ESTIMATING,
        handling=BOOTSTRAP,
        base=TS,
    ),
    Entrant(
        "discarding-ucb",
        "Discarding UCB",
        "UCB on pulls older than m (Vernade et al. 2017)",
        *_translated("vernade2017", "discarding-ucb", _vernade2017, settled),
        information=SETTLED,
        knows=_tau_m,
        bonus=f"{LOG_T} (ε = 0)",
        family=DISCARDING,
        handling=DISCARD,
        base=UCB,
    ),
    Entrant(
        "discarding-klucb",
        "Discarding KL-UCB",
        "KL-UCB on pulls older than m (Vernade et al. 2017, Section 6)",
        *_translated("vernade2017", "discarding-klucb", _vernade2017, settled),
        information=SETTLED,
        knows=_tau_m,
        bonus=f"{LOG_T} (ε = 0)",
        family=DISCARDING,
        handling=DISCARD,
        base=KLUCB,
    ),
    Entrant(
        "discarding-ts",
        "Discarding TS",
        "Beta(1, 1) Thompson sampling on pulls older than m",
        *_translated("vernade2017", "discarding-ts", _vernade2017, settled),
        information=SETTLED,
        knows=lambda st: f"m = {st.window}",
        family=DISCARDING,
        handling=DISCARD,
        base=TS,
    ),
    Entrant(
        "qpm-d",
        "QPM-D",
        "QPM-D with UCB1 (Joulani et al. 2013), labelled outcomes",
        *_translated("pikeburke2018", "qpm-d", _pikeburke(2.0), labelled),
        information=LABELLED,
        bonus="f(n) = 4 log n (UCB1)",
        fields=(PUBLISHED,),
        family=QUEUEING,
    ),
    Entrant(
        "qpm-d-matched",
        "QPM-D at log n",
        "QPM-D with UCB at f(n) = log n as its base, labelled outcomes",
        *_translated("pikeburke2018", "qpm-d", _pikeburke(0.5), labelled),
        information=LABELLED,
        bonus="f(n) = log n",
        fields=(MATCHED,),
        family=QUEUEING,
        handling=QUEUE,
        base=UCB,
    ),
    Entrant(
        "qpm-d-klucb",
        "QPM-D over KL-UCB",
        "QPM-D with Bernoulli KL-UCB at f(n) = log n as its base, labelled outcomes",
        *_translated("pikeburke2018", "qpm-d-klucb", _pikeburke(0.5), labelled),
        information=LABELLED,
        bonus="f(n) = log n",
        family=QUEUEING,
        handling=QUEUE,
        base=KLUCB,
    ),
    Entrant(
        "qpm-d-ts",
        "QPM-D over TS",
        "QPM-D with Beta(1, 1) Thompson sampling as its base (one posterior draw per base "
        "step), labelled outcomes",
        *_translated("pikeburke2018", "qpm-d-ts", _pikeburke(0.5), labelled),
        information=LABELLED,
        family=QUEUEING,
        handling=QUEUE,
        base=TS,
    ),
    Entrant(
        "odaaf",
        "ODAAF",
        "Pike-Burke et al. 2018, Algorithm 1 with n_m of eq. (2)",
        *_translated("pikeburke2018", "odaaf", _pikeburke(2.0), conversions),
        applies=_needs_finite("mean"),
        information=ANONYMOUS,
        knows=lambda st: f"T and E[τ]{_settled(st)} = {st.observable.mean:.4g}",
        family=PIKEBURKE2018,
        horizon_tuned=True,
    ),
    Entrant(
        "odaaf-v",
        "ODAAF-V",
        "Pike-Burke et al. 2018, Algorithm 1 with n_m of eq. (7)",
        *_translated("pikeburke2018", "odaaf-v", _pikeburke(2.0), conversions),
        applies=_needs_finite("variance"),
        information=ANONYMOUS,
        knows=lambda st: (
            f"T, E[τ] = {st.observable.mean:.4g} and "
            f"V(τ) = {st.observable.variance:.4g}{_settled(st)}"
        ),
        family=PIKEBURKE2018,
        horizon_tuned=True,
    ),
    Entrant(
        "patient",
        "Patient",
        "Patient Bandits (Manegueu et al. 2020, Algorithm 1)",
        *_translated("manegueu2020", "patient", _manegueu, conversions),
        knows=lambda st: f"T and α̃ = {st.alpha_tilde:g}",
        family=MANEGUEU2020,
        horizon_tuned=True,
    ),
    Entrant(
        "adapt-patient",
        "Adapt-Patient",
        "Manegueu et al. 2020, Algorithm 2",
        *_translated("manegueu2020", "adapt-patient", _manegueu, conversions),
        knows=lambda st: (
            f"T, α_low = {st.adapt.alpha_low:g}, c = {st.adapt.c:g}, "
            f"μ_low = μ* = {st.adapt.mu_low:g}"
        ),
        family=MANEGUEU2020,
        horizon_tuned=True,
    ),
    Entrant(
        "dew",
        "DEW",
        "Thune et al. 2019, Algorithm 1 (Theorem 1 tuning, knows d_max, D)",
        *_translated("thune2019", "dew", _thune, _thune_environment),
        applies=_action_independent,
        information=LOSSES,
        knows=_told("T, and d_max and D of the realised delays"),
        family=THUNE2019,
        horizon_tuned=True,
    ),
    Entrant(
        "skipper",
        "Skipper",
        "Thune et al. 2019, Algorithm 2 over DEW (Corollary 4, knows D)",
        *_translated("thune2019", "skipper-explicit", _thune, _thune_environment),
        applies=_action_independent,
        information=LOSSES,
        knows=_told("T and D of the realised delays"),
        family=THUNE2019,
        horizon_tuned=True,
    ),
    Entrant(
        "doubling",
        "Doubling",
        "Thune et al. 2019, Section 4.1 (knows nothing)",
        *_translated("thune2019", "doubling", _thune, _thune_environment),
        applies=_action_independent,
        information=LOSSES,
        family=THUNE2019,
    ),
    Entrant(
        "otflinucb",
        "OTFLinUCB",
        "Vernade et al. 2020, Algorithm 1, canonical basis",
        *_translated("vernade2020", "otflinucb", _vernade2020, _linear_environment),
        applies=_linear_applies,
        knows=lambda st: f"m = {_window(st)}, λ = 1, δ = 0.1",
        family=VERNADE2020,
    ),
    Entrant(
        "otflints",
        "OTFLinTS",
        "Vernade et al. 2020, Algorithm 2, canonical basis",
        *_translated("vernade2020", "otflints", _vernade2020, _linear_environment),
        applies=_linear_applies,
        knows=lambda st: f"m = {_window(st)}, λ = 1, δ = 0.1",
        family=VERNADE2020,
    ),
    from_policy(
        "ucb1",
        "UCB1 (ignores delays)",
        "UCB1 (Auer et al. 2002) on the conversions seen so far over all pulls",
        *_ignores_delays("ucb", coefficient=4.0),
        knows=_told(IGNORANT),
        bonus="f(t) = 4 log t (UCB1)",
        fields=(PUBLISHED,),
        family=IGNORING,
    ),
    from_policy(
        "ucb1-matched",
        "UCB at log t (ignores delays)",
        "UCB with the Hoeffding bonus sqrt(log t / 2N) on the conversions seen so far "
        "over all pulls",
        *_ignores_delays("ucb"),
        knows=_told(IGNORANT),
        bonus=LOG_T,
        fields=(MATCHED,),
        family=IGNORING,
        handling=IGNORE,
        base=UCB,
    ),
    from_policy(
        "klucb",
        "KL-UCB (ignores delays)",
        "Bernoulli KL-UCB (Garivier & Cappé 2011, f(t) = log t + 3 log log t) on the "
        "conversions seen so far over all pulls",
        *_ignores_delays("klucb", loglog=3.0),
        knows=_told(IGNORANT),
        bonus="f(t) = log t + 3 log log t",
        fields=(PUBLISHED,),
        family=IGNORING,
    ),
    from_policy(
        "klucb-matched",
        "KL-UCB at log t (ignores delays)",
        "Bernoulli KL-UCB at f(t) = log t on the conversions seen so far over all pulls",
        *_ignores_delays("klucb"),
        knows=_told(IGNORANT),
        bonus=LOG_T,
        fields=(MATCHED,),
        family=IGNORING,
        handling=IGNORE,
        base=KLUCB,
    ),
    from_policy(
        "ts",
        "Thompson sampling (ignores delays)",
        "Beta(1, 1) Thompson sampling (Chapelle & Li 2011) on the conversions seen so "
        "far over all pulls",
        *_ignores_delays("ts"),
        knows=_told(IGNORANT),
        family=IGNORING,
        handling=IGNORE,
        base=TS,
    ),
    Entrant(
        "uniform",
        "Uniform play",
        "an arm uniformly at random each round",
        *_uniform_play(),
        information=NONE,
        family=IGNORING,
    ),
]


def _plugged_in() -> list[Entrant]:
    """The ``ENTRANTS`` of the packages named in ``$DELAYED_BANDITS_PAPERS``, audited: their jobs
    hold each kernel to its reference before its results count (``Algorithm.audited``,
    docs/decisions/arena.md#plug-in-audit)."""
    return [
        replace(entrant, audited=True)
        for module in papers.plugins()
        for entrant in getattr(module, "ENTRANTS", ())
    ]


ALGORITHMS: list[Entrant] = BUILT_IN + _plugged_in()
_taken = [a.id for a in ALGORITHMS]
if len(set(_taken)) < len(_taken):
    raise ConfigError(
        f"arena algorithm ids {sorted({i for i in _taken if _taken.count(i) > 1})} "
        f"are declared twice (built in, or in ${papers.PLUGINS})"
    )


def families(entrants: list[Entrant] | None = None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(family, its entrants' ids) of ``entrants`` (default: every algorithm), from their
    declarations: the families of ``FAMILIES`` in that order, then any other in order of
    appearance; an entrant of no family is left out (it joins "other entrants")."""
    found: dict[str, list[str]] = {name: [] for name in FAMILIES}
    for entrant in ALGORITHMS if entrants is None else entrants:
        if entrant.family:
            found.setdefault(entrant.family, []).append(entrant.id)
    return tuple((name, tuple(ids)) for name, ids in found.items() if ids)


def crossing(entrants: list[Entrant] | None = None) -> dict[Handling, dict[Base, Entrant]]:
    """The handling × base table of ``entrants`` (default: every algorithm), from their
    declarations: the rows in the order of ``HANDLINGS`` then of appearance, the columns in the
    order of ``BASES`` then of appearance; a cell declared twice is an error naming both."""
    declared = [e for e in (ALGORITHMS if entrants is None else entrants) if e.handling]
    rows = sorted(
        dict.fromkeys(e.handling for e in declared),
        key=lambda h: HANDLINGS.index(h) if h in HANDLINGS else len(HANDLINGS),
    )
    columns = sorted(
        dict.fromkeys(e.base for e in declared),
        key=lambda b: BASES.index(b) if b in BASES else len(BASES),
    )
    table: dict[Handling, dict[Base, Entrant]] = {h: {} for h in rows}
    for base in columns:
        for e in (e for e in declared if e.base == base):
            taken = table[e.handling].setdefault(base, e)
            if taken is not e:
                raise ConfigError(
                    f"arena algorithms {taken.id} and {e.id} both declare the cell "
                    f"({e.handling.name}, {base.name}) of the handling × base table"
                )
    return table


def columns(table: Mapping[Handling, Mapping[Base, Entrant]]) -> tuple[Base, ...]:
    """The base learners of a ``crossing`` table, in the order of ``BASES`` then of appearance."""
    found = dict.fromkeys(base for row in table.values() for base in row)
    return tuple(sorted(found, key=lambda b: BASES.index(b) if b in BASES else len(BASES)))


# K = 10, small gap, geometric delays with mean 100, censored at m = 200: used by the bench; the
# same uncensored takes the uncensored form of N~ (ud-UCB, ud-KLUCB, ud-TS).
BENCH = Setting(np.array([0.4] * 9 + [0.45]), delays.Geometric(100.0), 200, True, 0.5)
BENCH_READINGS = {"uncensored": replace(BENCH, censored=False)}


SWITCHING = "switching"
"""The figure of switching means, reported apart from the stationary regimes: every setting of
it has a ``switch`` and no other figure's does (docs/decisions/arena.md#switching)."""


def check_figure(fig: Mapping[str, Any], where: str) -> None:
    """``leaderboard_at``: rounds the runs record (checkpoints), so that every horizon of the
    leaderboard comes from the same replications. ``draws_as``: another listed regime with the
    same delay law, so that the two face the same conversions (``problem.draw_environment``).
    ``switch``: in every setting of the ``SWITCHING`` figure and in no other's."""
    apart = where.rsplit(".", 1)[-1] == SWITCHING
    for name, cfg in fig["settings"].items():
        if ("switch" in cfg) != apart:
            raise ConfigError(
                f"{where}.settings.{name}.switch: "
                + (
                    f"every setting of figure {SWITCHING} has one"
                    if apart
                    else f"switching means are reported apart, in figure {SWITCHING}, only"
                )
            )
    for name, cfg in fig["settings"].items():
        twin = cfg.get("draws_as")
        if twin is None:
            continue
        if twin == name or twin not in fig["settings"] or "draws_as" in fig["settings"][twin]:
            allowed = [
                s for s in fig["settings"] if s != name and "draws_as" not in fig["settings"][s]
            ]
            raise ConfigError(
                f"{where}.settings.{name}.draws_as: {twin!r} is not another listed regime that "
                f"draws its own; allowed: {', '.join(allowed)}"
            )
        if cfg["delay"] != fig["settings"][twin]["delay"]:
            raise ConfigError(
                f"{where}.settings.{name}.draws_as: {twin!r} has another delay law; a regime "
                "shares the draws of one with the same delay (only zero_delay may differ)"
            )
    recorded = checkpoint_grid(int(fig["horizon"]), int(fig["checkpoints"]))
    for horizon in fig.get("leaderboard_at", []):
        if horizon not in recorded:
            raise ConfigError(
                f"{where}.leaderboard_at: {horizon} is not a checkpoint of the runs; "
                f"allowed: {', '.join(str(int(t)) for t in recorded)}"
            )
