"""Replay one run of the arena: rebuild a replication's draw as the simulation does, play the
entrant's plain-Python reference and its compiled kernel on it, check they take the same actions,
and say what the learner saw, round by round.

The trace is derived from the actions and the realisation, in the conversions model (what
Thompson sampling ignoring delays observes, ``policies.IgnoresDelays``): a pull of arm k at round
s converts iff uniforms[s-1, k] < mu_k, and its conversion is seen from the start of round
s + D + 1 if that round is <= T and, under censoring, D <= m. For an entrant of another
information model (``entrants.INFORMATION``) it is the same realisation seen through that model,
not what the entrant itself observed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from delayed_bandits import curves as cv
from delayed_bandits import grid, seeds
from delayed_bandits.arena.entrants import CONVERSIONS, Entrant
from delayed_bandits.arena.observe import conversions
from delayed_bandits.arena.problem import Draw, draw_environment, pseudo_regret
from delayed_bandits.environment import checkpoint_grid
from delayed_bandits.errors import ConfigError

PAPER = "arena"

# Per arm k, the state at the start of round t, before its pull (``trace``).
COUNTS = ("pulls", "converted", "seen", "in_flight", "censored")
GRID_POINTS = 200_001  # of [0, 1] for ``play_probabilities``: 5e-6 apart


class Mismatch(Exception):
    """The kernel and the reference of an entrant took different actions on one replication."""


@dataclass(frozen=True)
class Case:
    """One run to replay: the entrant, the setting it runs on, the replication's draw, its policy
    seed and the figure's checkpoints."""

    setting_id: str
    replication: int
    entrant: Entrant
    setting: Any
    draw: Draw
    policy_seed: int
    checkpoints: np.ndarray


@dataclass(frozen=True)
class Run:
    """A replayed run: its ``Case``, the actions (reference = kernel), the regret the runners
    report at the checkpoints, and the round-by-round ``trace``."""

    case: Case
    actions: np.ndarray
    regret: np.ndarray
    trace: pd.DataFrame


def rebuild(
    config: Mapping[str, Any], figure: str, setting: str, algorithm: str, replication: int
) -> Case:
    """Replication ``replication`` of ``algorithm`` on ``setting`` of the arena's ``figure``, drawn
    as ``simulate.run_job`` draws it: the replication's seeds (``seeds.setting_seeds``),
    the entrant's setting (``curves.curve``), the draw (``problem.draw_environment``). Bad
    arguments raise ``ConfigError`` naming the argument and what is allowed."""
    fig = cv.figure(config, PAPER, figure)
    cv.check_curves(PAPER, figure, fig, [setting], [algorithm])
    n = int(fig["replications"])
    if not 0 <= replication < n:
        raise ConfigError(
            f"--replication {replication}: need 0 <= R < {n} (papers.{PAPER}.{figure}.replications)"
        )
    setting_cfg = grid.settings(fig)[setting]
    entrant, st = cv.curve(PAPER, fig, setting_cfg, algorithm, f"{PAPER}.{figure}.{setting}")
    reason = entrant.applies(st)
    if reason:
        raise ConfigError(
            f"--algorithm {algorithm!r} does not apply to --setting {setting!r}, so it was not "
            f"run there: {reason}"
        )
    return drawn(config, figure, setting, entrant, st, replication, grid.horizon(fig, setting_cfg))


def drawn(
    config: Mapping[str, Any],
    figure: str,
    setting: str,
    entrant: Entrant,
    st: Any,
    replication: int,
    horizon: int,
) -> Case:
    """The ``Case`` of ``entrant`` on the built setting ``st`` (the figure's ``setting``) at
    replication ``replication``, over ``horizon`` rounds: the replication's seeds
    (``seeds.setting_seeds``) and draw (``problem.draw_environment``), as ``simulate.run_job``
    makes them, and the figure's checkpoints."""
    fig = config["papers"][PAPER][figure]
    env_seed, policy_seed = seeds.setting_seeds(config, PAPER, figure, setting, replication)
    return Case(
        setting,
        replication,
        entrant,
        st,
        draw_environment(env_seed, horizon, st),
        seeds.as_int(policy_seed),
        checkpoint_grid(horizon, int(fig["checkpoints"])),
    )


def compare(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """(regret at the checkpoints, actions) of the entrant's kernel on the case, after its
    reference: ``Mismatch`` names the first round where their actions differ (the arena's regret
    is computed from the actions, so it cannot differ where they agree)."""
    args = (case.setting, case.draw, case.checkpoints, case.policy_seed)
    _, ref_actions, _ = case.entrant.reference(*args)
    regret, actions, _ = case.entrant.kernel(*args)
    differ = np.flatnonzero(np.asarray(ref_actions) != np.asarray(actions))
    if differ.size:
        t = int(differ[0]) + 1
        raise Mismatch(
            f"entrant {case.entrant.id!r}, {case.setting_id}, replication {case.replication}: "
            f"the kernel played arm {actions[t - 1]} at round {t}, the reference arm "
            f"{ref_actions[t - 1]} ({differ.size} rounds differ)"
        )
    return np.asarray(regret), np.asarray(actions)


def play(case: Case) -> Run:
    """Run the entrant's reference and kernel on the case (``compare``), and trace the run."""
    regret, actions = compare(case)
    return Run(case, actions, regret, trace(case.draw, actions))


def replay(
    config: Mapping[str, Any], figure: str, setting: str, algorithm: str, replication: int
) -> Run:
    """``play(rebuild(...))``: one run of the arena, replayed and checked."""
    return play(rebuild(config, figure, setting, algorithm, replication))


def _before(mask: np.ndarray) -> np.ndarray:
    """How many of rounds 1..t-1 have ``mask``, for t = 1..T."""
    counts = np.cumsum(mask, dtype=np.int64)
    return np.concatenate(([0], counts[:-1]))


def trace(draw: Draw, actions: np.ndarray) -> pd.DataFrame:
    """Round by round (t = 1..T): the arm played, the pseudo-regret after the round, and per arm k
    the state at the start of round t, before its pull: ``pulls_k`` (N), ``converted_k`` (pulls
    that converted in the realisation), ``seen_k`` (S, conversions that have arrived),
    ``in_flight_k`` (converted, will be seen but not yet, or would arrive after T),
    ``censored_k`` (converted with D > m under censoring: never seen) and ``posterior_k``, the
    Beta(1, 1) posterior mean (1 + S) / (2 + N) of Thompson sampling ignoring delays.
    converted = seen + in_flight + censored."""
    st, env = draw.setting, draw.realisation
    horizon = env.uniforms.shape[0]
    actions = np.asarray(actions, dtype=np.int64)
    rounds = np.arange(1, horizon + 1)
    converted = env.uniforms[rounds - 1, actions] < st.mu[actions]
    seen_ever = conversions(st, env).uniforms[rounds - 1, actions] < st.mu[actions]
    arrival = rounds + env.delays[rounds - 1, actions] + 1
    columns: dict[str, np.ndarray] = {
        "t": rounds,
        "arm": actions,
        "regret": pseudo_regret(st, actions, rounds),
    }
    for k in range(st.n_arms):
        pulled = actions == k
        arrived = pulled & seen_ever & (arrival <= horizon)
        seen = np.cumsum(np.bincount(arrival[arrived], minlength=horizon + 1))[1:]
        pulls = _before(pulled)
        columns[f"pulls_{k}"] = pulls
        columns[f"converted_{k}"] = _before(pulled & converted)
        columns[f"seen_{k}"] = seen
        columns[f"in_flight_{k}"] = _before(pulled & seen_ever) - seen
        columns[f"censored_{k}"] = _before(pulled & converted & ~seen_ever)
        columns[f"posterior_{k}"] = (1.0 + seen) / (2.0 + pulls)
    return pd.DataFrame(columns)


def play_probabilities(seen: np.ndarray, pulls: np.ndarray) -> np.ndarray:
    """P(arm k's draw is the largest) when every arm k draws from Beta(1 + S_k, 1 + N_k - S_k):
    the chance that Thompson sampling ignoring delays plays k in that state,
    integral of f_k(x) prod_{j != k} F_j(x) dx, by the trapezoid rule on a grid of [0, 1]."""
    x = np.linspace(0.0, 1.0, GRID_POINTS)
    seen = np.asarray(seen, dtype=float)[:, None]
    a, b = 1.0 + seen, 1.0 + np.asarray(pulls, dtype=float)[:, None] - seen
    pdf, cdf = stats.beta.pdf(x, a, b), stats.beta.cdf(x, a, b)
    out = np.empty(len(a))
    for k in range(len(a)):
        others = np.prod(np.delete(cdf, k, axis=0), axis=0)
        out[k] = np.trapezoid(pdf[k] * others, x)
    return out


def _longest(mask: np.ndarray) -> tuple[int, int]:
    """(first round, length) of the longest stretch of consecutive rounds with ``mask`` (the
    earliest of equal ones); (0, 0) when there is none."""
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if starts.size == 0:
        return 0, 0
    i = int(np.argmax(ends - starts))
    return int(starts[i]) + 1, int(ends[i] - starts[i])


@dataclass(frozen=True)
class Phases:
    """What shaped a run's regret: the longest stretch of rounds in which the best arm's posterior
    mean was below another arm's (``misranked``), the longest run of consecutive pulls of
    suboptimal arms (``stuck``), each as (first round, length), and the rounds worth a look."""

    best: int
    suboptimal_pulls: int
    last_suboptimal: int  # the last round a suboptimal arm was played (0: never)
    misranked: tuple[int, int]
    stuck: tuple[int, int]
    regret_90: int  # the first round by which 90 % of the regret at T was incurred
    milestones: dict[int, list[str]]  # round -> why it is shown


def phases(run: Run, at: Sequence[int] = ()) -> Phases:
    """The ``Phases`` of a replayed run; the rounds of ``at`` are shown too."""
    st, tr = run.case.draw.setting, run.trace
    best, horizon = st.best, len(tr)
    posterior = tr[[f"posterior_{k}" for k in range(st.n_arms)]].to_numpy()
    rival = np.delete(posterior, best, axis=1).max(axis=1)
    misranked = _longest(posterior[:, best] < rival)
    suboptimal = run.actions != best
    stuck = _longest(suboptimal)
    regret = tr["regret"].to_numpy()
    regret_90 = int(np.searchsorted(regret, 0.9 * regret[-1])) + 1 if regret[-1] > 0 else 0
    last = int(np.flatnonzero(suboptimal)[-1]) + 1 if suboptimal.any() else 0
    milestones: dict[int, list[str]] = {}
    for t, why in [
        *((10**p, f"10^{p}") for p in range(1, int(np.log10(horizon)) + 1)),
        (misranked[0], "misranked from"),
        (misranked[0] + misranked[1], "first round ranked right again"),
        (stuck[0], "stuck from"),
        (regret_90, "90 % of the regret incurred"),
        (last, "last suboptimal pull"),
        (horizon, "T"),
        *((t, "asked") for t in at),
    ]:
        if 1 <= t <= horizon:
            milestones.setdefault(t, []).append(why)
    return Phases(
        best,
        int(suboptimal.sum()),
        last,
        misranked,
        stuck,
        regret_90,
        dict(sorted(milestones.items())),
    )


def _stretch(name: str, span: tuple[int, int], regret: np.ndarray, suboptimal: np.ndarray) -> str:
    first, length = span
    if length == 0:
        return f"{name}: never"
    last = first + length - 1
    before = regret[first - 2] if first > 1 else 0.0
    return (
        f"{name}: rounds {first}-{last} ({length} rounds), "
        f"{int(suboptimal[first - 1 : last].sum())} suboptimal pulls, "
        f"regret {regret[last - 1] - before:.2f} of {regret[-1]:.2f}"
    )


def describe(run: Run, figure: str, at: Sequence[int] = ()) -> str:
    """The summary ``delayed-bandits replay`` prints: the run, its check, its phases, and the state
    of every arm at the rounds worth a look and those of ``at`` (each in 1..T, else
    ``ConfigError`` naming ``--at``)."""
    case, tr = run.case, run.trace
    st = case.draw.setting
    outside = [t for t in at if not 1 <= t <= len(tr)]
    if outside:
        raise ConfigError(f"--at {outside[0]}: a round is in 1..T = {len(tr)}")
    ph = phases(run, at)
    regret = tr["regret"].to_numpy()
    suboptimal = run.actions != ph.best
    mus = ", ".join(f"{m:g}" for m in st.mu)
    lines = [
        f"{PAPER} {figure} {case.setting_id}, {case.entrant.id}, replication {case.replication}: "
        f"K = {st.n_arms}, mu = ({mus}), best arm {ph.best}, T = {len(tr)}"
        + (f", censored at m = {st.window}" if st.censored else ", uncensored")
        + (
            f"; the means switch after round {st.switch.first_rounds(len(tr))} (mu: each arm's "
            "mean over the horizon)"
            if st.switch is not None
            else ""
        ),
        f"reference and kernel: the same action in all {len(tr)} rounds; regret at T "
        f"{run.regret[-1]:.2f} (the trace's {regret[-1]:.2f}); policy seed {case.policy_seed}",
        f"suboptimal pulls: {ph.suboptimal_pulls} ({ph.suboptimal_pulls / len(tr):.2%}), "
        f"the last at round {ph.last_suboptimal}; 90 % of the regret incurred by round "
        f"{ph.regret_90}",
        _stretch(
            "best arm's posterior mean below another arm's, longest stretch",
            ph.misranked,
            regret,
            suboptimal,
        ),
        _stretch("longest run of consecutive suboptimal pulls", ph.stuck, regret, suboptimal),
    ]
    if case.entrant.information != CONVERSIONS:
        lines.append(
            f"note: {case.entrant.id} observes {case.entrant.information}; the state below is "
            "the realisation seen through the conversions model"
        )
    lines.append(
        "state at the start of round t, per arm: N pulls, C converted (C/N), S seen, in flight, "
        "censored; posterior mean (1+S)/(2+N); P(TS plays it) = P(its Beta(1+S, 1+N-S) draw "
        "is the largest)"
    )
    for t, why in ph.milestones.items():
        row = tr.iloc[t - 1]
        counts = {c: np.array([row[f"{c}_{k}"] for k in range(st.n_arms)]) for c in COUNTS}
        chance = play_probabilities(counts["seen"], counts["pulls"])
        lines.append(f"t = {t} ({'; '.join(why)}), regret so far {regret[t - 1]:.2f}:")
        for k in range(st.n_arms):
            n, c = int(counts["pulls"][k]), int(counts["converted"][k])
            rate = f"{c / n:.3f}" if n else "-"
            lines.append(
                f"  arm {k}{' (best)' if k == ph.best else ''}: N {n}, C {c} ({rate}), "
                f"S {int(counts['seen'][k])}, in flight {int(counts['in_flight'][k])}, "
                f"censored {int(counts['censored'][k])}; posterior mean "
                f"{row[f'posterior_{k}']:.3f}, P(TS plays it) {chance[k]:.3g}"
            )
    return "\n".join(lines)
