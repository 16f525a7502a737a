"""Integer delay distributions on {0, 1, 2, ...}.

Every distribution offers the same four things the papers use: ``sample`` (draws from a numpy
``Generator``), ``cdf`` (tau(d) = P(D <= d), Vernade et al. 2017 Section 2), ``mean`` and
``variance`` (Pike-Burke et al. 2018 eqs. (6)-(7) use E[tau] and V(tau)).

A delay of ``d`` means: a reward generated at round ``s`` becomes usable at round ``s + d + 1``
(see ``docs/decisions/cross-cutting.md#arrival``).
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from delayed_bandits.errors import ConfigError


def _special():
    """``scipy.special``, imported when first needed: most jobs never need it, and its import
    costs about 0.2 s."""
    from scipy import special

    return special


# Draws beyond this are clipped so that heavy tails (Pareto with alpha <= 1) fit an int64; a delay
# this long is never observed within any horizon we simulate.
MAX_DELAY = 2**62
# The largest mean, rate or scale a law may have: above 2^52, mean / (mean + 1) and
# exp(-1 / mean) round to 1 in float64, so the law's CDF would be 0 everywhere (no delay ends).
MAX_SCALE = 2.0**52


def _delays(x: np.ndarray) -> np.ndarray:
    """Real draws floored to delays, clipped at ``MAX_DELAY`` so that every one fits an int64 (a
    draw of 1e300 would otherwise become a negative delay)."""
    return np.floor(np.minimum(x, float(MAX_DELAY))).astype(np.int64)


class DelayDistribution(Protocol):
    """What the engine needs from a delay distribution."""

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray: ...

    def cdf(self, d: np.ndarray | int) -> np.ndarray: ...

    @property
    def mean(self) -> float: ...

    @property
    def variance(self) -> float: ...


def _moments_from_survival(dist: DelayDistribution, upper: int) -> tuple[float, float]:
    """Mean and variance of a delay supported on {0..upper}: E[D] = sum_d P(D > d),
    E[D^2] = sum_d (2d + 1) P(D > d)."""
    d = np.arange(upper + 1)
    surv = 1.0 - dist.cdf(d)
    mean = float(surv.sum())
    second = float(((2 * d + 1) * surv).sum())
    return mean, second - mean**2


class _NumericMoments:
    """Mean and variance summed from the CDF over {0..self._upper()}, beyond which the law has
    (numerically) no mass."""

    def _upper(self) -> int:
        raise NotImplementedError

    @property
    def mean(self) -> float:
        return _moments_from_survival(self, self._upper())[0]  # type: ignore[arg-type]

    @property
    def variance(self) -> float:
        return _moments_from_survival(self, self._upper())[1]  # type: ignore[arg-type]


@dataclass(frozen=True)
class Uniform:
    """Uniform on {low, ..., high} (Pike-Burke et al. 2018, Figure 3a). ``coupled``: each delay is
    low + floor(V (high - low + 1)) of one uniform V, so that laws of different widths drawn from
    the same stream move together (common random numbers across settings, Appendix E); otherwise
    numpy's bounded integers, which the other figures were drawn with."""

    low: int
    high: int
    coupled: bool = False

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        if self.coupled:
            width = self.high - self.low + 1
            return self.low + np.floor(rng.random(size) * width).astype(np.int64)
        return rng.integers(self.low, self.high + 1, size=size, dtype=np.int64)

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        return np.clip((d - self.low + 1) / (self.high - self.low + 1), 0.0, 1.0)

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2

    @property
    def variance(self) -> float:
        return ((self.high - self.low + 1) ** 2 - 1) / 12


@dataclass(frozen=True)
class Geometric:
    """Geometric on {0, 1, ...} with mean ``mu``: P(D > d) = q^(d+1), q = mu / (mu + 1)
    (Vernade et al. 2017, Section 7; the paper's "lambda = 1/mu" is this q, see
    docs/decisions/vernade2017.md#geometric-lambda)."""

    mu: float

    @property
    def q(self) -> float:
        """The factor by which 1 - tau(d) shrinks at each step."""
        return self.mu / (self.mu + 1.0)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.minimum(rng.geometric(1.0 / (self.mu + 1.0), size=size), MAX_DELAY + 1) - 1

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        return np.where(d < 0, 0.0, 1.0 - self.q ** (np.maximum(d, 0.0) + 1))

    @property
    def mean(self) -> float:
        return self.mu

    @property
    def variance(self) -> float:
        return self.mu * (self.mu + 1.0)


@dataclass(frozen=True)
class Exponential:
    """floor(E), E ~ Exponential(scale), optionally conditioned on floor(E) <= bound.

    Truncation renormalises, so ``mean`` is the truncated mean, the value algorithms are given
    (Pike-Burke et al. 2018, Figure 3a: mean 50 bounded at 75 and at 250)."""

    scale: float
    bound: int | None = None

    def _untruncated_cdf(self, d: np.ndarray) -> np.ndarray:
        return np.where(d < 0, 0.0, -np.expm1(-(d + 1) / self.scale))

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        top = 1.0 if self.bound is None else float(self._untruncated_cdf(np.array(self.bound)))
        u = rng.random(size) * top
        return _delays(-self.scale * np.log1p(-u))

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        if self.bound is None:
            return self._untruncated_cdf(d)
        return np.minimum(
            self._untruncated_cdf(d) / self._untruncated_cdf(np.array(float(self.bound))), 1.0
        )

    @property
    def mean(self) -> float:
        if self.bound is None:
            q = math.exp(-1.0 / self.scale)
            return q / (1.0 - q)
        return _moments_from_survival(self, self.bound)[0]

    @property
    def variance(self) -> float:
        if self.bound is None:
            q = math.exp(-1.0 / self.scale)
            return q / (1.0 - q) ** 2
        return _moments_from_survival(self, self.bound)[1]


@dataclass(frozen=True)
class Poisson:
    """Poisson with rate ``rate``."""

    rate: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return rng.poisson(self.rate, size=size).astype(np.int64)

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        # pdtr(k, rate) = P(Poisson(rate) <= k); scipy.stats would cost ~0.7 s of import per job
        return np.where(d < 0, 0.0, _special().pdtr(np.maximum(d, 0.0), self.rate))

    @property
    def mean(self) -> float:
        return self.rate

    @property
    def variance(self) -> float:
        return self.rate


@dataclass(frozen=True)
class HalfNormal(_NumericMoments):
    """floor(|Z|), Z ~ Normal(0, sigma^2): P(D <= d) = erf((d + 1) / (sigma sqrt 2))."""

    sigma: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return _delays(np.abs(rng.normal(0.0, self.sigma, size=size)))

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        return np.where(d < 0, 0.0, _special().erf((d + 1) / (self.sigma * math.sqrt(2.0))))

    def _upper(self) -> int:
        return int(math.ceil(12 * self.sigma)) + 1


@dataclass(frozen=True)
class Pareto:
    """D = floor(X), X ~ Pareto type I (tail index ``alpha``, scale 1): P(D > d) = (d + 1)^-alpha.

    D >= 1 always. The mean is zeta(alpha), infinite when alpha <= 1 (Manegueu et al. 2020,
    Section 2)."""

    alpha: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        u = 1.0 - rng.random(size)  # in (0, 1], so the power is finite
        with np.errstate(over="ignore"):  # an infinite draw is clipped at MAX_DELAY, as meant
            x = u ** (-1.0 / self.alpha)
        return _delays(x)

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        return np.where(d < 0, 0.0, 1.0 - (np.maximum(d, 0.0) + 1.0) ** (-self.alpha))

    @property
    def mean(self) -> float:
        return float(_special().zeta(self.alpha)) if self.alpha > 1 else math.inf

    @property
    def variance(self) -> float:
        if self.alpha <= 2:
            return math.inf
        second = 2 * float(_special().zeta(self.alpha - 1)) - float(_special().zeta(self.alpha))
        return second - self.mean**2


@dataclass(frozen=True)
class PacketLoss:
    """Packet loss (Lancewicki et al. 2021; Wu and Wager 2022): D = 0 with probability 1 - p,
    else never, ``MAX_DELAY`` as for any infinite draw. tau(d) = 1 - p for every d >= 0, so the
    moments are infinite when p > 0; under a censoring window (``Capped``) they are finite."""

    p: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.where(rng.random(size) < self.p, MAX_DELAY, 0).astype(np.int64)

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        return np.where(d < 0, 0.0, np.where(d >= MAX_DELAY, 1.0, 1.0 - self.p))

    @property
    def mean(self) -> float:
        return math.inf

    @property
    def variance(self) -> float:
        return math.inf


@dataclass(frozen=True)
class ScaledPareto:
    """P(D > d) = c (d + 1)^-alpha for d >= 1 and P(D > 0) = c 2^-alpha: the delays of arm 1 in
    Manegueu et al. 2020, Section 8.3 (c = 0.7, alpha = 0.3), which satisfy their Assumption 2.
    So D = 0 with probability 1 - c 2^-alpha, else D = floor(X), X ~ Pareto(alpha, scale 2)."""

    alpha: float
    c: float

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        u = rng.random(size)
        tail = self.c * 2.0 ** (-self.alpha)
        # u < tail has probability `tail`; u / tail is then uniform on (0, 1)
        x = 2.0 * np.maximum(u / tail, 1e-300) ** (-1.0 / self.alpha)
        return np.where(u < tail, np.floor(np.minimum(x, float(MAX_DELAY))), 0.0).astype(np.int64)

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.floor(np.asarray(d, dtype=float))
        surv = self.c * (np.maximum(d, 1.0) + 1.0) ** (-self.alpha)
        return np.where(d < 0, 0.0, 1.0 - surv)

    @property
    def mean(self) -> float:
        return (
            math.inf
            if self.alpha <= 1
            else float(self.c * 2.0 ** (-self.alpha) + self.c * (_special().zeta(self.alpha) - 1.0))
        )

    @property
    def variance(self) -> float:
        if self.alpha <= 2:
            return math.inf
        second = self.c * 2.0 ** (-self.alpha) + self.c * (
            2 * float(_special().zeta(self.alpha - 1)) - float(_special().zeta(self.alpha)) - 1.0
        )
        return second - self.mean**2


@dataclass(frozen=True)
class Empirical(_NumericMoments):
    """An empirical delay law given by its quantile table.

    ``values[i]`` is the quantile at probability ``probs[i]``; between table points the quantile
    function is linear in ``values`` (on a log10 scale when ``log10``), then multiplied by
    ``scale`` and floored. Vernade et al. 2020 rescale Criteo delays (seconds) by 0.01."""

    probs: tuple[float, ...]
    values: tuple[float, ...]
    scale: float = 1.0
    log10: bool = False

    def _to_delay(self, v: np.ndarray) -> np.ndarray:
        return self.scale * (10.0**v if self.log10 else v)

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        v = np.interp(rng.random(size), self.probs, self.values)
        return _delays(self._to_delay(v))

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        # P(floor(X) <= d) = P(X < d + 1): the left limit of F_X, which matters at atoms (a value
        # repeated in the table).
        x = (np.floor(np.asarray(d, dtype=float)) + 1.0) / self.scale
        if self.log10:
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(x > 0, np.log10(np.maximum(x, 1e-300)), -np.inf)
        else:
            v = x
        values, probs = np.asarray(self.values), np.asarray(self.probs)
        idx = np.searchsorted(values, v, side="left")  # first table value >= v
        lo = np.clip(idx - 1, 0, len(values) - 1)
        hi = np.clip(idx, 0, len(values) - 1)
        span = values[hi] - values[lo]
        frac = np.where(span > 0, (v - values[lo]) / np.where(span > 0, span, 1.0), 1.0)
        inside = probs[lo] + frac * (probs[hi] - probs[lo])
        return np.where(idx == 0, 0.0, np.where(idx >= len(values), 1.0, inside))

    def _upper(self) -> int:
        return int(math.ceil(float(self._to_delay(np.array(self.values[-1])))))


@dataclass(frozen=True, eq=False)
class Sample:
    """The empirical law of a sample of delays (``{kind: sample, path: <file>}``): a draw is one of
    the sample's delays picked uniformly at random, independently of the other draws (resampling
    with replacement). So tau(d) is the fraction of the sample <= d, and ``mean`` and ``variance``
    are the sample's own, exactly (the variance divides by n: it is the law's variance, not an
    unbiased estimate of some other law's).

    ``values`` are the delays, kept sorted as a read-only int64 array; ``path`` is the file they
    were read from, as the config names it, and ``digest`` the sha256 (hex) of the file's bytes.
    Two samples are equal when they hold the same delays from files of the same digest."""

    values: np.ndarray
    path: str = ""
    digest: str = ""

    def __post_init__(self) -> None:
        values = np.sort(np.asarray(self.values, dtype=np.int64).ravel())
        if values.size == 0 or values[0] < 0:
            raise ValueError("a delay sample needs at least one delay, all >= 0")
        values.flags.writeable = False
        object.__setattr__(self, "values", values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sample):
            return NotImplemented
        return self.digest == other.digest and np.array_equal(self.values, other.values)

    def __hash__(self) -> int:
        return hash((self.digest, self.values.size))

    def __repr__(self) -> str:
        return f"Sample({self.values.size} delays, path={self.path!r}, digest={self.digest[:12]!r})"

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return self.values[rng.integers(0, self.values.size, size=size)]

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.clip(np.floor(np.asarray(d, dtype=float)), -1, MAX_DELAY).astype(np.int64)
        return np.asarray(np.searchsorted(self.values, d, side="right") / self.values.size)

    @functools.cached_property
    def _sums(self) -> tuple[int, int]:
        """sum(x) and sum(x^2) as Python integers, exact whatever the size of the delays."""
        xs = self.values.tolist()
        return sum(xs), sum(x * x for x in xs)

    @property
    def mean(self) -> float:
        return self._sums[0] / self.values.size  # int / int: correctly rounded

    @property
    def variance(self) -> float:
        n, (s, s2) = self.values.size, self._sums
        return (n * s2 - s * s) / (n * n)  # E[D^2] - E[D]^2 over one exact integer


# The format of a delay sample file, quoted by its error messages.
SAMPLE_FORMAT = (
    "one delay per line, a non-negative integer written in digits like 12 (not 12.0, "
    "1e3, +12 or 1_000), with no header, comment or blank lines"
)


def _sample_error(shown: str, number: int, line: str) -> ConfigError:
    """Why line ``number`` (text ``line``, whitespace stripped) of a sample file is refused."""
    if not line:
        return ConfigError(
            f"delay sample file {shown!r} line {number} is blank; a blank line "
            f"often stands for a missing value, so it is refused rather than "
            f"skipped: remove it or fill it in. Expected {SAMPLE_FORMAT}"
        )
    # a number of thousands of digits is shown by its start and length
    number_text = line if len(line) <= 40 else f"{line[:37]}... ({len(line):,} characters)"
    digits = line[1:] if line[:1] == "-" else line
    if line[:1] == "-" and digits.isascii() and digits.isdigit() and digits.strip("0"):
        return ConfigError(
            f"delay sample file {shown!r} line {number}: delay {number_text} is negative; "
            f"delays must be >= 0"
        )
    if line.isascii() and line.isdigit():
        return ConfigError(
            f"delay sample file {shown!r} line {number}: delay {number_text} exceeds the "
            f"largest delay allowed, 2**62 = {MAX_DELAY}"
        )
    text = line if len(line) <= 40 else line[:37] + "..."
    return ConfigError(
        f"delay sample file {shown!r} line {number}: {text!r} is not an integer; "
        f"expected {SAMPLE_FORMAT}"
    )


def _at_most_max_delay(digits: str) -> bool:
    """Whether a line of digits is a delay of at most ``MAX_DELAY``, without converting more than
    19 digits: Python refuses to convert a string of more than 4,300."""
    significant = digits.lstrip("0")
    return len(significant) <= len(str(MAX_DELAY)) and int(significant or "0") <= MAX_DELAY


@functools.lru_cache(maxsize=16)
def _read_sample(shown: str, resolved: str, mtime_ns: int, size: int) -> Sample:
    """The law of one version of a sample file (the key holds its mtime and size, so an edited
    file is read again; one job builds the law once per setting and per arm).

    The file is UTF-8 text (a leading byte-order mark is ignored) holding one delay per line;
    whitespace around a delay (spaces, tabs, the \\r of Windows line ends) is ignored and the last
    line may end with a newline. Everything else is refused, naming the line: a blank line (an
    export's missing value, which skipping would silently drop), a header or comment, a number
    that is not a plain non-negative integer, a delay above ``MAX_DELAY``."""
    try:
        data = Path(resolved).read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"delay sample file {shown!r} cannot be read: {exc.strerror or exc}"
        ) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        number = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            f"delay sample file {shown!r} line {number} is not UTF-8 text "
            f"({exc.reason}); expected {SAMPLE_FORMAT}"
        ) from exc
    lines = [line.strip() for line in text.split("\n")]
    if lines[-1] == "":  # the newline that ends the last line (or an empty file)
        lines.pop()
    if not any(lines):
        raise ConfigError(f"delay sample file {shown!r} holds no delays; expected {SAMPLE_FORMAT}")
    # 18 digits or fewer: below 10^18 < MAX_DELAY
    if all(line.isascii() and line.isdigit() and len(line) <= 18 for line in lines):
        values = np.fromiter(map(int, lines), dtype=np.int64, count=len(lines))
    else:
        for number, line in enumerate(lines, start=1):
            if not (line.isascii() and line.isdigit() and _at_most_max_delay(line)):
                raise _sample_error(shown, number, line)
        values = np.array([int(line) for line in lines], dtype=np.int64)
    return Sample(values, shown, hashlib.sha256(data).hexdigest())


def read_sample(path: str | os.PathLike[str], where: str = "delay") -> Sample:
    """The empirical law of the delays in the file ``path`` (format: ``_read_sample``).

    Raises ``ConfigError`` naming ``where.path``, the file and, for a bad line, its number. A
    relative path is read from the working directory (the repository root under Snakemake)."""
    shown = os.fspath(path)
    file = Path(shown)
    if file.is_dir():
        raise ConfigError(
            f"{where}.path: {shown!r} is a directory; expected a file of delays, {SAMPLE_FORMAT}"
        )
    if not file.exists():
        raise ConfigError(
            f"{where}.path: delay sample file {shown!r} does not exist (a relative "
            f"path is read from the working directory, {os.getcwd()}; when "
            f"Snakemake runs the workflow, the repository root)"
        )
    if not file.is_file():
        raise ConfigError(
            f"{where}.path: {shown!r} is not a regular file; expected a file of "
            f"delays, {SAMPLE_FORMAT}"
        )
    stat = file.stat()
    try:
        return _read_sample(shown, str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    except ConfigError as exc:
        raise ConfigError(f"{where}.path: {exc}") from exc


@dataclass(frozen=True)
class PerArm:
    """Arm-dependent delays: arm k's delays follow ``arms[k]`` (Manegueu et al. 2020)."""

    arms: tuple[DelayDistribution, ...]

    def sample_table(self, rng: np.random.Generator, horizon: int) -> np.ndarray:
        return np.column_stack([arm.sample(rng, horizon) for arm in self.arms])


@dataclass(frozen=True)
class Pooled:
    """The law of a delay whose arm is drawn uniformly: tau(d) is the mean of the arms' CDFs. What
    a learner that assumes one law for all arms would estimate from arm-dependent delays (the
    arena, docs/decisions/arena.md#knows)."""

    arms: tuple[DelayDistribution, ...]

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        which = rng.integers(0, len(self.arms), size)
        draws = np.stack([arm.sample(rng, size) for arm in self.arms])
        return draws[which, np.arange(size)]

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        return np.mean([arm.cdf(d) for arm in self.arms], axis=0)

    @property
    def mean(self) -> float:
        return float(np.mean([arm.mean for arm in self.arms]))

    @property
    def variance(self) -> float:
        if not math.isfinite(self.mean):
            return math.inf
        second = np.mean([arm.variance + arm.mean**2 for arm in self.arms])
        return float(second - self.mean**2)


@dataclass(frozen=True)
class Capped:
    """min(D, cap): the delay after which a censored pull's outcome is settled. Under a censoring
    window m (Vernade et al. 2017, Section 2) every conversion that is ever seen arrives within m
    rounds, so min(D, m) is the delay a learner of the censored problem can be told about; its
    moments are finite whatever the tail of D."""

    law: DelayDistribution
    cap: int

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.minimum(self.law.sample(rng, size), self.cap)

    def cdf(self, d: np.ndarray | int) -> np.ndarray:
        d = np.asarray(d)
        return np.where(d >= self.cap, 1.0, self.law.cdf(d))

    @property
    def mean(self) -> float:
        return _moments_from_survival(self, self.cap)[0]

    @property
    def variance(self) -> float:
        return _moments_from_survival(self, self.cap)[1]


def sample_table(
    dist: DelayDistribution | PerArm, rng: np.random.Generator, horizon: int, n_arms: int
) -> np.ndarray:
    """Delays for every (round, arm) pair, shape (horizon, n_arms): the environment's draw."""
    if isinstance(dist, PerArm):
        if len(dist.arms) != n_arms:
            raise ConfigError(
                f"delay.per_arm has {len(dist.arms)} entries but there are {n_arms} arms"
            )
        return dist.sample_table(rng, horizon)
    return dist.sample(rng, horizon * n_arms).reshape(horizon, n_arms)


def cdf_table(dist: DelayDistribution, upto: int) -> np.ndarray:
    """tau(0), ..., tau(upto) as a float64 array, the form kernels take."""
    return np.ascontiguousarray(dist.cdf(np.arange(upto + 1)), dtype=np.float64)


@dataclass(frozen=True)
class _Kind:
    """How one kind of delay spec is read: the keys it allows besides ``kind``, ``build(spec,
    where)`` (called once the keys are checked), and optionally its own ``words(spec)`` for
    ``describe``, ``prose(spec)`` for ``prose`` and ``files(spec)``, the files it reads (none by
    default)."""

    keys: frozenset[str]
    build: Callable[[Mapping[str, Any], str], DelayDistribution | PerArm]
    words: Callable[[Mapping[str, Any]], str] | None = None
    files: Callable[[Mapping[str, Any]], list[str]] | None = None
    prose: Callable[[Mapping[str, Any]], str] | None = None


# Every kind of delay spec, in the order of KINDS; each is declared by ``_kind`` on its builder.
_KINDS: dict[str, _Kind] = {}


def _kind(
    name: str,
    keys: str,
    words: Callable[[Mapping[str, Any]], str] | None = None,
    files: Callable[[Mapping[str, Any]], list[str]] | None = None,
    prose: Callable[[Mapping[str, Any]], str] | None = None,
):
    """Declare the kind ``name`` with the space-separated ``keys``, built by the decorated
    function."""

    def declare(build: Callable[[Mapping[str, Any], str], DelayDistribution | PerArm]):
        _KINDS[name] = _Kind(frozenset(keys.split()), build, words, files, prose)
        return build

    return declare


def _require(
    spec: Mapping[str, Any],
    key: str,
    where: str,
    positive: bool = True,
    at_most: float = MAX_SCALE,
) -> float:
    if key not in spec:
        raise ConfigError(f"{where}: missing key '{key}' for delay kind '{spec.get('kind')}'")
    value = spec[key]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ConfigError(f"{where}.{key}: expected a finite number, got {value!r}")
    if positive and not value > 0:  # NaN is not > 0, but neither is it <= 0
        raise ConfigError(f"{where}.{key}: must be > 0, got {value!r}")
    if value > at_most:
        raise ConfigError(
            f"{where}.{key}: must be at most {at_most:.6g} (a larger value makes a law that "
            f"float64 or an int64 delay cannot represent), got {value!r}"
        )
    return float(value)


@_kind(
    "uniform", "low high coupled", prose=lambda s: f"uniform on {{{s['low']}, ..., {s['high']}}}"
)
def _uniform(spec: Mapping[str, Any], where: str) -> Uniform:
    low = _require(spec, "low", where, False, MAX_DELAY)
    high = _require(spec, "high", where, False, MAX_DELAY)
    if low < 0 or high < low or low != int(low) or high != int(high):
        raise ConfigError(f"{where}: need integers 0 <= low <= high, got {low}, {high}")
    coupled = spec.get("coupled", False)
    if not isinstance(coupled, bool):
        raise ConfigError(f"{where}.coupled: expected true or false, got {coupled!r}")
    return Uniform(int(low), int(high), coupled)


@_kind("geometric", "mean", prose=lambda s: f"geometric, mean {s['mean']:g}")
def _geometric(spec: Mapping[str, Any], where: str) -> Geometric:
    return Geometric(_require(spec, "mean", where))


@_kind(
    "exponential",
    "mean bound",
    prose=lambda s: (
        f"exponential, mean {s['mean']:g}"
        + (f", bounded at {s['bound']}" if s.get("bound") is not None else "")
    ),
)
def _exponential(spec: Mapping[str, Any], where: str) -> Exponential:
    bound = spec.get("bound")
    if bound is not None and (
        not isinstance(bound, int) or isinstance(bound, bool) or not 0 <= bound <= MAX_DELAY
    ):
        raise ConfigError(
            f"{where}.bound: expected an integer in 0..2**62 = {MAX_DELAY}, got {bound!r}"
        )
    return Exponential(_require(spec, "mean", where), bound)


@_kind("poisson", "rate", prose=lambda s: f"Poisson, mean {s['rate']:g}")
def _poisson(spec: Mapping[str, Any], where: str) -> Poisson:
    return Poisson(_require(spec, "rate", where))


@_kind("halfnormal", "sigma", prose=lambda s: f"half-normal, σ = {s['sigma']:g}")
def _halfnormal(spec: Mapping[str, Any], where: str) -> HalfNormal:
    return HalfNormal(_require(spec, "sigma", where))


@_kind("pareto", "alpha", prose=lambda s: f"Pareto(α = {s['alpha']:g})")
def _pareto(spec: Mapping[str, Any], where: str) -> Pareto:
    return Pareto(_require(spec, "alpha", where))


@_kind("scaled_pareto", "alpha c", prose=lambda s: f"P(D > d) = {s['c']:g} (d+1)^-{s['alpha']:g}")
def _scaled_pareto(spec: Mapping[str, Any], where: str) -> ScaledPareto:
    c = _require(spec, "c", where)
    if c > 1:
        raise ConfigError(f"{where}.c: must be in (0, 1], got {c}")
    return ScaledPareto(_require(spec, "alpha", where), c)


@_kind("packet_loss", "p", prose=lambda s: f"packet loss, p = {s['p']:g}")
def _packet_loss(spec: Mapping[str, Any], where: str) -> PacketLoss:
    p = _require(spec, "p", where)
    if p >= 1:
        raise ConfigError(
            f"{where}.p: the probability that a conversion is lost must be in (0, 1), got {p!r}"
        )
    return PacketLoss(p)


@_kind(
    "empirical",
    "probs values scale log10",
    prose=lambda s: (
        f"empirical (quantile table of {len(s['probs'])} points"
        + (f", rescaled by {s['scale']:g})" if s.get("scale", 1) != 1 else ")")
    ),
)
def _empirical(spec: Mapping[str, Any], where: str) -> Empirical:
    probs, values = spec.get("probs"), spec.get("values")
    if (
        not isinstance(probs, Sequence)
        or not isinstance(values, Sequence)
        or len(probs) != len(values)
        or len(probs) < 2
    ):
        raise ConfigError(f"{where}: probs and values must be lists of equal length >= 2")
    numbers = [
        x
        for x in (*probs, *values)
        if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
    ]
    if len(numbers) != 2 * len(probs):
        raise ConfigError(f"{where}: probs and values must hold finite numbers only")
    if (
        probs[0] != 0
        or probs[-1] != 1
        or any(b < a for a, b in zip(probs, probs[1:]))
        or any(b < a for a, b in zip(values, values[1:]))
    ):
        raise ConfigError(f"{where}: probs must rise from 0 to 1 and values must not decrease")
    if not spec.get("log10", False) and values[0] < 0:
        raise ConfigError(f"{where}.values: delays must be >= 0 (or set log10: true)")
    scale = _require(spec, "scale", where) if "scale" in spec else 1.0
    return Empirical(
        tuple(map(float, probs)), tuple(map(float, values)), scale, bool(spec.get("log10", False))
    )


def _sample_words(spec: Mapping[str, Any]) -> str:
    """'sample of 1,234 delays from logs/delays.txt'; without the count if the file cannot be read
    (a caption drawn after the file moved)."""
    try:
        n = read_sample(spec["path"]).values.size
    except (ConfigError, KeyError, TypeError):
        return f"sample from {spec.get('path')}"
    return f"sample of {n:,} delay{'s' if n != 1 else ''} from {spec['path']}"


def _sample_files(spec: Mapping[str, Any]) -> list[str]:
    path = spec.get("path")
    return [os.fspath(path)] if isinstance(path, (str, os.PathLike)) and os.fspath(path) else []


@_kind("sample", "path", _sample_words, _sample_files)
def _sample(spec: Mapping[str, Any], where: str) -> Sample:
    if "path" not in spec:
        raise ConfigError(f"{where}: missing key 'path' for delay kind 'sample'")
    path = spec["path"]
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ConfigError(
            f"{where}.path: expected the path of a file of delays (a non-empty "
            f"string), got {path!r}"
        )
    return read_sample(path, where)


@_kind(
    "per_arm",
    "arms",
    lambda spec: "[" + ", ".join(describe(arm) for arm in spec["arms"]) + "]",
    lambda spec: [
        f for arm in spec.get("arms") or () if isinstance(arm, Mapping) for f in files(arm)
    ],
    lambda spec: _per_arm_prose([prose(arm) for arm in spec["arms"]]),
)
def _per_arm(spec: Mapping[str, Any], where: str) -> PerArm:
    arms = spec.get("arms")
    if not isinstance(arms, Sequence) or not arms:
        raise ConfigError(f"{where}.arms: expected a non-empty list of delay specs")
    if not all(isinstance(a, Mapping) for a in arms):
        raise ConfigError(f"{where}.arms: every entry must be a delay spec mapping")
    built = [from_spec(a, f"{where}.arms[{i}]") for i, a in enumerate(arms)]
    if any(isinstance(b, PerArm) for b in built):
        raise ConfigError(f"{where}.arms: per_arm delays cannot be nested")
    return PerArm(tuple(built))  # type: ignore[arg-type]


KINDS = tuple(_KINDS)


def _declared(spec: Mapping[str, Any]) -> _Kind | None:
    kind = spec.get("kind")
    return _KINDS.get(kind) if isinstance(kind, str) else None


def from_spec(spec: Mapping[str, Any], where: str = "delay") -> DelayDistribution | PerArm:
    """Build a distribution from a config mapping such as ``{kind: geometric, mean: 500}`` or
    ``{kind: sample, path: logs/delays.txt}`` (``read_sample``).

    Raises ``ConfigError`` naming ``where`` and the allowed kinds or the bad key."""
    kind, declared = spec.get("kind"), _declared(spec)
    if declared is None:
        raise ConfigError(f"{where}.kind: {kind!r} is not one of {', '.join(KINDS)}")
    extra = set(spec) - declared.keys - {"kind"}
    if extra:
        raise ConfigError(
            f"{where}: unknown key(s) {sorted(extra)} for kind '{kind}'; "
            f"allowed: {sorted(declared.keys)}"
        )
    return declared.build(spec, where)


def files(spec: Mapping[str, Any]) -> list[str]:
    """Every file a delay spec reads (a sample's ``path``, also inside ``per_arm``), each once and
    as written in the config: the inputs of the jobs that simulate it."""
    declared = _declared(spec)
    found = declared.files(spec) if declared is not None and declared.files is not None else []
    return list(dict.fromkeys(found))


def _per_arm_prose(arms: list[str]) -> str:
    if len(set(arms)) == 1:
        return f"{arms[0]} on every arm"
    return "; ".join(f"arm {i}: {text}" for i, text in enumerate(arms, 1))


def prose(spec: Mapping[str, Any]) -> str:
    """A delay spec as a figure's reader reads it, in the papers' notation: 'geometric, mean 500',
    'Pareto(α = 0.7)', 'arm 1: Pareto(α = 1); arm 2: Pareto(α = 0.3)', 'empirical (quantile
    table of 21 points)' (``style.reader`` typesets it); ``describe`` for a kind with no prose."""
    declared = _declared(spec)
    if declared is not None and declared.prose is not None:
        return declared.prose(spec)
    return describe(spec)


def describe(spec: Mapping[str, Any]) -> str:
    """A delay spec in words: 'geometric(mean=500)', or one law per arm: '[pareto(alpha=1.0),
    pareto(alpha=0.3)]'; a list parameter (an empirical quantile table) shows as its length, and a
    sample as its size and file: 'sample of 1,234 delays from logs/delays.txt'."""
    declared = _declared(spec)
    if declared is not None and declared.words is not None:
        return declared.words(spec)
    params = ", ".join(
        f"{k}={len(v)} points" if isinstance(v, list) else f"{k}={v}"
        for k, v in spec.items()
        if k != "kind"
    )
    return f"{spec.get('kind', '?')}({params})"
