"""An arena algorithm is one declaration, an ``Entrant``: its id, label, the feedback it sees,
what it is told, where it applies, which comparisons it enters, and its runners.

Your own algorithm enters the same way, without editing this package (``docs/arena.md``):

1. Write a policy, a plain Python class with three methods (``Policy``): ``choose(t)`` returns
   the arm (0-based) to pull at round t = 1..T; ``played(t, arm)`` is told the pull;
   ``observe(s, arm, delay)`` is told, at the start of a round, that the pull of ``arm`` at round
   s converted, ``delay`` rounds later. Nothing signals a non-conversion, and under censoring a
   conversion later than m never comes. Its constructor takes the ``Problem`` (K, T, m, whether
   delays are censored, the delay law) and a ``numpy.random.Generator`` seeded for the
   replication, its only source of randomness.
2. Declare it: ``ENTRANTS = [from_policy("my-id", "My label", "what it is", MyPolicy)]`` in a
   package named in ``$DELAYED_BANDITS_PAPERS`` (importable, e.g. through ``PYTHONPATH``).
   Optionally give ``kernel=``, a compiled function that takes the same actions (the tests hold
   every entrant's kernel to its reference).
3. Name it in a config overlay: ``papers.arena.regret.algorithms`` lists the curves to run.

It then runs on the same realisations as every other algorithm (same replications, same position
of the best arm) and lands as a row of the leaderboard and the heatmap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

import numpy as np

from delayed_bandits import delays
from delayed_bandits.algorithms import Algorithm, Runner
from delayed_bandits.papers.arena.problem import Draw, conversions, pseudo_regret
from delayed_bandits.references import checked_arm, run

FEEDBACK = ("arm-labelled", "anonymous aggregate", "per-round loss", "none")
"""What an algorithm sees of the conversions (``docs/decisions.md``, "The arena")."""

MATCHED, PUBLISHED = "matched", "published"
FIELDS = (MATCHED, PUBLISHED)
"""The two comparisons of the leaderboard. *matched*: every index method of the UCB family at one
exploration function, f(t) = log t inside its own confidence width (Hoeffding's sqrt(log t / 2N)
for a mean in [0, 1], the threshold log t / N for a KL index), with the methods that have no such
constant. *published*: the same, with each index method at its paper's constant. A method whose
paper's constant is the common one enters both with one row."""


@dataclass(frozen=True)
class Problem:
    """What the arena tells an entrant's policy when a replication starts."""

    n_arms: int
    horizon: int
    window: int  # m: the censoring window when censored, else a window a method may use
    censored: bool
    law: delays.DelayDistribution  # the delay law; the arms' laws pooled where they differ


class Policy(Protocol):
    """The interface of an arena policy (arm-labelled conversions; see the module docstring)."""

    def choose(self, t: int) -> int: ...

    def played(self, t: int, arm: int) -> None: ...

    def observe(self, s: int, arm: int, delay: int) -> None: ...


PolicyFactory = Callable[[Problem, np.random.Generator], Policy]
# (problem, means, uniforms, delays, policy seed) -> the arms played: a compiled twin of a policy
Kernel = Callable[[Problem, np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]


def _nothing(setting: Any) -> str:
    return "nothing"


@dataclass(frozen=True)
class Entrant(Algorithm):
    """One arena algorithm: ``Algorithm`` (id, label, description, runners, where it applies)
    and what the leaderboard reports of it."""

    feedback: str = "arm-labelled"  # of FEEDBACK
    knows: Callable[[Any], str] = _nothing  # what it is told, with the setting's values
    bonus: str = ""  # its exploration function; "" when it has none of the UCB kind
    fields: tuple[str, ...] = FIELDS  # the comparisons it enters

    def __post_init__(self) -> None:
        if self.feedback not in FEEDBACK:
            raise ValueError(
                f"entrant {self.id}: feedback {self.feedback!r} is not one of {', '.join(FEEDBACK)}"
            )
        if not self.fields or set(self.fields) - set(FIELDS):
            raise ValueError(
                f"entrant {self.id}: fields {self.fields!r} must be some of {', '.join(FIELDS)}"
            )


def problem(draw: Draw) -> Problem:
    st = draw.setting
    return Problem(st.n_arms, draw.realisation.uniforms.shape[0], st.window, st.censored, st.pooled)


def policy_runners(
    factory: PolicyFactory, kernel: Kernel | None = None, who: str = "the policy"
) -> tuple[Runner, Runner]:
    """(kernel, reference) runners of a policy on the arena's conversions: the reference plays
    the policy through the shared loop (``references.run``) with a generator
    seeded by the replication's policy seed; the kernel, when given, takes the same inputs."""

    def reference(_: Any, draw: Draw, cp: np.ndarray, seed: int):
        st, env = draw.setting, conversions(draw.setting, draw.realisation)
        policy = factory(problem(draw), np.random.default_rng(seed))
        actions = run(policy, st.mu, env.uniforms, env.delays, None, who=who)
        return pseudo_regret(st.mu, actions, cp), actions, None

    if kernel is None:
        return reference, reference

    def compiled(_: Any, draw: Draw, cp: np.ndarray, seed: int):
        st, env = draw.setting, conversions(draw.setting, draw.realisation)
        actions = np.asarray(kernel(problem(draw), st.mu, env.uniforms, env.delays, seed))
        if actions.dtype.kind not in "iu" or ((actions < 0) | (actions >= st.n_arms)).any():
            for t, arm in enumerate(actions.tolist(), start=1):  # the first bad round, named
                checked_arm(arm, t, st.n_arms, f"{who}'s kernel")
        return pseudo_regret(st.mu, actions, cp), actions, None

    return compiled, reference


def from_policy(
    id: str,
    label: str,
    description: str,
    policy: PolicyFactory,
    kernel: Kernel | None = None,
    **declared: Any,
) -> Entrant:
    """An entrant from a policy class (or any factory of ``Problem`` and a generator), with an
    optional compiled ``kernel``; ``declared`` sets the other ``Entrant`` fields (``knows``,
    ``bonus``, ``fields``, ``applies``; ``feedback`` is arm-labelled)."""
    runners = policy_runners(policy, kernel, f"entrant {id!r}")
    return Entrant(id, label, description, *runners, **declared)
