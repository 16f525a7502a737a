"""The arena's one problem, shared by every algorithm: Vernade et al. 2017's Bernoulli bandit with
delayed conversions (Section 2). What a learner of each information model sees of it, and when,
is the observation layer's (``observe``).

Pulling arm k at round s converts with probability mu_k, and a conversion is seen D rounds
later; with a censoring window m it is seen only if D <= m. Nothing signals a non-conversion,
except to the learners told every outcome (the labelled and per-round-loss models), whose 0 comes
after a delay too: drawn from the conversions' law, or, under reward-dependent delays, from a law
of its own (``Setting.zero_delay``).

Fair by construction: the best arm's position is drawn per replication from the environment's
seed (``draw_environment``), so a rule that breaks ties towards low (or high) indices, or plays
arms in index order, favours the best arm in no replication more than in another; every
algorithm of a replication faces the same position and the same draws (paired comparisons).

Switching means (``Switch``, the regime for the adversarial learners,
docs/decisions/arena.md#switching): the arms' means change once, at round alpha T. Every runner
decides a conversion by ``uniform < mu_a`` with the setting's one mean per arm (``Setting.mu``,
here each arm's mean over the horizon); the draw carries the switch instead, in uniforms
rescaled per round so that this comparison gives the round's own mean (``draw_environment``).
The metric is then the sum of the round's gaps, max_a mu_t(a) - mu_t(A_t) (``pseudo_regret``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from delayed_bandits import delays
from delayed_bandits.arena import identifiability
from delayed_bandits.environment import Realisation, draw
from delayed_bandits.errors import ConfigError
from delayed_bandits.papers.manegueu2020.policies import AdaptParams


@dataclass(frozen=True)
class Switch:
    """Means that change once (docs/decisions/arena.md#switching): ``before`` in rounds
    1..round(at T), ``after`` in the rounds after. ``from_config`` makes one arm, the early one,
    best before the switch, and another, the late one, best after it and over the horizon (the
    best arm in hindsight)."""

    at: float
    before: np.ndarray
    after: np.ndarray

    def first_rounds(self, horizon: int) -> int:
        """How many rounds have the first means (the switch is after the last of them)."""
        return int(round(self.at * horizon))

    def means(self, horizon: int) -> np.ndarray:
        """(T, K) the arms' means round by round."""
        first = self.first_rounds(horizon)
        return np.concatenate(
            (np.tile(self.before, (first, 1)), np.tile(self.after, (horizon - first, 1)))
        )

    def fixed_arm_offset(self, horizon: int) -> float:
        """sum_t max_a mu_t(a) - max_a sum_t mu_t(a) over rounds 1..``horizon``: what the
        regret against the per-round best (``pseudo_regret``) exceeds the regret against the best
        fixed arm in hindsight by, the same for every learner (Thune et al. 2019's regret is the
        latter)."""
        means = self.means(horizon)
        return float(means.max(axis=1).sum() - means.sum(axis=0).max())

    @property
    def early(self) -> int:
        return int(np.argmax(self.before))


@dataclass(frozen=True)
class Setting:
    """One arena problem: the arms' means, the delay law (one for all arms, or one per arm), the
    censoring window, and what the algorithms are told beyond what they compute themselves.
    ``from_config`` puts the best arm last (and a switch's early arm just before it); a
    replication moves them (``with_best``, ``with_early``)."""

    mu: np.ndarray
    delay: delays.DelayDistribution | delays.PerArm
    window: int  # m: the censoring window when censored, else the window the settled model uses
    censored: bool
    alpha_tilde: float  # Patient's tail parameter (Manegueu et al. 2020, Algorithm 1)
    adapt: AdaptParams = field(default_factory=AdaptParams)
    # the delay of a non-conversion's 0 where it differs from the conversions' (reward-dependent
    # delays, docs/decisions/arena.md#reward-dependent); None: a 0 is delayed as a 1 would be
    zero_delay: delays.DelayDistribution | None = None
    # means that change once (docs/decisions/arena.md#switching); ``mu`` is then each arm's mean
    # over the horizon, the best arm the late one
    switch: Switch | None = None

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], where: str) -> "Setting":
        missing = [key for key in ("n_arms", "gap", "base_mean") if key not in cfg]
        if missing:
            raise ConfigError(
                f"{where}: no {', '.join(missing)}; an arena setting takes n_arms, gap and "
                "base_mean from its own keys or from an axis of its figure's grid (key grid)"
            )
        n_arms, gap, base = int(cfg["n_arms"]), float(cfg["gap"]), float(cfg["base_mean"])
        if n_arms < 2:
            raise ConfigError(f"{where}.n_arms: need at least 2 arms, got {n_arms}")
        if not (gap > 0 and base >= 0 and base + gap <= 1):
            raise ConfigError(
                f"{where}: need 0 < gap and 0 <= base_mean < base_mean + gap <= 1, "
                f"got base_mean {base}, gap {gap}"
            )
        mu = np.full(n_arms, base)
        mu[-1] = base + gap
        switch = _switch(cfg["switch"], n_arms, base, gap, where) if "switch" in cfg else None
        if switch is not None:
            mu = switch.at * switch.before + (1 - switch.at) * switch.after
        dist = delays.from_spec(cfg["delay"], f"{where}.delay")
        if isinstance(dist, delays.PerArm):
            if len(dist.arms) != 2:
                raise ConfigError(
                    f"{where}.delay: an arena per_arm law has two entries, the law "
                    f"of the best arm and the law of the others; got {len(dist.arms)}"
                )
            dist = delays.PerArm((dist.arms[1],) * (n_arms - 1) + (dist.arms[0],))
        window = int(cfg["window"])
        if window < 1:
            raise ConfigError(f"{where}.window: m must be >= 1, got {window}")
        zero = None
        if "zero_delay" in cfg:
            zero = delays.from_spec(cfg["zero_delay"], f"{where}.zero_delay")
            if isinstance(zero, delays.PerArm):
                raise ConfigError(
                    f"{where}.zero_delay: one law for every arm's 0s; per_arm is not allowed here"
                )
            if switch is not None:
                raise ConfigError(
                    f"{where}: zero_delay and switch together are not supported; choose one"
                )
        # Adapt-Patient's mu_low is a lower bound on the best mean (Section 6.3): it is told mu*
        adapt = replace(AdaptParams(**cfg.get("adapt", {})), mu_low=float(mu.max()))
        censored, alpha_tilde = bool(cfg["censored"]), float(cfg["alpha_tilde"])
        return cls(mu, dist, window, censored, alpha_tilde, adapt, zero, switch)

    @property
    def n_arms(self) -> int:
        return len(self.mu)

    @property
    def best(self) -> int:
        return int(np.argmax(self.mu))

    def with_best(self, arm: int) -> "Setting":
        """The same problem with the best arm at index ``arm`` (its mean and, under arm-dependent
        delays, its law move together; the other arms are identical, so this is every
        permutation of the arms up to relabelling them among themselves)."""
        return self._swapped(arm, self.best)

    def with_early(self, arm: int) -> "Setting":
        """The same problem with the switch's early arm (``Switch.early``) at index ``arm``, which
        is not the best arm's."""
        assert self.switch is not None and arm != self.best
        return self._swapped(arm, self.switch.early)

    def _swapped(self, arm: int, other: int) -> "Setting":
        """Arms ``arm`` and ``other`` exchanged, with their means, laws and switching means."""
        order = np.arange(self.n_arms)
        order[[arm, other]] = order[[other, arm]]
        delay, switch = self.delay, self.switch
        if isinstance(delay, delays.PerArm):
            delay = delays.PerArm(tuple(delay.arms[k] for k in order))
        if switch is not None:
            switch = replace(switch, before=switch.before[order], after=switch.after[order])
        mu = np.ascontiguousarray(self.mu[order])
        return replace(self, mu=mu, delay=delay, switch=switch)

    @property
    def arm_dependent(self) -> bool:
        return isinstance(self.delay, delays.PerArm)

    @property
    def reward_dependent(self) -> bool:
        """Whether a 0 is delayed by a law other than a 1's (Lancewicki et al. 2021's
        reward-dependent delays): ``delay`` is then the conversions' law, the only one a learner
        of the conversions is told or could estimate."""
        return self.zero_delay is not None

    @property
    def pooled(self) -> delays.DelayDistribution:
        """The one law an arm-independent method is told: the arms' laws pooled (the law itself
        when it is the same for all arms)."""
        if isinstance(self.delay, delays.PerArm):
            return delays.Pooled(self.delay.arms)
        return self.delay

    @property
    def laws(self) -> tuple[delays.DelayDistribution, ...]:
        """Each arm's delay law, in arm order (the one law repeated when it is common)."""
        if isinstance(self.delay, delays.PerArm):
            return self.delay.arms
        return (self.delay,) * self.n_arms

    @property
    def observed_means(self) -> np.ndarray:
        """The rate at which each arm's pulls convert in a way a learner ever sees: mu_a tau_a(m),
        tau_a(m) = P(D_a <= m) the arm's delay CDF at the window, under censoring (Vernade et al.
        2017, Section 2: a conversion later than m never arrives); mu_a without it, every
        conversion arriving eventually."""
        if not self.censored:
            return self.mu
        return self.mu * np.array([float(law.cdf(self.window)) for law in self.laws])

    @property
    def identifiable(self) -> bool:
        """Whether the conversions a learner sees single out the best arm
        (``identifiability.identifiable`` of ``observed_means``): always without censoring, and
        under one law for all arms; not where arm-dependent laws censored at m give another arm
        an observed rate at least the best arm's."""
        return identifiability.identifiable(self.mu, self.observed_means)

    @property
    def observable(self) -> delays.DelayDistribution:
        """The pooled law of the delay until a pull's outcome is settled: min(D, m) under
        censoring, D otherwise (what ODAAF's E[tau] and V(tau) are computed from)."""
        return delays.Capped(self.pooled, self.window) if self.censored else self.pooled

    @cached_property
    def learner_window(self) -> int:
        """The window of the methods that take one as a parameter (d-UCB, d-KLUCB, d-TS,
        OTFLinUCB, OTFLinTS): under censoring, m, the problem's. Uncensored, the problem has no
        window, and a learner that chose m as a censored setting's would discard the conversions
        later than m (1 - tau_m of them) that the problem shows it: it takes m_eps, the smallest
        d with tau(d) >= ``UNCENSORED_COVERAGE`` (1 - eps) of the pooled law. That is Vernade et
        al. 2017's reading of the uncensored setting (Corollary 10's proof runs the censored
        algorithm at an m with tau_m >= 1 - eps) and Vernade et al. 2020's (Section 4, "Choosing
        the window": "ideally tau_m should be large"; Figure 1's tau_m = 0.993)."""
        if self.censored:
            return self.window
        return quantile(self.pooled, UNCENSORED_COVERAGE)


UNCENSORED_COVERAGE = 0.99
"""tau(m_eps) = 1 - eps: the share of the conversions that a windowed method keeps in an
uncensored setting (``Setting.learner_window``; ``docs/decisions/arena.md#uncensored-window``)."""

WINDOW_LIMIT = 5000
"""The largest window a windowed method runs at: its cost is one addition per pull in the window
each round (d-UCB's Ñ, OTFLin's exact window sum), 25 times the arena's m = 200 at this limit.
Beyond it (the uncensored Pareto α = 0.3 law, whose 0.99 quantile is 4.6·10⁶, the per-arm Pareto at
K = 2 and the Criteo-like law, 24660) the row does not apply, the reason in the leaderboard."""


def quantile(law: delays.DelayDistribution, level: float) -> int:
    """The smallest d >= 0 with P(D <= d) >= ``level``, by doubling then bisection on the CDF."""
    high = 1
    while float(law.cdf(high)) < level:
        high *= 2
    low = 0
    while low < high:
        middle = (low + high) // 2
        if float(law.cdf(middle)) >= level:
            high = middle
        else:
            low = middle + 1
    return low


def _switch(spec: Mapping[str, Any], n_arms: int, base: float, gap: float, where: str) -> Switch:
    """``switch: {at, early, late}``: until round at T the early arm (index K - 2) has mean
    base + early gap, after it the late arm (index K - 1) has base + late gap; every other mean
    is base throughout. The late arm must be the best in hindsight."""
    at, early, late = float(spec["at"]), float(spec["early"]), float(spec["late"])
    if not 0 < at < 1:
        raise ConfigError(f"{where}.switch.at: a fraction of the horizon in (0, 1), got {at}")
    for key, lead in (("early", early), ("late", late)):
        if not (lead > 0 and base + lead * gap <= 1):
            raise ConfigError(
                f"{where}.switch.{key}: need 0 < {key} and base_mean + {key} x gap <= 1, got "
                f"{lead} (base_mean {base}, gap {gap})"
            )
    if not base > 0:
        raise ConfigError(f"{where}.base_mean: switching means need base_mean > 0, got {base}")
    if not (1 - at) * late > at * early:
        raise ConfigError(
            f"{where}.switch: the late arm must be best in hindsight, (1 - at) late > at early; "
            f"got at {at}, early {early}, late {late}"
        )
    before, after = np.full(n_arms, base), np.full(n_arms, base)
    before[-2] += early * gap
    after[-1] += late * gap
    return Switch(at, before, after)


@dataclass(frozen=True)
class Draw:
    """One replication's environment: the problem with its arms in this replication's order, and
    a uniform and a delay per (round, arm), uncensored (the observation layer, ``observe``,
    applies the window). Under reward-dependent delays a pull's delay is its conversion's, or
    its 0's if it does not convert; under switching means the uniforms are rescaled per round
    (``draw_environment``)."""

    setting: Setting
    realisation: Realisation


def draw_environment(seed: np.random.SeedSequence, horizon: int, st: Setting) -> Draw:
    """The best arm's position, uniform over the K positions, then the realisation, all from one
    generator seeded by the replication's environment seed. The 0s' delays of reward-dependent
    delays are drawn last, so the position, the uniforms and the conversions' delays are those of
    the same seed without them (a setting that ``draws_as`` its reward-independent twin faces the
    same conversions). Under switching means the early arm's position is drawn after them,
    uniform over the positions other than the best arm's, and the uniforms are rescaled per round
    (module docstring), so they are no longer uniform: u mu_a / mu_t(a), whose comparison with
    mu_a is the original uniform's with mu_t(a)."""
    rng = np.random.default_rng(seed)
    placed = st.with_best(int(rng.integers(st.n_arms)))
    env = draw(rng, horizon, placed.n_arms, placed.delay)
    if placed.zero_delay is not None:
        zeros = delays.sample_table(placed.zero_delay, rng, horizon, placed.n_arms)
        converts = env.uniforms < placed.mu
        env = Realisation(env.uniforms, np.where(converts, env.delays, zeros))
    if placed.switch is None:
        return Draw(placed, env)
    # the early arm's position, uniform over the others, drawn last as the 0s' delays are
    others = np.delete(np.arange(placed.n_arms), placed.best)
    placed = placed.with_early(int(others[rng.integers(len(others))]))
    # u mu_a / mu_t(a) < mu_a iff u < mu_t(a): the runners' one comparison gives round t's mean
    first = placed.switch.first_rounds(horizon)
    rescaled = np.concatenate(
        (
            env.uniforms[:first] * (placed.mu / placed.switch.before),
            env.uniforms[first:] * (placed.mu / placed.switch.after),
        )
    )
    return Draw(placed, Realisation(rescaled, env.delays))


def pseudo_regret(st: Setting, actions: np.ndarray, cp: np.ndarray) -> np.ndarray:
    """sum_{s <= t} (max_a mu_s(a) - mu_s(A_s)) at the checkpoints t of ``cp``: the arena's
    metric for every algorithm, whatever its own kernel reports. The means are the setting's,
    or under switching means the round's (the regret against the best arm of each round, which
    exceeds the regret against the best fixed arm by ``Switch.fixed_arm_offset``)."""
    if st.switch is None:
        return np.cumsum(st.mu.max() - st.mu[actions])[cp - 1]
    # each phase's gaps, indexed by the arms played: no (T, K) table of the means per entrant
    switch = st.switch
    first = switch.first_rounds(len(actions))
    gaps = np.concatenate(
        (
            (switch.before.max() - switch.before)[actions[:first]],
            (switch.after.max() - switch.after)[actions[first:]],
        )
    )
    return np.cumsum(gaps)[cp - 1]
