"""The arena's observation layer: what a learner of each information model may see of a
replication, and when (``docs/decisions/arena.md#information-models``).

A replication's realisation is a uniform u[t, a] and a delay D[t, a] per (round, arm); the pull
of arm a at round s converts iff u[s, a] < mu_a, D rounds later (under switching means the draw's
u are rescaled per round so that this gives the round's mean, ``problem.draw_environment``). Each model is one function here,
and it is the only place its rule is written: every runner of the arena (the papers' kernels and
references, the built-in baselines, the plug-in policies of ``entrants.policy_runners``) reads
what it returns and applies no window of its own to the problem's feedback.

The conversions, settled and labelled models return a ``Realisation`` of the same shape, read by
one rule, the references' loops' (``references.run``, ``run_outcomes``) and every kernel's: the
feedback of the pull (s, a) is 1 iff ``uniforms[s-1, a] < mu_a``, and it is usable from the start
of round s + ``delays[s-1, a]`` + 1 (Vernade et al. 2017's next-round convention,
``vernade2017.policies.usable`` with lag 1), if that round exists. A learner of the conversions
model is told only the 1s; a learner of the settled or labelled model is told every outcome. The
per-round-loss model returns Thune et al. 2019's game (losses, one delay per round).

The rules, with m the window, under censoring (a conversion later than m is never seen):

- conversions: a 1 at s + D + 1 (never if censored and D > m); a 0 is never delivered.
- settled at m: a conversion within m at s + D + 1; a 0 (no conversion, or one later than m) at
  s + m + 1, never earlier: what a learner that knows m can infer, censored or not.
- labelled outcomes (an oracle): uncensored, every outcome at s + D + 1; censored, every outcome
  at s + min(D, m) + 1, a conversion later than m a 0 at m, a non-conversion's 0 at min(D, m).
  Under reward-dependent delays a non-conversion's D is its 0's (``problem.draw_environment``),
  which only this model and the per-round losses' could see; the latter do not run there (their
  model has one delay per round, whatever the action).
- per-round losses: round t's loss l_t^a = 1 - 1{converted}; uncensored it arrives at
  t + d_t + 1; censored, a converted pull's loss (0) at d_t <= m, any other's (1) at m
  (``losses``: one delay per round, as Thune et al.'s model has it).
"""

from __future__ import annotations

import numpy as np

from delayed_bandits.arena.problem import Setting
from delayed_bandits.environment import Realisation

NEVER = 1.0
"""The uniform of a pull whose conversion is not delivered: no mean exceeds it."""


def _converted(st: Setting, env: Realisation, within: bool) -> np.ndarray:
    """(T, K) whether each pull converts, and, with ``within``, no later than the window m."""
    converted = env.uniforms < st.mu
    return converted & (env.delays <= st.window) if within else converted


def conversions(st: Setting, env: Realisation) -> Realisation:
    """The conversions model (and the anonymous aggregate's, whose kernels sum the conversions
    arriving each round): the realisation as it is, except that under censoring a conversion
    later than m is removed (its uniform set to ``NEVER``, so it never converts). A 0 is never
    delivered: read by ``references.run``, only the pulls below their mean reach ``observe``."""
    if not st.censored:
        return env
    return Realisation(np.where(env.delays > st.window, NEVER, env.uniforms), env.delays)


def settled(st: Setting, env: Realisation) -> Realisation:
    """The settled-at-m model, censored or not: a conversion within m keeps its delay D; any
    other pull (no conversion, or one later than m, removed) is a 0 whose delay is m, so it
    arrives at s + m + 1, when the window closes and not before (Vernade et al. 2017, Section 6:
    a pull older than m is settled)."""
    kept = _converted(st, env, within=True)
    return Realisation(
        np.where(kept, env.uniforms, NEVER),
        np.where(kept, env.delays, st.window).astype(env.delays.dtype),
    )


def labelled(st: Setting, env: Realisation) -> Realisation:
    """The labelled-outcomes model, an oracle: uncensored, the realisation as it is (every
    outcome at s + D + 1); under censoring, every outcome at s + min(D, m) + 1, a conversion
    later than m removed (a 0 at m), a non-conversion's 0 at min(D, m). The oracle knows a 0 is
    final when its delay has passed, which no application can know before m."""
    if not st.censored:
        return env
    return Realisation(
        conversions(st, env).uniforms, np.minimum(env.delays, st.window).astype(env.delays.dtype)
    )


def losses(st: Setting, env: Realisation) -> tuple[np.ndarray, np.ndarray]:
    """The per-round-loss model, Thune et al. 2019's game: (losses (T, K), delays (T,)).

    Round t's loss of arm a is l_t^a = 1 - 1{u[t, a] < mu_a} (times 1{d_t <= m} under
    censoring), with the round's delay d_t = D[t, 0] (their model has one delay per round,
    whatever the action). Uncensored, every loss arrives at t + d_t + 1. Under censoring a
    converted pull's loss (0) is known at d_t <= m and any other's (1) at m: the round's delay is
    the time its loss vector is settled, m if some arm's loss is 1, else d_t. So every 1 arrives
    exactly at m, never before; a 0 arrives at d_t, or at m in a round where another arm's loss
    is 1: a 0 changes no exponential weight (exp(-eta 0) = 1), so DEW, Skipper and Doubling
    learn nothing earlier than its rule allows. Delays are capped at T, which changes no arrival
    within the game but keeps the total delay D that Skipper's tuning reads finite."""
    horizon = env.uniforms.shape[0]
    d = env.delays[:, 0]
    converted = env.uniforms < st.mu
    if st.censored:
        converted &= (d <= st.window)[:, None]
        d = np.where(converted.all(axis=1), d, st.window)
    return 1.0 - converted, np.ascontiguousarray(np.minimum(d, horizon))
