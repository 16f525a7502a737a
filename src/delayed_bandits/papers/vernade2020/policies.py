"""Vernade, Carpentier, Lattimore, Zappella, Ermis, Brueckner (ICML 2020): readable references of
OTFLinUCB (Algorithm 1) and OTFLinTS (Algorithm 2); runs use ``delayed_bandits.papers.vernade2020.kernels``
and the tests hold both to the same actions.

Model (Sections 3-4). Each round t the learner receives K actions and plays A_t; the reward
X_t ~ B(<A_t, θ>), if it is 1, converts after a delay D_t. With the window m the learner only uses
Ỹ_{s,t} = X_s 1{D_s <= min(m, t - s)}, observed at the end of round t, so the conversion of round s
is usable from round s + D_s + 1 if D_s <= m (the project's arrival convention,
docs/decisions/vernade2020.md#timing).
The estimator is eq. (2): θ̂_t = V_t(λ)^-1 B_t with V_t(λ) = Σ_{s<t} A_s A_sᵀ + λI and
B_t = Σ_{s<t} Ỹ_{s,t} A_s; V_t^-1 is kept by Sherman-Morrison rank-one updates (Section 5,
"Implementation details").

Two readings of the confidence widths (docs/decisions/vernade2020.md#widths):

* ``paper``: Algorithm 1, U_t(a) = <a, θ̂> + (2 f_{t,δ} + S_t) ||a||_{V_t^-1} (eqs. 3 and 6), with
  f_{t,δ} = √λ + √(2 log(1/δ) + d log((dλ + t)/(dλ))) (Theorem 1) and the window sum
  S_t = Σ_{s=t-m}^{t-1} ||A_s||_{V_t^-1} (``exact``) or, at O(d²) per round, the stored scalars
  Σ ||A_s||_{V_s^-1} (``stored``, end of Section 5; the sum Algorithm 2's line 4 writes).
  Algorithm 2 samples θ̃ ~ N(θ̂, β_{t,δ} V_t^-1) with β_{t,δ} = 1 + S_t / f_{t,δ} (Section 7).
* ``code``: the authors' public code. OTFLinUCB's index is
  <a, θ̂> + (√(g + λ) + Σ_{last m} ||A_s||²_{V_s^-1}) ||a||²_{V_t^-1} with
  g = 2 log(1/δ) + d log(1 + n/(λd)), n = t - 1 past actions. OTFLinTS keeps
  M = ((σ₀ + Σ_{buffer}) V)^-1, V regularised by λ = σ₀² in the code, and samples θ̃ ~ N(M B, M),
  where the buffer holds A_sᵀ M A_s computed right after each update. Since the mean
  M B = V^-1 B / c is shrunk by the same c = σ₀ + Σ as the covariance, the argmax is that of a
  sample from N(V^-1 B, c V^-1): the code inflates the exploration by c (a fact, not a choice of
  ours).

Both policies break ties by the lowest action index. The arithmetic shared with the kernels
(dot products, quadratic forms, Sherman-Morrison, Cholesky, the radii) is compiled into them with
``register_jitable``, so reference and kernel compute bit-identical indices.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from numba.extending import register_jitable

WIDTHS = ("paper", "code")
WINDOW_SUMS = ("exact", "stored")
TRACE_COLUMNS = ["t", "width", "window_sum", "observed"]


# --------------------------------------------------------------------------------------------
# Formulas shared with the kernels (plain Python here, compiled there: same arithmetic)
# --------------------------------------------------------------------------------------------


@register_jitable
def dot(x: np.ndarray, y: np.ndarray) -> float:
    """<x, y>, summed in index order (the order fixes the rounding, kernel and reference alike)."""
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * y[i]
    return total


@register_jitable
def quad_form(m: np.ndarray, x: np.ndarray) -> float:
    """||x||²_M = xᵀ M x."""
    total = 0.0
    for i in range(x.shape[0]):
        row = 0.0
        for j in range(x.shape[0]):
            row += m[i, j] * x[j]
        total += x[i] * row
    return total


@register_jitable
def mat_vec(m: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """out = M x (e.g. θ̂ = V^-1 B, eq. 2)."""
    for i in range(x.shape[0]):
        row = 0.0
        for j in range(x.shape[0]):
            row += m[i, j] * x[j]
        out[i] = row


@register_jitable
def sherman_morrison(v_inv: np.ndarray, a: np.ndarray, u: np.ndarray) -> None:
    """V^-1 <- (V + a aᵀ)^-1 = V^-1 - (V^-1 a)(V^-1 a)ᵀ / (1 + aᵀ V^-1 a), in place, O(d²);
    ``u`` is scratch space. V^-1 is symmetric, so V^-1 a serves for both sides."""
    mat_vec(v_inv, a, u)
    denominator = 1.0 + dot(a, u)
    for i in range(a.shape[0]):
        for j in range(a.shape[0]):
            v_inv[i, j] -= u[i] * u[j] / denominator


@register_jitable
def cholesky(m: np.ndarray, lower: np.ndarray) -> None:
    """The lower-triangular L with L Lᵀ = M (M symmetric positive definite), written into
    ``lower``: a sample θ̂ + L z with z ~ N(0, I) has covariance M. O(d³) with d = 5."""
    d = m.shape[0]
    for j in range(d):
        pivot = m[j, j]
        for k in range(j):
            pivot -= lower[j, k] * lower[j, k]
        lower[j, j] = math.sqrt(pivot)
        for i in range(j + 1, d):
            entry = m[i, j]
            for k in range(j):
                entry -= lower[i, k] * lower[j, k]
            lower[i, j] = entry / lower[j, j]
        for i in range(j):
            lower[i, j] = 0.0


@register_jitable
def perturb(
    mean: np.ndarray, lower: np.ndarray, z: np.ndarray, scale: float, out: np.ndarray
) -> None:
    """out = mean + scale · L z: a draw of N(mean, scale² L Lᵀ) from the standard normals z."""
    for i in range(mean.shape[0]):
        row = 0.0
        for j in range(i + 1):
            row += lower[i, j] * z[j]
        out[i] = mean[i] + scale * row


@register_jitable
def confidence_radius(t: int, d: int, lam: float, delta: float) -> float:
    """f_{t,δ} = √λ + √(2 log(1/δ) + d log((dλ + t)/(dλ))) (Theorem 1; Abbasi-Yadkori et al.
    2011)."""
    return math.sqrt(lam) + math.sqrt(
        2.0 * math.log(1.0 / delta) + d * math.log((d * lam + t) / (d * lam))
    )


@register_jitable
def code_radius(t: int, d: int, lam: float, delta: float) -> float:
    """√(g + λ) with g = 2 log(1/δ) + d log(1 + n/(λd)), n = t - 1: the authors' code indexes its
    list of g by the number of rounds already played."""
    return math.sqrt(2.0 * math.log(1.0 / delta) + d * math.log(1.0 + (t - 1) / (lam * d)) + lam)


@register_jitable
def slide(total: float, leaving: float, entering: float) -> float:
    """The running sum of the last m stored scalars after one enters and (once m are stored) the
    oldest leaves: O(1) per round, the O(d²)-per-round variant of the end of Section 5."""
    return (total - leaving) + entering


@register_jitable
def arrival_round(s: int, delay: int, window: int, horizon: int) -> int:
    """The round from which the conversion of round s is usable, or -1 if never: Ỹ_{s,t} is
    observed at the end of round t = s + D_s (so used from s + D_s + 1), and only if D_s <= m
    (Section 4); conversions due after T are never seen."""
    if delay > window or delay > horizon - s - 1:
        return -1
    return s + delay + 1


# --------------------------------------------------------------------------------------------
# The policies
# --------------------------------------------------------------------------------------------


@dataclass
class OTFLin:
    """What Algorithms 1 and 2 share: V_t^-1, B_t, the window of the last m actions, and the
    buffer of stored scalars (the O(d²) variant, or the authors' code's buffer)."""

    dimension: int
    window: int  # m
    lam: float  # λ
    delta: float  # δ
    width: str = "paper"  # "paper" (Sections 5 and 7) or "code" (the authors' code)
    window_sum: str = "stored"  # paper width: "exact" or "stored" window sum
    sigma0: float = 0.5  # the code's OTFLinTS prior scale σ₀
    v_inv: np.ndarray = field(init=False)
    b: np.ndarray = field(init=False)
    recent: deque = field(init=False)  # A_{t-m}, ..., A_{t-1}
    stored: deque = field(init=False)  # stored scalars of the same rounds
    stored_total: float = 0.0
    last_width: float = math.nan  # the multiplier of the round's exploration, for the trace
    last_window_sum: float = 0.0

    def __post_init__(self) -> None:
        if self.width not in WIDTHS or self.window_sum not in WINDOW_SUMS:
            raise ValueError(f"width {self.width!r} / window_sum {self.window_sum!r}")
        self.v_inv = np.eye(self.dimension) / self.lam  # V_1(λ) = λI
        self.b = np.zeros(self.dimension)
        self.recent = deque(maxlen=self.window)
        self.stored = deque(maxlen=self.window)

    def observe(self, action: np.ndarray) -> None:
        """A conversion of a past action arrives: B_t gains Ỹ_{s,t} A_s = A_s (eq. 2)."""
        self.b += action

    def estimate(self) -> np.ndarray:
        """θ̂^W_t = V_t(λ)^-1 B_t (eq. 2)."""
        theta_hat = np.zeros(self.dimension)
        mat_vec(self.v_inv, self.b, theta_hat)
        return theta_hat

    def window_term(self) -> float:
        """S_t: Σ_{s=t-m}^{t-1} ||A_s||_{V_t^-1} (``exact``, Algorithm 1 and Theorem 1), else the
        running sum of the stored scalars."""
        if self.width == "paper" and self.window_sum == "exact":
            total = 0.0
            for past in self.recent:
                total += math.sqrt(quad_form(self.v_inv, past))
            return total
        return self.stored_total

    def _store(self, value: float) -> None:
        leaving = self.stored[0] if len(self.stored) == self.window else 0.0
        self.stored_total = slide(self.stored_total, leaving, value)
        self.stored.append(value)

    def played(self, action: np.ndarray) -> None:
        """After A_t: store its scalar (||A_t||_{V_t^-1}, or its square for the code's OTFLinUCB,
        both before the update), then V_{t+1}^-1 by Sherman-Morrison."""
        if self.width == "paper" and self.window_sum == "stored":
            self._store(math.sqrt(quad_form(self.v_inv, action)))
        self.recent.append(action)
        sherman_morrison(self.v_inv, action, np.zeros(self.dimension))


@dataclass
class OTFLinUCB(OTFLin):
    """OTFLinUCB (Algorithm 1): A_t = argmax_a <a, θ̂> + α_{t,δ} ||a||_{V_t^-1} with
    α_{t,δ} = 2 f_{t,δ} + S_t (eq. 6); or the code's squared-norm index."""

    def choose(self, t: int, action_set: np.ndarray) -> int:
        theta_hat = self.estimate()
        self.last_window_sum = self.window_term()
        if self.width == "paper":
            radius = (
                2.0 * confidence_radius(t, self.dimension, self.lam, self.delta)
                + self.last_window_sum
            )
        else:
            radius = code_radius(t, self.dimension, self.lam, self.delta) + self.last_window_sum
        self.last_width = radius
        best, best_index = 0, -math.inf
        for k, a in enumerate(action_set):
            norm_sq = quad_form(self.v_inv, a)
            bonus = math.sqrt(norm_sq) if self.width == "paper" else norm_sq
            index = dot(a, theta_hat) + radius * bonus
            if index > best_index:  # strict: the lowest index wins ties
                best, best_index = k, index
        return best

    def played(self, action: np.ndarray) -> None:
        if self.width == "code":
            self._store(quad_form(self.v_inv, action))
        super().played(action)


@dataclass
class OTFLinTS(OTFLin):
    """OTFLinTS (Algorithm 2): A_t = argmax_a <a, θ̃_t>, θ̃_t ~ N(θ̂, β_{t,δ} V_t^-1),
    β_{t,δ} = 1 + S_t / f_{t,δ} (Section 7, our reading); or the code's N(M B, M)."""

    code_cov: np.ndarray = field(init=False)  # the code's M = (c V)^-1, c = σ₀ + Σ buffer
    c: float = math.nan  # the c that built M (none yet: M starts at the identity)
    c_sum: float = 0.0  # the buffer sum in that c

    def __post_init__(self) -> None:
        super().__post_init__()
        self.code_cov = np.eye(self.dimension)  # the code starts from the identity

    def choose(self, t: int, action_set: np.ndarray, z: np.ndarray) -> int:
        lower = np.zeros((self.dimension, self.dimension))
        sample = np.zeros(self.dimension)
        if self.width == "paper":
            theta_hat = self.estimate()
            self.last_window_sum = self.window_term()
            beta = 1.0 + self.last_window_sum / confidence_radius(
                t, self.dimension, self.lam, self.delta
            )
            self.last_width = beta
            cholesky(self.v_inv, lower)
            perturb(theta_hat, lower, z, math.sqrt(beta), sample)
        else:
            self.last_width, self.last_window_sum = self.c, self.c_sum
            theta_hat = np.zeros(self.dimension)
            mat_vec(self.code_cov, self.b, theta_hat)  # the code's estimate uses M, not V^-1
            cholesky(self.code_cov, lower)
            perturb(theta_hat, lower, z, 1.0, sample)
        best, best_value = 0, -math.inf
        for k, a in enumerate(action_set):
            value = dot(a, sample)
            if value > best_value:
                best, best_value = k, value
        return best

    def played(self, action: np.ndarray) -> None:
        super().played(action)
        if self.width == "code":
            # the code rebuilds M from the updated V and the buffer before A_t's entry, then
            # stores A_tᵀ M A_t
            self.c_sum = self.stored_total
            self.c = self.sigma0 + self.c_sum
            self.code_cov = self.v_inv / self.c
            self._store(quad_form(self.code_cov, action))


def run(
    policy: OTFLinUCB | OTFLinTS,
    action_sets: np.ndarray,
    uniforms: np.ndarray,
    delays: np.ndarray,
    theta: np.ndarray,
    normals: np.ndarray,
    checkpoints: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Play one replication. Round t offers ``action_sets[t-1]`` (K x d); the played action A
    converts iff ``uniforms[t-1] < <A, θ>`` (X_t ~ B(<A_t, θ>), Section 3) and its conversion is
    usable from ``arrival_round``. OTFLinTS draws θ̃_t from ``normals[t-1]``.

    Returns the index played in each round's action set, and the trace (t, width, window sum,
    conversions observed so far) at the checkpoints: the width is α_{t,δ} (UCB), β_{t,δ} (paper
    TS) or c = σ₀ + Σ buffer (code TS)."""
    horizon = action_sets.shape[0]
    chosen = np.zeros(horizon, dtype=np.int64)
    trace = []
    wanted = set(int(t) for t in checkpoints)
    pending: dict[int, list[int]] = {}
    observed = 0
    for t in range(1, horizon + 1):
        for s in pending.pop(t, []):  # in the order they were played
            policy.observe(action_sets[s - 1, chosen[s - 1]])
            observed += 1
        if isinstance(policy, OTFLinTS):
            k = policy.choose(t, action_sets[t - 1], normals[t - 1])
        else:
            k = policy.choose(t, action_sets[t - 1])
        chosen[t - 1] = k
        action = action_sets[t - 1, k]
        policy.played(action)
        if t in wanted:
            trace.append((t, policy.last_width, policy.last_window_sum, observed))
        due = arrival_round(t, int(delays[t - 1]), policy.window, horizon)
        if uniforms[t - 1] < dot(action, theta) and due > 0:
            pending.setdefault(due, []).append(t)
    return chosen, np.array(trace, dtype=np.float64).reshape(-1, len(TRACE_COLUMNS))
