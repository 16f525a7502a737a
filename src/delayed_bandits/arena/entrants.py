"""An arena algorithm is one declaration, an ``Entrant``: its id, label, the information it observes
(one of ``INFORMATION``), what it is told, where it applies, which comparisons it enters, and its
runners.

Your own algorithm enters the same way, without editing this package (``docs/arena.md``):

1. Write a policy, a plain Python class with three methods (``Policy``): ``choose(t)`` returns
   the arm (0-based) to pull at round t = 1..T; ``played(t, arm)`` is told the pull;
   ``observe(s, arm, delay)`` is told, at the start of a round, that the pull of ``arm`` at round
   s converted, ``delay`` rounds later. Nothing signals a non-conversion, and under censoring a
   conversion later than m never comes. Its constructor takes the ``Problem`` (K, T, m, whether
   delays are censored, the delay law) and a ``numpy.random.Generator`` seeded for the
   replication, its only source of randomness. A policy that needs every outcome, 0 or 1, has
   ``observe_outcome(s, arm, reward, delay)`` instead of ``observe`` and declares the
   information it needs, ``information=LABELLED`` (every outcome after its delay: an oracle) or
   ``information=SETTLED`` (a conversion within the window m after its delay, any other pull's
   0 at m); ``delay`` is then the wait the model imposed (D, or m for a settled 0, min(D, m)
   for a censored labelled outcome), never a non-conversion's hidden D. What each model
   delivers, and when, is the observation layer's (``observe``).
2. Declare it: ``ENTRANTS = [from_policy("my-id", "My label", "what it is", MyPolicy)]`` in a
   package named in ``$DELAYED_BANDITS_PAPERS`` (importable, e.g. through ``PYTHONPATH``).
   Optionally give ``kernel=``, a compiled function that takes the same actions (the tests hold
   every entrant's kernel to its reference).
3. Name it in a config overlay: ``papers.arena.regret.algorithms`` lists the curves to run.

It then runs on the same realisations as every other algorithm (same replications, same position
of the best arm) and lands as a row of the leaderboard and the heatmap.
"""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

import numpy as np
from numba import _helperlib

from delayed_bandits import delays
from delayed_bandits.algorithms import Algorithm, Runner
from delayed_bandits.arena import observe
from delayed_bandits.arena.problem import Draw, pseudo_regret
from delayed_bandits.environment import Realisation
from delayed_bandits.errors import ConfigError
from delayed_bandits.preconditions import Array, Inputs
from delayed_bandits.references import checked_arm, run, run_outcomes

CONVERSIONS = "conversions"
SETTLED = "settled at m"
LABELLED = "labelled outcomes (oracle)"
ANONYMOUS = "anonymous aggregate"
LOSSES = "per-round losses"
NONE = "none"
INFORMATION = {
    CONVERSIONS: "the conversions only: a 1 arrives after its delay D (never, if censored and "
    "D > m), a 0 is never announced",
    SETTLED: "the conversions within the window m, after their delay, and every other pull's 0 "
    "when the window closes, m rounds after the pull, never earlier (what censoring at m "
    "reveals; without censoring, the learner censors itself at m)",
    LABELLED: "every outcome, 0 or 1, after its delay D (under censoring after min(D, m), a "
    "conversion later than m a 0): an oracle, since an application cannot know that a 0 is "
    "final before the window closes",
    ANONYMOUS: "the sum of the conversions arriving each round, with no arm or pull attached",
    LOSSES: "every round's loss, 0 or 1, after the round's delay d_t (under censoring a 1 at m, "
    "never earlier, a 0 at d_t <= m): the adversarial model's feedback, which also announces "
    "the 0s",
    NONE: "nothing",
}
"""What an entrant observes, its information model
(``docs/decisions/arena.md#information-models``), in the order the leaderboard and the heatmap
group them. An entrant is compared with the others of its model; ``LABELLED`` is marked as an
oracle. Each model's rule is written once, in the observation layer (``observe``), which every
runner reads."""

ANNOUNCES_ZEROS = frozenset({LABELLED, LOSSES})
"""The information models told a 0 after a delay of its own. Under reward-dependent delays
(``problem.Setting.zero_delay``), a regime that draws as its twin (``draws_as``) differs from it
only in a 0's delay, so an entrant of any other model sees exactly the twin's observations:
its runs there are identical by construction (``same_as_twin``), simulated and counted once."""


def same_as_twin(information: str) -> bool:
    """Whether an entrant of the ``information`` model runs identically in a reward-dependent
    regime and in the twin whose draws it shares: it is not told the 0s (``ANNOUNCES_ZEROS``)."""
    if information not in INFORMATION:
        raise ValueError(f"unknown information model {information!r}; one of {list(INFORMATION)}")
    return information not in ANNOUNCES_ZEROS


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
    """The interface of an arena policy of the conversions model (see the module docstring)."""

    def choose(self, t: int) -> int: ...

    def played(self, t: int, arm: int) -> None: ...

    def observe(self, s: int, arm: int, delay: int) -> None: ...


class OutcomePolicy(Protocol):
    """The interface of an arena policy of the labelled or settled model: every outcome, 0 or 1,
    reaches ``observe_outcome`` (see the module docstring)."""

    def choose(self, t: int) -> int: ...

    def played(self, t: int, arm: int) -> None: ...

    def observe_outcome(self, s: int, arm: int, reward: float, delay: int) -> None: ...


PolicyFactory = Callable[[Problem, np.random.Generator], Policy | OutcomePolicy]
# (problem, means, uniforms, delays, policy seed) -> the arms played: a compiled twin of a policy
Kernel = Callable[[Problem, np.ndarray, np.ndarray, np.ndarray, int], np.ndarray]


DRAW = Inputs(
    (
        Array("env.setting.mu", "f", ("K",), 0.0, 1.0),
        Array("env.realisation.uniforms", "f", ("T", "K"), 0.0),
        Array("env.realisation.delays", "iu", ("T", "K"), 0.0),
    )
)
"""What every entrant's runner reads of a replication's ``Draw`` (``preconditions``): the means,
a uniform (rescaled under switching means, so not below 1 only) and a delay per (round, arm). The
papers' kernels an entrant runs check their own inputs too, once translated."""


def _nothing(setting: Any) -> str:
    return "nothing"


@dataclass(frozen=True)
class Handling:
    """A way of handling delays: a row of the handling × base tables, where the arena crosses the
    ways of handling delays with the base learners."""

    name: str  # the row of the run's crossing table (``digest``), short
    description: str  # the row of the docs' table of the entrants, with its source


@dataclass(frozen=True)
class Base:
    """A base learner: a column of the handling × base tables."""

    name: str  # as the claims' statements name it
    header: str  # the column's header


@dataclass(frozen=True)
class Entrant(Algorithm):
    """One arena algorithm: ``Algorithm`` (id, label, description, runners, where it applies),
    what the leaderboard reports of it, and where the plots, the claims and the docs' tables put
    it (its family, its handling and base). Every list of entrants by family, handling or base is
    computed from these declarations (``experiment.families``, ``experiment.crossing``)."""

    information: str = CONVERSIONS  # of INFORMATION
    knows: Callable[[Any], str] = _nothing  # what it is told, with the setting's values
    bonus: str = ""  # its exploration function; "" when it has none of the UCB kind
    fields: tuple[str, ...] = FIELDS  # the comparisons it enters
    family: str = ""  # its curves' family, a colour of the plots; "" joins "other entrants"
    handling: Handling | None = None  # its cell of the handling × base tables: both or neither
    base: Base | None = None
    # whether it is tuned to the horizon T (told T): its regret at a checkpoint t < T is then not
    # that of its run at horizon t, as an anytime learner's is (the leaderboard's earlier horizons)
    horizon_tuned: bool = False
    inputs: Inputs = DRAW

    def __post_init__(self) -> None:
        super().__post_init__()
        if (self.handling is None) != (self.base is None):
            raise ConfigError(
                f"entrant {self.id}: a handling and a base place it in the handling × base "
                "table; give both or neither"
            )
        if self.information not in INFORMATION:
            raise ConfigError(
                f"entrant {self.id}: information {self.information!r} is not one of "
                f"{', '.join(INFORMATION)}"
            )
        if not self.fields or set(self.fields) - set(FIELDS):
            raise ConfigError(
                f"entrant {self.id}: fields {self.fields!r} must be some of {', '.join(FIELDS)}"
            )


def problem(draw: Draw) -> Problem:
    st = draw.setting
    return Problem(st.n_arms, draw.realisation.uniforms.shape[0], st.window, st.censored, st.pooled)


POLICY_INFORMATION = (CONVERSIONS, SETTLED, LABELLED)
"""The information models a policy class can have (the others need their own kernels)."""

OBSERVATION: dict[str, Callable[[Any, Realisation], Realisation]] = {
    CONVERSIONS: observe.conversions,
    SETTLED: observe.settled,
    LABELLED: observe.labelled,
}
"""What a policy of each model (``POLICY_INFORMATION``) is given to read: the observation
layer's realisation of its model (``observe``), the same for its reference and its kernel."""


def policy_runners(
    factory: PolicyFactory,
    kernel: Kernel | None = None,
    information: str = CONVERSIONS,
    who: str = "the policy",
) -> tuple[Runner, Runner]:
    """(kernel, reference) runners of a policy on the arena's problem, under its information
    model: the reference plays the policy, with a generator seeded by the replication's policy
    seed, on the observation layer's realisation of its model (``OBSERVATION``), through the
    shared loop: ``references.run`` for the conversions (the 1s only), ``run_outcomes`` for the
    outcomes (every 0 or 1, when the model delivers it: ``observe``); the kernel, when given,
    takes the realisation the reference reads. Both are held to the rules (``held``): every arm
    chosen is checked, ``who`` named in the error."""
    if information not in POLICY_INFORMATION:
        raise ConfigError(
            f"information {information!r}: a policy class observes one of "
            f"{', '.join(POLICY_INFORMATION)}"
        )

    def environment(draw: Draw) -> Realisation:
        return OBSERVATION[information](draw.setting, draw.realisation)

    def play(policy: Any, draw: Draw, env: Realisation) -> np.ndarray:
        mu = draw.setting.mu
        if information == CONVERSIONS:
            return run(policy, mu, env.uniforms, env.delays, None, who=who)
        return run_outcomes(policy, mu, env.uniforms, env.delays, who=who)

    def reference(_: Any, draw: Draw, cp: np.ndarray, seed: int):
        env = environment(draw)
        actions = play(factory(problem(draw), np.random.default_rng(seed)), draw, env)
        return pseudo_regret(draw.setting, actions, cp), actions, None

    if kernel is None:
        held_reference = held(reference, who)
        return held_reference, held_reference

    def compiled(_: Any, draw: Draw, cp: np.ndarray, seed: int):
        st, env = draw.setting, environment(draw)
        actions = np.asarray(kernel(problem(draw), st.mu, env.uniforms, env.delays, seed))
        if actions.dtype.kind not in "iu" or ((actions < 0) | (actions >= st.n_arms)).any():
            for t, arm in enumerate(actions.tolist(), start=1):  # the first bad round, named
                checked_arm(arm, t, st.n_arms, f"{who}'s kernel")
        return pseudo_regret(st, actions, cp), actions, None

    return held(compiled, who), held(reference, who)


def held(runner: Runner, who: str) -> Runner:
    """``runner``, a user's code, held to the rules of the arena:

    - a policy that ends the process (``sys.exit``, ``SystemExit``) is an error naming ``who``:
      the job would otherwise end with exit code 0 and no output;
    - every call runs with the global generators (``numpy.random``'s, numba's and the
      ``random`` module's) set to a sentinel state that no seeding gives (``sentinel``): a policy
      or kernel that draws from one or seeds one, ``np.random.seed(0)`` included, is refused,
      naming ``who``, whatever it draws;
    - its first call in a process runs the replication twice and compares the arms played: a
      policy that draws from anything else but the generator it is given (an unseeded
      ``default_rng()``, the clock) plays differently, and is refused, naming ``who`` and the
      first round that differs. The cost is one replication of each entrant per job.

    The time limit is the job's (``simulate.time_limit``), which a policy cannot catch."""
    checked = False

    def run_held(setting: Any, draw: Draw, cp: np.ndarray, seed: int):
        nonlocal checked
        try:
            with sentinel(who):
                result = runner(setting, draw, cp, seed)
            if not checked:
                with sentinel(who):
                    again = runner(setting, draw, cp, seed)
                checked = True
                _same_actions(result[1], again[1], who)
        except SystemExit as exc:
            raise ConfigError(
                f"{who} ended the process (SystemExit, code {exc.code!r}) at policy seed {seed}; "
                "a policy returns arms and never exits. No output was written"
            ) from None
        return result

    return run_held


_SENTINEL_KEY = np.random.SeedSequence(58).generate_state(624)
"""The key of the global generators' sentinel state, at position 0: any seeding of a Mersenne
twister leaves it at position 624 (an exhausted block), so no seed reproduces it."""


def _global_states() -> tuple[Any, ...]:
    """The states of the global generators a policy or kernel could reach: ``numpy.random``'s
    (the legacy ``np.random.*`` functions), numba's two (``np.random.*`` and ``random`` inside
    compiled code) and the ``random`` module's, comparable with ``==``."""
    legacy = np.random.get_state()
    return (
        (legacy[0], tuple(legacy[1].tolist()), *legacy[2:]),
        _numba_state(_helperlib.rnd_get_np_state_ptr()),
        _numba_state(_helperlib.rnd_get_py_state_ptr()),
        random.getstate(),
    )


def _numba_state(pointer: int) -> tuple[int, tuple[int, ...]]:
    index, key = _helperlib.rnd_get_state(pointer)
    return index, tuple(key)


def _set_global_states(states: tuple[Any, ...]) -> None:
    legacy, numba_np, numba_py, python = states
    np.random.set_state((legacy[0], np.array(legacy[1], dtype=np.uint32), *legacy[2:]))
    _helperlib.rnd_set_state(_helperlib.rnd_get_np_state_ptr(), (numba_np[0], list(numba_np[1])))
    _helperlib.rnd_set_state(_helperlib.rnd_get_py_state_ptr(), (numba_py[0], list(numba_py[1])))
    random.setstate(python)


def _sentinel_states() -> tuple[Any, ...]:
    key = tuple(int(k) for k in _SENTINEL_KEY)
    return (("MT19937", key, 0, 0, 0.0), (0, key), (0, key), (3, (*key, 0), None))


@contextmanager
def sentinel(who: str) -> Iterator[None]:
    """Run the block with every global generator (``_global_states``) at a sentinel state, and
    restore the caller's after it; ``ConfigError`` naming ``who`` if the block drew from one or
    seeded one. Deterministic, unlike playing twice: a constant seed (``np.random.seed(0)``)
    plays the same arms every run, but leaves the sentinel."""
    saved = _global_states()
    planted = _sentinel_states()
    _set_global_states(planted)
    try:
        yield
        touched = [
            name
            for name, now, before in zip(
                (
                    "numpy.random's global functions (np.random.*)",
                    "numba's np.random.*",
                    "numba's random module",
                    "the random module",
                ),
                _global_states(),
                planted,
            )
            if now != before
        ]
    finally:
        _set_global_states(saved)
    if touched:
        raise ConfigError(
            f"{who} drew from or seeded a global generator: {', '.join(touched)}. A policy draws "
            "only from the rng argument of its constructor (a kernel from "
            "np.random.default_rng(seed)), so that every replication has its own numbers"
        )


def _same_actions(first: np.ndarray, second: np.ndarray, who: str) -> None:
    """Nothing when two runs of one replication played the same arms; else ``ConfigError`` naming
    ``who`` and the first round where they differ."""
    if np.array_equal(first, second):
        return
    differ = np.flatnonzero(first[: len(second)] != second[: len(first)])
    round_ = int(differ[0]) + 1 if differ.size else min(len(first), len(second)) + 1
    raise ConfigError(
        f"{who} played differently in two runs of the same replication (first at round "
        f"{round_}): it draws from something other than the generator it is given (numpy.random's "
        "global functions such as np.random.rand, the random module, the clock). Draw from the "
        "rng argument of its constructor, so that every run gives the same numbers"
    )


def from_policy(
    id: str,
    label: str,
    description: str,
    policy: PolicyFactory,
    kernel: Kernel | None = None,
    information: str = CONVERSIONS,
    **declared: Any,
) -> Entrant:
    """An entrant from a policy class (or any factory of ``Problem`` and a generator), with an
    optional compiled ``kernel``, under its ``information`` model (``POLICY_INFORMATION``: a
    policy of the labelled or settled model has ``observe_outcome``); ``declared`` sets the other
    ``Entrant`` fields (``knows``, ``bonus``, ``fields``, ``applies``, ``family``, ``handling``,
    ``base``). A policy class is checked against its model here (``check_policy_class``), so
    that a declaration that does not match its class fails when it is loaded, naming the entrant,
    rather than in a simulation job. Without a ``kernel`` its runs play the policy itself
    (``Algorithm.interpreted``)."""
    runners = policy_runners(policy, kernel, information, f"entrant {id!r}")
    if isinstance(policy, type):
        check_policy_class(id, policy, information)
    return Entrant(
        id,
        label,
        description,
        *runners,
        information=information,
        interpreted=kernel is None,
        **declared,
    )


OBSERVES = {CONVERSIONS: "observe", SETTLED: "observe_outcome", LABELLED: "observe_outcome"}
"""The method through which a policy class of each model (``POLICY_INFORMATION``) is told what it
observes: ``Policy.observe``, ``OutcomePolicy.observe_outcome``."""


def check_policy_class(id: str, policy: type, information: str) -> None:
    """``ConfigError`` naming the entrant ``id`` when the class ``policy`` lacks a method its
    ``information`` model calls (``Policy``, ``OutcomePolicy``): ``choose`` and ``played``, and
    ``observe`` (conversions) or ``observe_outcome`` (settled, labelled). A class with the other
    model's method is told which declaration it needs."""
    wanted = OBSERVES[information]
    missing = [m for m in ("choose", "played", wanted) if not callable(getattr(policy, m, None))]
    other = "observe" if wanted == "observe_outcome" else "observe_outcome"
    if missing == [wanted] and callable(getattr(policy, other, None)):
        if information == CONVERSIONS:
            raise ConfigError(
                f"entrant {id!r}: {policy.__name__} has observe_outcome, not observe: it needs "
                "every outcome, 0 or 1, which the conversions model (the default) never gives. "
                "Declare information=SETTLED (each outcome once settled at the window m) or "
                "information=LABELLED (every outcome after its delay: an oracle) in from_policy "
                "(both in delayed_bandits.arena.entrants)"
            )
        declared = "SETTLED" if information == SETTLED else "LABELLED"
        raise ConfigError(
            f"entrant {id!r}: {policy.__name__} has observe, not observe_outcome: it learns "
            f"from conversions, but is declared information={declared} ({information}), whose "
            "outcomes reach observe_outcome. Declare information=CONVERSIONS (the default), or "
            "give it observe_outcome(s, arm, reward, delay)"
        )
    if missing:
        raise ConfigError(
            f"entrant {id!r}: {policy.__name__} has no {', '.join(missing)}; a policy of the "
            f"{information!r} model has choose(t), played(t, arm) and "
            + (
                "observe(s, arm, delay)"
                if wanted == "observe"
                else "observe_outcome(s, arm, reward, delay)"
            )
            + " (delayed_bandits.arena.entrants.Policy, OutcomePolicy)"
        )
