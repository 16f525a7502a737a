"""The arena as a library, outside Snakemake (docs/library.md): delay laws, a setting, every arena
entrant by id, runs of its compiled kernel (or of its readable reference), and summaries with
intervals.

A run is the arena's own: the setting is the arena's problem (``arena.problem.Setting``, Vernade
et al. 2017's Bernoulli bandit with delayed conversions, the best arm's position drawn per
replication), built by its ``from_config`` from the keys a config would give; each replication
draws its environment from ``seeds.replication_seeds(seed, "arena", figure, name, r)``, as a
simulation job does, and every entrant of one call plays on the same draws (paired runs). A
setting read from a config (``Setting.from_arena``) carries that figure's seed ids, so its
numbers are the workflow's for the same replications (tests/test_library.py holds them equal).

The frame a run returns has the columns of a simulation shard (``tables.SHARD_COLUMNS``:
setting, algorithm, replication, t, regret), pseudo-regret at the checkpoints, so that
``aggregate.summarise`` and the claims' helpers read it as they read a run of the workflow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from delayed_bandits import aggregate, claims, delays, grid, seeds
from delayed_bandits.arena import entrants as declared
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena import problem
from delayed_bandits.environment import checkpoint_grid
from delayed_bandits.errors import BadParameter, ConfigError, MissingParameter, NotApplicable
from delayed_bandits.tables import SHARD_COLUMNS

PAPER = "arena"
FIGURE = "library"
"""The figure id of a setting's seeds when it comes from no config (``Setting.figure``)."""
CONFIDENCE = 0.95
"""The coverage of ``summary``'s and ``ratio``'s intervals unless given."""

INFORMATION = declared.INFORMATION
"""What an entrant observes, by information model (``Entrant.information``), in words."""

TOLD_ONLY_SOME = {"alpha_tilde": ("patient",)}
"""Setting keys only some entrants read, by key: Patient's tail parameter α̃ (Manegueu et al.
2020, Algorithm 1), which has no default that suits every delay law (α̃ <= the law's tail
index). A setting may leave it out; running an entrant that reads it is then
``MissingParameter``."""


@dataclass(frozen=True)
class Law:
    """A delay law: its config spec (what ``delay:`` of config/config.yaml would say) and the
    distribution ``delays.from_spec`` builds of it (sample, CDF τ(d), mean, variance)."""

    spec: Mapping[str, Any]

    @property
    def distribution(self) -> delays.DelayDistribution | delays.PerArm:
        return delays.from_spec(self.spec)


def law(kind: str, **keys: Any) -> Law:
    """The law of ``kind`` (one of ``delays.KINDS``) with ``keys``, checked now: a bad or
    missing key is ``BadParameter`` naming it."""
    spec = {"kind": kind, **{k: v for k, v in keys.items() if v is not None}}
    try:
        delays.from_spec(spec, kind)
    except ConfigError as exc:
        raise BadParameter(str(exc)) from None
    return Law(spec)


def uniform(low: int, high: int) -> Law:
    """Uniform on {low, ..., high} (Pike-Burke et al. 2018, Figure 3a)."""
    return law("uniform", low=low, high=high)


def geometric(mean: float) -> Law:
    """Geometric on {0, 1, ...} with mean ``mean`` (Vernade et al. 2017, Section 7)."""
    return law("geometric", mean=mean)


def exponential(mean: float, bound: int | None = None) -> Law:
    """floor(E), E exponential with mean ``mean``, optionally conditioned on <= ``bound``."""
    return law("exponential", mean=mean, bound=bound)


def poisson(rate: float) -> Law:
    """Poisson with mean ``rate``."""
    return law("poisson", rate=rate)


def halfnormal(sigma: float) -> Law:
    """floor(|N(0, sigma²)|)."""
    return law("halfnormal", sigma=sigma)


def pareto(alpha: float) -> Law:
    """Pareto with tail index ``alpha`` (Manegueu et al. 2020, Section 8; infinite mean at
    alpha <= 1)."""
    return law("pareto", alpha=alpha)


def scaled_pareto(alpha: float, c: float) -> Law:
    """P(D > d) = c (d + 1)^-alpha (Manegueu et al. 2020, Section 8.3)."""
    return law("scaled_pareto", alpha=alpha, c=c)


def packet_loss(p: float) -> Law:
    """D = 0, or never with probability ``p`` (Lancewicki et al. 2021)."""
    return law("packet_loss", p=p)


def empirical(
    probs: Sequence[float], values: Sequence[float], scale: float = 1.0, log10: bool = False
) -> Law:
    """A quantile table (Vernade et al. 2020, Figure 2), values rescaled by ``scale``."""
    return law("empirical", probs=list(probs), values=list(values), scale=scale, log10=log10)


def sample(path: str) -> Law:
    """Delays resampled from a file of integers, one a line."""
    return law("sample", path=path)


def per_arm(best: Law, others: Law) -> Law:
    """The best arm's law and the other arms' (Manegueu et al. 2020, Figure 5)."""
    return law("per_arm", arms=[dict(best.spec), dict(others.spec)])


@dataclass(frozen=True)
class Setting:
    """One arena problem and its run length: ``n_arms`` arms, the best at ``base_mean + gap``,
    the others at ``base_mean``; the delay law; the window m (censoring at m when ``censored``,
    else the window the settled model uses); the horizon T and the number of ``checkpoints``.
    ``alpha_tilde`` is Patient's tail parameter (``TOLD_ONLY_SOME``). ``figure`` and ``name``
    are the ids its seeds derive from (``from_arena``: those of a config's setting).

    Bad values are ``BadParameter``, naming the key, when the setting is made."""

    n_arms: int
    base_mean: float
    gap: float
    delay: Law
    window: int
    horizon: int
    censored: bool = False
    alpha_tilde: float | None = None
    checkpoints: int = 50
    figure: str = FIGURE
    name: str = "setting"
    # further keys of an arena setting's config (zero_delay, switch, adapt), as a config gives them
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.delay, Law):
            raise BadParameter(
                f"delay: {self.delay!r} is not a law; make one with lab.geometric(100), "
                "lab.pareto(0.3), ... (one constructor per kind: "
                f"{', '.join(delays.KINDS)})"
            )
        for key, least in (("horizon", 1), ("checkpoints", 1)):
            value = getattr(self, key)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < least:
                raise BadParameter(f"{key}: an integer >= {least}, got {value!r}")
        self.problem()

    def config(self) -> dict[str, Any]:
        """The setting as an arena figure's config gives it (``papers.arena.<figure>.settings``
        with its grid's keys filled in)."""
        cfg = {
            "n_arms": self.n_arms,
            "base_mean": self.base_mean,
            "gap": self.gap,
            "delay": dict(self.delay.spec),
            "window": self.window,
            "censored": self.censored,
            # nan where not given: no entrant that reads it runs (``TOLD_ONLY_SOME``)
            "alpha_tilde": math.nan if self.alpha_tilde is None else self.alpha_tilde,
            **self.extra,
        }
        return cfg

    def problem(self) -> problem.Setting:
        """The arena's problem (``arena.problem.Setting.from_config``); its errors as
        ``BadParameter``."""
        try:
            return problem.Setting.from_config(self.config(), "setting")
        except ConfigError as exc:
            raise BadParameter(str(exc)) from None
        except (TypeError, ValueError) as exc:
            raise BadParameter(f"setting: {exc}") from None

    @classmethod
    def from_arena(cls, config: Mapping[str, Any], figure: str, setting: str) -> "Setting":
        """The setting ``setting`` (an id, e.g. ``geometric100_censored-K10-small``) of the
        arena's figure ``figure`` of ``config`` (``config.load``), with its horizon, checkpoints
        and seed ids: ``run`` then gives the numbers the workflow's jobs give."""
        fig = config["papers"][PAPER].get(figure)
        if fig is None:
            raise BadParameter(
                f"figure {figure!r} is not one of the arena's: {', '.join(config['papers'][PAPER])}"
            )
        every = grid.settings(fig)
        if setting not in every:
            raise BadParameter(f"setting {setting!r} is not one of {', '.join(every)}")
        cfg = dict(every[setting])
        keys = ("n_arms", "base_mean", "gap", "delay", "window", "censored", "alpha_tilde")
        missing = [k for k in keys if k not in cfg and k != "alpha_tilde"]
        if missing:
            raise MissingParameter(
                f"papers.{PAPER}.{figure}.settings.{setting}: no {', '.join(missing)}"
            )
        extra = {k: cfg[k] for k in ("zero_delay", "switch", "adapt") if k in cfg}
        return cls(
            int(cfg["n_arms"]),
            float(cfg["base_mean"]),
            float(cfg["gap"]),
            Law(cfg["delay"]),
            int(cfg["window"]),
            grid.horizon(fig, cfg),
            bool(cfg["censored"]),
            cfg.get("alpha_tilde"),
            int(fig["checkpoints"]),
            figure,
            seeds.seed_name(fig, setting),
            extra,
        )


@dataclass(frozen=True)
class Entrant:
    """An arena entrant by its id (``entrant``): its declaration (``arena.entrants.Entrant``)
    and ``run``."""

    declaration: declared.Entrant

    @property
    def id(self) -> str:
        return self.declaration.id

    @property
    def information(self) -> str:
        """Its information model, a key of ``INFORMATION``."""
        return self.declaration.information

    @property
    def horizon_tuned(self) -> bool:
        """Whether it is told T: its regret at t < T is not that of a run of horizon t."""
        return self.declaration.horizon_tuned

    def knows(self, setting: Setting) -> str:
        """What it is told of ``setting``, in words."""
        return self.declaration.knows(setting.problem())

    def run(
        self, setting: Setting, runs: int, seed: int = 0, reference: bool = False
    ) -> pd.DataFrame:
        """``run(setting, [self.id], runs, seed, reference)``."""
        return run(setting, [self.id], runs, seed, reference)


def ids() -> list[str]:
    """Every arena entrant's id, built in or plugged in (``$DELAYED_BANDITS_PAPERS``)."""
    return [a.id for a in arena.ALGORITHMS]


def entrant(id: str) -> Entrant:
    """The arena entrant ``id``; an unknown id is ``BadParameter`` listing the ids."""
    for a in arena.ALGORITHMS:
        if a.id == id:
            return Entrant(a)
    raise BadParameter(f"entrant {id!r} is not one of {', '.join(ids())}")


def check(setting: Setting, ids_: Sequence[str]) -> problem.Setting:
    """The problem of ``setting``, once every entrant of ``ids_`` is known to apply to it:
    ``NotApplicable`` with the entrant's reason where its model does not cover the setting
    (``Algorithm.applies``, ``precondition``: a kernel run there could read past its arrays),
    ``MissingParameter`` where it reads a key the setting left out (``TOLD_ONLY_SOME``)."""
    st = setting.problem()
    for id_ in ids_:
        a = entrant(id_).declaration
        reason = a.applies(st) or a.precondition(st)
        if reason:
            raise NotApplicable(f"entrant {id_!r} does not apply to this setting: {reason}")
        for key, readers in TOLD_ONLY_SOME.items():
            if id_ in readers and getattr(setting, key) is None:
                raise MissingParameter(
                    f"entrant {id_!r} reads {key}, which the setting leaves out: give "
                    f"Setting(..., {key}=...)"
                )
    return st


def run(
    setting: Setting,
    entrants: Sequence[str],
    runs: int,
    seed: int = 0,
    reference: bool = False,
) -> pd.DataFrame:
    """Replications 0..``runs`` - 1 of each entrant of ``entrants`` (ids) on ``setting``, every
    entrant on the same draw of each replication, from the root seed ``seed`` (an id given twice
    runs once): its compiled
    kernel, or its readable reference (``reference=True``; tens of times slower). The frame has
    the columns of a shard (``SHARD_COLUMNS``): the setting's ``name``, the entrant's id as
    ``algorithm``, the replication, the checkpoint t and the pseudo-regret there."""
    if isinstance(entrants, str):
        entrants = [entrants]
    if not isinstance(runs, (int, np.integer)) or isinstance(runs, bool) or runs < 1:
        raise BadParameter(f"runs: an integer >= 1, got {runs!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise BadParameter(f"seed: an integer >= 0, got {seed!r}")
    st = check(setting, entrants)
    cp = checkpoint_grid(setting.horizon, setting.checkpoints)
    chosen = [entrant(i).declaration for i in dict.fromkeys(entrants)]
    frames: dict[str, list[pd.DataFrame]] = {a.id: [] for a in chosen}
    for r in range(runs):
        env_seed, policy_seed = seeds.replication_seeds(
            int(seed), PAPER, setting.figure, setting.name, r
        )
        draw = problem.draw_environment(env_seed, setting.horizon, st)
        for a in chosen:
            runner = a.reference if reference else a.kernel
            regret, _, _ = runner(st, draw, cp, seeds.as_int(policy_seed))
            frames[a.id].append(
                pd.DataFrame(
                    {
                        "setting": setting.name,
                        "algorithm": a.id,
                        "replication": np.full(len(cp), r, dtype=np.int64),
                        "t": cp,
                        "regret": np.asarray(regret, dtype=float),
                    }
                )
            )
    # entrant by entrant, each in replication order: a simulation job's order
    return pd.concat([f for a in chosen for f in frames[a.id]], ignore_index=True)[SHARD_COLUMNS]


def _quantile(confidence: float, n: np.ndarray | int) -> np.ndarray:
    """Student's t quantile of a two-sided ``confidence`` interval of a mean of n runs (the
    normal one's where n < 2, whose SE is 0 anyway)."""
    if not 0 < confidence < 1:
        raise BadParameter(f"confidence: in (0, 1), got {confidence!r}")
    df = np.maximum(np.asarray(n) - 1, 1)
    return stats.t.ppf(0.5 + confidence / 2, df)


def summary(frame: pd.DataFrame, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per (setting, algorithm, t): ``aggregate.summarise``'s mean, SE (sd / sqrt(n)), 5 % and
    95 % quantiles of the runs and n_runs, and ``lo``, ``hi``: the ``confidence`` interval of the
    mean, mean ± t_(n-1) SE."""
    out = aggregate.summarise(frame)
    half = _quantile(confidence, out.n_runs.to_numpy()) * out.se.to_numpy()
    return out.assign(lo=out["mean"] - half, hi=out["mean"] + half)


@dataclass(frozen=True)
class Ratio:
    """mean regret of ``numerator`` over ``denominator``'s at round ``t``, over the same runs,
    with its delta-method SE (``claims.ratio``) and its ``confidence`` interval, ratio ± t_(n-1)
    SE."""

    numerator: str
    denominator: str
    t: int
    ratio: float
    se: float
    lo: float
    hi: float
    n_runs: int

    def __str__(self) -> str:
        return (
            f"{self.numerator} / {self.denominator} at t = {self.t:,}: {self.ratio:.3f} "
            f"[{self.lo:.3f}, {self.hi:.3f}] ({self.n_runs} paired runs)"
        )


def ratio(
    frame: pd.DataFrame,
    numerator: str,
    denominator: str,
    t: int | None = None,
    confidence: float = CONFIDENCE,
) -> Ratio:
    """The paired ratio of two entrants of one ``run`` (one setting) at the last checkpoint <= t
    (at T when None)."""
    settings = frame.setting.unique()
    if len(settings) != 1:
        raise BadParameter(f"frame: the runs of one setting, got {', '.join(settings)}")
    for name in (numerator, denominator):
        if name not in set(frame.algorithm):
            raise BadParameter(
                f"{name!r} has no runs in the frame; it has {', '.join(frame.algorithm.unique())}"
            )
    x = claims.per_run(frame, settings[0], numerator, t)
    y = claims.per_run(frame, settings[0], denominator, t)
    if not x.index.equals(y.index):
        raise BadParameter(f"{numerator} and {denominator} are not paired: other replications")
    if len(x) < 2:
        raise BadParameter("a paired ratio needs at least 2 runs")
    at = int(frame[frame.t <= (t if t is not None else frame.t.max())].t.max())
    paired = claims.ratio(x, y)
    half = float(_quantile(confidence, paired.n)) * paired.se
    return Ratio(
        numerator,
        denominator,
        at,
        paired.mean,
        paired.se,
        paired.mean - half,
        paired.mean + half,
        paired.n,
    )
