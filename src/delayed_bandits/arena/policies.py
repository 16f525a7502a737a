"""The arena's own policies, readable references: the baselines that ignore delays, and Thompson
sampling on a delay model fitted online (``EMThompson``).

Three classic policies run as if every conversion arrived at once. Each estimates arm k by
S_k / N_k, with S_k the conversions that have arrived so far and N_k all the pulls of k, so a
conversion still in flight counts as a failure (nothing signals a non-conversion, and these
policies do not try to tell a late conversion from none). They are what a practitioner gets by
plugging the delayed stream into an off-the-shelf bandit:

- ``"ucb"``: UCB with the index S/N + sqrt(f(t) / (2 N)) (Auer, Cesa-Bianchi & Fischer 2002).
  With f(t) = 4 log t this is exactly UCB1's bonus sqrt(2 log t / N); with f(t) = log t it is the
  Hoeffding-tight bonus sqrt(log t / (2 N)).
- ``"klucb"``: Bernoulli KL-UCB (Garivier & Cappé 2011), the index
  max{q in [S/N, 1] : N kl(S/N, q) <= f(t)}.
- ``"ts"``: Thompson sampling with a Beta(1, 1) prior, the standard choice in display advertising
  (Chapelle & Li 2011): each round theta_k ~ Beta(1 + S_k, 1 + N_k - S_k), play the argmax.

The exploration function is f(t) = coefficient * log t + loglog * max(log log t, 0): the max
keeps f defined (and >= 0) for t < e, where log log t is negative or undefined. UCB and KL-UCB
first play each arm once (rounds 1..K play arm t - 1); TS has no initial round robin. Ties go to
the lowest index.

Timing convention (``docs/decisions/cross-cutting.md#arrival``): a pull of arm k at round s
converts iff uniforms[s-1, k] < mu[k], and its conversion is usable from the start of round
s + D + 1, D = delays[s-1, k], if that round is <= T. Censoring, when a setting has it, is
applied to the realisation before these policies see it, so they take no window.

Runs use the compiled kernel of ``delayed_bandits.arena.kernels``; the tests hold it to the
actions of these references, step for step. The index functions are shared
(``delayed_bandits.indices``): plain Python here, compiled into the kernels (``register_jitable``),
the same arithmetic in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from delayed_bandits.indices import INDICES, exploration, klucb_index, thompson_arm, ucb_index
from delayed_bandits.references import first_argmax, run


@dataclass
class IgnoresDelays:
    """UCB, KL-UCB or Thompson sampling on S_k / N_k, conversions in flight counted as failures.

    ``index`` is ``"ucb"``, ``"klucb"`` or ``"ts"``; ``coefficient`` and ``loglog`` set the
    exploration function f(t) of UCB and KL-UCB (TS ignores them); ``rng`` draws TS's samples."""

    n_arms: int
    index: str
    coefficient: float = 1.0
    loglog: float = 0.0
    rng: np.random.Generator | None = None
    actions: list[int] = field(default_factory=list)
    pulls: list[int] = field(init=False)
    successes: list[int] = field(init=False)

    def __post_init__(self) -> None:
        if self.index not in INDICES:
            raise ValueError(f"index {self.index!r} is not one of {INDICES}")
        if self.index == "ts" and self.rng is None:
            raise ValueError("Thompson sampling needs a numpy.random.Generator (rng)")
        if self.coefficient < 0.0 or self.loglog < 0.0:
            raise ValueError("the exploration coefficients must be >= 0")
        self.pulls = [0] * self.n_arms
        self.successes = [0] * self.n_arms

    def choose(self, t: int) -> int:
        if self.index == "ts":
            # Beta(1, 1) prior: posterior Beta(1 + S, 1 + N - S), arms drawn in order 0..K-1
            samples = [
                self.rng.beta(1.0 + self.successes[k], 1.0 + self.pulls[k] - self.successes[k])
                for k in range(self.n_arms)
            ]
            return first_argmax(samples)
        if t <= self.n_arms:
            return t - 1
        f = exploration(t, self.coefficient, self.loglog)
        indices = []
        for k in range(self.n_arms):
            p = self.successes[k] / self.pulls[k]
            indices.append(
                klucb_index(p, self.pulls[k], f)
                if self.index == "klucb"
                else ucb_index(p, self.pulls[k], f)
            )
        return first_argmax(indices)

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)
        self.pulls[arm] += 1

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.successes[arm] += 1


def run_ignores_delays(
    mu: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    index: str,
    coefficient: float = 1.0,
    loglog: float = 0.0,
    seed: int | np.random.SeedSequence | None = None,
) -> np.ndarray:
    """Play one replication with the reference policy; returns the arms played (0-based, int64).

    TS draws from ``np.random.default_rng(seed)``, as the kernel's wrapper does."""
    policy = IgnoresDelays(
        uniforms.shape[1], index, coefficient, loglog, np.random.default_rng(seed)
    )
    return run(policy, mu, uniforms, delays, None)


REFIT_SHARE = 20
"""The EM model is refitted at round t = 1 and then whenever t has grown by 1/20 (at least one
round) since the last fit: about 20 ln T + 20 fits, 250 at T = 10^5, each a pass over the pulls
per EM step, so O(T) a fit and no refit on most rounds."""

EM_STEPS = 3
"""EM steps (an expectation, then a maximisation) per fit, from the last fit's parameters."""


@dataclass
class EMThompson:
    """Thompson sampling on Chapelle (2014)'s delayed-feedback model, fitted online by EM.

    Chapelle's model (KDD 2014, Section 4) with the arm as the only feature: a pull of arm k
    converts with probability theta_k, and a conversion's delay is exponential, here its
    discrete form, geometric: P(D = d) = q (1 - q)^d, P(D >= e) = (1 - q)^e, one q for every arm
    (our choice, docs/decisions/arena.md#em-thompson). A pull made at round s and not converted
    by round t has been seen not to convert within e = t - s rounds (a conversion usable at
    s + D + 1: D >= e), or, when the problem censors at m, within min(e, m + 1) rounds (a
    conversion later than m never arrives). Its probability of converting still is the E-step's
    weight w = theta S(e) / (1 - theta + theta S(e)), S(e) = (1 - q)^e.

    Each fit runs ``EM_STEPS`` steps from the last fit's parameters (theta_k = 1/2 at first; q =
    1/2 until a conversion is seen, then, at the first fit after it, S / (S + the delays seen),
    and moved by the steps only once a conversion is seen), then an E-step that stores every
    pending pull's weight:

    - E: W_k = sum of the weights of arm k's pulls not converted yet, and sum w (e + (1 - q)/q),
      the expected delays of the conversions they would be (geometric: memoryless);
    - M: theta_k = (S_k + W_k) / N_k; q = (S + W) / (S + W + sum of the delays seen + that sum).

    Between fits a new pull of arm k adds weight theta_k (elapsed 0), and a conversion removes its
    pull's weight. Each round, theta_k ~ Beta(1 + S_k + W_k, 1 + max(N_k - S_k - W_k, 0)):
    Beta(1, 1) Thompson sampling on the model's expected conversions (``thompson_arm``'s
    clipped form)."""

    n_arms: int
    window: int | None  # m when the problem censors (a conversion later than m never arrives)
    rng: np.random.Generator
    actions: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.pulls = [0.0] * self.n_arms
        self.successes = [0.0] * self.n_arms
        self.imputed = [0.0] * self.n_arms  # W_k
        self.theta = [0.5] * self.n_arms
        self.hazard = 0.5  # q, until the first conversion seeds it
        self.seeded = False
        self.delay_sum = 0.0
        self.weight: list[float] = []  # per pull: its current w, 0 once it has converted
        self.converted: list[bool] = []
        self.next_fit = 1
        self.settled = 0  # under censoring, pulls 1..settled are counted in ``old``
        self.old = [0.0] * self.n_arms  # their pending ones, per arm

    def _weight(self, k: int, e: float) -> float:
        """The E-step's weight of a pull of arm k seen not to convert within e rounds."""
        survival = math.pow(1.0 - self.hazard, e)
        # 0 / 0 only where theta = 1 and the pull would have arrived: a pull the fit says cannot
        # be pending carries no weight
        scale = 1.0 - self.theta[k] + self.theta[k] * survival
        return self.theta[k] * survival / scale if scale > 0.0 else 0.0

    def _settle(self, t: int) -> None:
        """Under censoring, a pull made m + 1 rounds ago or more can no longer convert in the
        learner's eyes, and all such pulls share e = m + 1: count the pending ones per arm, so
        that an E-step costs O(m) instead of O(t)."""
        if self.window is None:
            return
        for s in range(self.settled + 1, t - self.window):
            if not self.converted[s - 1]:
                self.old[self.actions[s - 1]] += 1.0
        self.settled = max(self.settled, t - self.window - 1)

    def _expect(self, t: int, store: bool) -> float:
        """The E-step at round t: W_k (into ``imputed``) and sum w (e + (1 - q)/q), the settled
        pulls' (``_settle``) first, then each pull of the last rounds, oldest first."""
        tail = (1.0 - self.hazard) / self.hazard
        total = 0.0
        self.imputed = [0.0] * self.n_arms
        if self.window is not None:
            e = float(self.window + 1)
            for k in range(self.n_arms):
                w = self._weight(k, e)
                self.imputed[k] = self.old[k] * w
                total += self.old[k] * w * (e + tail)
        for s in range(self.settled + 1, t):
            if self.converted[s - 1]:
                continue
            k = self.actions[s - 1]
            e = float(t - s)
            w = self._weight(k, e)
            self.imputed[k] += w
            total += w * (e + tail)
            if store:
                self.weight[s - 1] = w
        return total

    def _fit(self, t: int) -> None:
        self._settle(t)
        seen = 0.0
        for k in range(self.n_arms):
            seen += self.successes[k]
        if seen > 0.0 and not self.seeded:
            # the first delays seen set q (the estimate that ignores the pending pulls): before
            # them, EM would read every pending pull as a long delay and drive q towards 0
            self.hazard = (seen + 1.0) / (seen + self.delay_sum + 2.0)
            self.seeded = True
        for _ in range(EM_STEPS):
            expected_delays = self._expect(t, False)
            pending = 0.0
            for k in range(self.n_arms):
                self.theta[k] = (self.successes[k] + self.imputed[k] + 1.0) / (self.pulls[k] + 2.0)
                pending += self.imputed[k]
            if seen > 0.0:
                self.hazard = (seen + pending + 1.0) / (
                    seen + pending + self.delay_sum + expected_delays + 2.0
                )
        self._expect(t, True)

    def choose(self, t: int) -> int:
        if t >= self.next_fit:
            self._fit(t)
            self.next_fit = t + max(1, t // REFIT_SHARE)
        effective = [self.successes[k] + self.imputed[k] for k in range(self.n_arms)]
        return thompson_arm(effective, self.pulls, self.rng, clip=True)

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)
        self.pulls[arm] += 1.0
        self.weight.append(self.theta[arm])
        self.converted.append(False)
        self.imputed[arm] += self.theta[arm]

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.successes[arm] += 1.0
        self.delay_sum += delay
        self.imputed[arm] -= self.weight[s - 1]
        self.weight[s - 1] = 0.0
        self.converted[s - 1] = True


KM_EM_STEPS = 50
"""At most this many EM steps per fit of the Kaplan-Meier model (``KaplanMeierBootstrap``); a fit
stops earlier once no rate moves by more than ``KM_EM_TOLERANCE`` (Gigli and Stella's code
iterates to convergence, up to 200 steps)."""

KM_EM_TOLERANCE = 1e-6


@dataclass
class KaplanMeierBootstrap:
    """Bootstrap Thompson sampling on a conversion model whose delay law is a Kaplan-Meier
    estimate fitted by EM: Gigli and Stella (UAI 2024, "Bootstrap Your Conversions") in a
    finite-armed form, under censoring at the window m, with its fits capped
    (docs/decisions/arena.md#km-bootstrap). Their code (MarcoGigli/bootstrap-conversions,
    ``de_bootstrap_lin_ts.py`` and ``delay_mle/``) is the reference read; this is our own.

    The model is of a conversion within the window, what censoring identifies (the rate beyond
    m trades off against the law's mass beyond m, on which no conversion is ever seen): a pull
    of arm k converts within m with probability theta_k (their score, the rate times the CDF at
    m), after a delay D whose law given D <= m is one for every arm, S(e) = P(D >= e | D <= m),
    left free (Kaplan-Meier). A pull made at round s <= t - m - 1 and not converted is a known
    0. A pull in flight, made at s > t - m - 1, is seen not to convert within e = t - s rounds
    (D >= e), and its chance to convert still is the E-step's weight
    w = theta_k S(e) / (1 - theta_k + theta_k S(e)).

    A fit (round 1, then whenever t has grown by 1/``REFIT_SHARE``): from theta_k = S_k / N_k
    and the unweighted Kaplan-Meier law (every pull in flight at risk in full), as their
    ``ExpectationMaximizationModel.fit`` starts, EM steps until no theta_k moves by more than
    ``KM_EM_TOLERANCE`` (at most ``KM_EM_STEPS``):

    - E: each pull in flight's weight w;
    - M: the weighted Kaplan-Meier law, hazard h(d) = (conversions of delay d) / (conversions of
      delay >= d + the weights of the pulls in flight with e > d), S(e) = prod_{d < e}
      (1 - h(d)); theta_k = (S_k + the weights of arm k's pulls in flight) / N_k.

    Each round, the bootstrap: arm k's N_k pulls are resampled with replacement (a multinomial
    draw over its S_k conversions, its O_k known 0s and each of its pulls in flight) together
    with one pseudo-pull whose outcome is a fair coin drawn afresh each round (their prior
    pseudo-data, which their code adds to the data before resampling; here one per arm);
    theta*_k is the resample's mean weight under the last fit (one EM step from it: the law S
    is not resampled). The arm with the largest theta*_k is played; ties go to one of
    the tied arms uniformly.

    Cost: O(m + K) a round (the pulls in flight are the last m rounds'), O(m + K) per EM step of
    a fit. Uncensored every pull not converted is in flight, O(t) a round: not run."""

    n_arms: int
    window: int  # m: a conversion later than m never arrives
    rng: np.random.Generator
    actions: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        m = self.window
        self.pulls = [0] * self.n_arms
        self.successes = [0] * self.n_arms
        self.old = [0] * self.n_arms  # O_k: known 0s, pulls settled at m without a conversion
        self.deaths = [0.0] * (m + 1)  # conversions by delay 0..m, every arm's
        self.converted: list[bool] = []
        self.settled = 0  # pulls 1..settled are converted or counted in ``old``
        self.theta = [0.0] * self.n_arms
        self.survival = [1.0] * (m + 1)  # S(e), e = 0..m
        self.next_fit = 1

    def _weight(self, k: int, e: int) -> float:
        survival = self.survival[e]
        # 0 / 0 only where theta = 1 and S(e) = 0: a pull the fit says cannot be in flight
        scale = 1.0 - self.theta[k] + self.theta[k] * survival
        return self.theta[k] * survival / scale if scale > 0.0 else 0.0

    def _settle(self, t: int) -> None:
        """Count in ``old`` each pull that can no longer convert (made at s <= t - m - 1)."""
        for s in range(self.settled + 1, t - self.window):
            if not self.converted[s - 1]:
                self.old[self.actions[s - 1]] += 1
        self.settled = max(self.settled, t - self.window - 1)

    def _step(self, t: int, weighted: bool) -> float:
        """One EM step at round t: each pull in flight's weight under the current fit (the
        E-step; 1 when not ``weighted``, the unweighted law a fit starts from), then the
        weighted Kaplan-Meier law and, when ``weighted``, the rates from the same weights (the
        M-step). Returns the largest change of a rate."""
        m = self.window
        censored = [0.0] * (m + 1)  # the weight of the pulls in flight, by e
        imputed = [0.0] * self.n_arms
        for s in range(self.settled + 1, t):
            if not self.converted[s - 1]:
                k, e = self.actions[s - 1], t - s
                w = self._weight(k, e) if weighted else 1.0
                censored[e] += w
                imputed[k] += w
        # at risk at d: the conversions of delay >= d and the pulls in flight with e > d
        deaths_beyond, censored_beyond = self.deaths[m], 0.0
        hazards = [0.0] * m
        for d in range(m - 1, -1, -1):
            deaths_beyond += self.deaths[d]
            censored_beyond += censored[d + 1]
            risk = deaths_beyond + censored_beyond
            hazards[d] = self.deaths[d] / risk if risk > 0.0 else 0.0
        for d in range(m):
            self.survival[d + 1] = self.survival[d] * (1.0 - hazards[d])
        moved = 0.0
        if weighted:
            for k in range(self.n_arms):
                if self.pulls[k] > 0:
                    theta = (self.successes[k] + imputed[k]) / self.pulls[k]
                    moved = max(moved, abs(theta - self.theta[k]))
                    self.theta[k] = theta
        return moved

    def _fit(self, t: int) -> None:
        for k in range(self.n_arms):
            self.theta[k] = self.successes[k] / self.pulls[k] if self.pulls[k] > 0 else 0.0
        self._step(t, False)
        for _ in range(KM_EM_STEPS):
            if self._step(t, True) <= KM_EM_TOLERANCE:
                break

    def _resampled(self, k: int, in_flight: list[float]) -> float:
        """theta*_k: the mean weight of a resample, with replacement, of arm k's N_k pulls and
        one pseudo-pull, a fair coin drawn afresh (their prior pseudo-data, resampled with
        the data): a multinomial draw over the conversions, the known 0s and each pull in
        flight."""
        coin = 1 if self.rng.random() < 0.5 else 0
        n = self.pulls[k] + 1
        conversions = self.successes[k] + coin
        zeros = self.old[k] + 1 - coin
        drawn = conversions
        if 0 < conversions < n:
            drawn = int(self.rng.binomial(n, conversions / n))
        rest = n - drawn
        if rest > 0 and 0 < zeros < n - conversions:
            rest -= int(self.rng.binomial(rest, zeros / (n - conversions)))
        elif zeros == n - conversions:
            rest = 0  # nothing in flight: the rest are known 0s
        total = float(drawn)
        size = len(in_flight)
        for _ in range(rest):
            total += in_flight[min(int(self.rng.random() * size), size - 1)]
        return total / n

    def choose(self, t: int) -> int:
        self._settle(t)
        if t >= self.next_fit:
            self._fit(t)
            self.next_fit = t + max(1, t // REFIT_SHARE)
        in_flight: list[list[float]] = [[] for _ in range(self.n_arms)]
        for s in range(self.settled + 1, t):
            if not self.converted[s - 1]:
                k = self.actions[s - 1]
                in_flight[k].append(self._weight(k, t - s))
        samples = [self._resampled(k, in_flight[k]) for k in range(self.n_arms)]
        best = max(samples)
        tied = [k for k in range(self.n_arms) if samples[k] == best]
        if len(tied) == 1:
            return tied[0]
        return tied[min(int(self.rng.random() * len(tied)), len(tied) - 1)]

    def played(self, t: int, arm: int) -> None:
        self.actions.append(arm)
        self.pulls[arm] += 1
        self.converted.append(False)

    def observe(self, s: int, arm: int, delay: int) -> None:
        self.successes[arm] += 1
        self.deaths[delay] += 1.0
        self.converted[s - 1] = True
