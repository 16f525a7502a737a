"""The CPU cost of `make arena-full`, estimated from per-entrant, per-replication times of the
compiled kernels at the full scale (a tool to rerun before a citable run, not a test; the run's
own cost is read from its jobs' logs afterwards, docs/arena.md).

Measure (one process; CPU time of this process, `time.process_time`, so that a busy machine
inflates it less than wall time):

    python -m delayed_bandits.cost measure --reps 1 --out timings.csv
    python -m delayed_bandits.cost measure --reps 1 --only d-ucb d-klucb d-ts --out new.csv

Each (figure, regime, K, base rate, window) is timed on its first setting of the config (the
gaps of one base rate cost about the same), every entrant that applies, replication 0..reps-1,
and the environment's draw apart (the row ``(draw)``). Then

    python -m delayed_bandits.cost estimate timings.csv [new.csv ...] [--digest docs/data/arena-full.json]

scales each measured time by the settings it stands for and by the runs each design gives an
entrant (a later file's rows replace an earlier one's), and prints the CPU-hours of

- (a) every entrant ``replications`` runs of every setting (one stage: the design before
  screening);
- (b) the config's design, screen then contend (docs/decisions/arena.md#screening): each
  figure's ``statistics.screen_runs`` runs of every entrant (``curves.stages``: all its runs
  where the figure has one stage), then the rest only for the contenders. An entrant is taken to
  stop where the committed digest's median ratio to the best at T exceeds ``--stop-ratio`` at
  every base rate, unless a named claim compares it (``claims.KEPT``), which never stops.

Only the simulation is counted: the analysis jobs were about 6 % of the citable run's CPU. The
timings record the simulating code they timed (``software.simulation_sha256``); the estimate
refuses timings of other code.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from delayed_bandits import algorithms, grid, provenance, seeds, software
from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits.arena.claims import KEPT
from delayed_bandits.arena.ties import statistics
from delayed_bandits.errors import ConfigError
from delayed_bandits.simulate import _Curves
from delayed_bandits.tables import curve_key

CONFIGS = ("config/config.yaml", "config/arena-full.yaml")
COLUMNS = ("figure", "regime", "n_arms", "base_mean", "window", "algorithm", "simulation_sha256")
PAPER = "arena"
DRAW = "(draw)"  # the row of the environment's draw, made once per setting and replication


def _key(fig: dict, figure: str, setting: str) -> tuple:
    """What a setting's cost depends on: its figure, regime, K, base rate and window."""
    st = grid.settings(fig)[setting]
    return (figure, grid.point(fig, setting).listed, st["n_arms"], st["base_mean"], st["window"])


def _config() -> dict:
    return cfg.load(list(CONFIGS), PAPER)


def measure(
    reps: int,
    only: list[str] | None,
    out: Path,
    figures: list[str] | None = None,
    regimes: list[str] | None = None,
    skip: list[Path] | None = None,
) -> None:
    """Time every entrant (or those of ``only``) on each key's first setting of the figures
    (``figures``) and regimes (``regimes``) given, all by default, but the keys already in the
    ``skip`` files; each key's rows are appended to ``out`` as soon as they are measured."""
    config = _config()
    plugin = algorithms.experiment(PAPER)
    simulation = software.simulation_sha256()
    done = {key[:-1] for key in _read(skip or [])}
    fresh = not out.exists()
    f = out.open("a", newline="")
    w = csv.writer(f)
    if fresh:
        w.writerow([*COLUMNS, "cpu_s"])
    for figure, fig in config["papers"][PAPER].items():
        if figures and figure not in figures:
            continue
        names = [n for n in fig["algorithms"] if only is None or n in only]
        seen: set[tuple] = set()
        for setting in grid.settings(fig):
            key = _key(fig, figure, setting)
            if key in seen or key in done or not names or (regimes and key[1] not in regimes):
                continue
            seen.add(key)
            specs = provenance.curve_specs(config, PAPER, figure, [(setting, n) for n in names])
            job = _Curves.of(
                PAPER, figure, setting, {n: specs[curve_key(setting, n)] for n in names}
            )
            times: dict[str, float] = defaultdict(float)
            for r in range(reps):
                env_seed, policy_seed = seeds.replication_seeds(
                    job.seed, PAPER, figure, job.seed_setting, r
                )
                for st, members in job.groups:
                    start = time.process_time()
                    env = plugin.draw_environment(env_seed, job.horizon, st)
                    times[DRAW] += time.process_time() - start
                    for name, algo in members:
                        algo.kernel(st, env, job.checkpoints[:1], 0)  # compile or load the cache
                        start = time.process_time()
                        algo.kernel(st, env, job.checkpoints, seeds.as_int(policy_seed))
                        times[name] += time.process_time() - start
            for name, total in times.items():
                w.writerow([*key, name, simulation, total / reps])
                print(*key, name, f"{total / reps:.3f}", file=sys.stderr, flush=True)
            f.flush()
    f.close()


def _read(paths: list[Path]) -> dict[tuple, float]:
    """cpu_s by (key..., algorithm); a later file's rows replace an earlier one's. Times of other
    simulating code than this one (``software.simulation_sha256``) are refused: a kernel that
    changed costs what it costs now, not what it cost then."""
    out: dict[tuple, float] = {}
    simulation = software.simulation_sha256()
    for path in paths:
        with path.open() as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != [*COLUMNS, "cpu_s"]:
                raise ConfigError(
                    f"{path}: columns {reader.fieldnames}, not {[*COLUMNS, 'cpu_s']} (timings "
                    "that `measure` wrote before it recorded the simulating code): measure again"
                )
            for row in reader:
                if row["simulation_sha256"] != simulation:
                    raise ConfigError(
                        f"{path}: timed on simulating code {row['simulation_sha256'][:12]}, "
                        f"this code is {simulation[:12]}: measure again"
                    )
                key = (
                    row["figure"],
                    row["regime"],
                    int(row["n_arms"]),
                    float(row["base_mean"]),
                    int(row["window"]),
                    row["algorithm"],
                )
                out[key] = float(row["cpu_s"])
    return out


def stopped(digest: Path, ratio: float) -> set[str]:
    """The entrants whose median ratio to the best at the digest's horizon exceeds ``ratio`` at
    every base rate and that no named claim compares (``claims.KEPT``): the screen's assumed
    outcome."""
    d = json.loads(digest.read_text())
    by: dict[str, list[float]] = defaultdict(list)
    for w in d["wins"]:
        if w["horizon"] == d["horizon"]:
            by[w["algorithm"]].append(w["median_ratio"])
    return {
        a
        for a, r in by.items()
        if len(r) == len(d["base_means"]) and min(r) > ratio and a not in KEPT
    }


def estimate(paths: list[Path], digest: Path, ratio: float) -> dict[str, dict[str, float]]:
    """CPU-hours of the simulation under designs (a) and (b) (module docstring), by figure and
    by entrant: {"a": {...}, "b": {...}}, each with a "total". The screen stops entrants in the
    figures that screen (``statistics.screen_runs``) only."""
    config = _config()
    timed = _read(paths)
    stop = stopped(digest, ratio)
    cost: dict[str, dict[str, float]] = {"a": defaultdict(float), "b": defaultdict(float)}
    missing = set()
    for figure, fig in config["papers"][PAPER].items():
        screen, runs = cv.stages(statistics(fig), int(fig["replications"]))
        for setting in grid.settings(fig):
            key = _key(fig, figure, setting)
            if (*key, DRAW) not in timed:
                missing.add(key)
                continue
            ran = [n for n in fig["algorithms"] if (*key, n) in timed]
            for name in [*ran, DRAW]:
                per_run = timed[(*key, name)]
                screened = per_run * (screen if name in stop else runs)
                cost["a"][name] += per_run * runs
                cost["b"][name] += screened
                cost["a"][f"figure {figure}"] += per_run * runs
                cost["b"][f"figure {figure}"] += screened
    if missing:
        raise SystemExit(f"no timing for {len(missing)} keys, e.g. {sorted(missing)[:3]}")
    for design in cost.values():
        design["total"] = sum(v for k, v in design.items() if not k.startswith("figure "))
    return {d: {k: v / 3600 for k, v in c.items()} for d, c in cost.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--reps", type=int, default=1)
    m.add_argument("--only", nargs="*")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--figures", nargs="*")
    m.add_argument("--regimes", nargs="*")
    m.add_argument("--skip", type=Path, nargs="*")
    e = sub.add_parser("estimate")
    e.add_argument("timings", type=Path, nargs="+")
    e.add_argument("--digest", type=Path, default=Path("docs/data/arena-full.json"))
    e.add_argument("--stop-ratio", type=float, default=1.5)
    args = parser.parse_args()
    try:
        if args.command == "measure":
            measure(args.reps, args.only, args.out, args.figures, args.regimes, args.skip)
            return
        result = estimate(args.timings, args.digest, args.stop_ratio)
    except ConfigError as exc:
        raise SystemExit(f"error: {exc}") from None
    print(f"stopped after the screen: {sorted(stopped(args.digest, args.stop_ratio))}")
    keys = sorted(set(result["a"]) | set(result["b"]), key=lambda k: -result["a"].get(k, 0.0))
    print(f"{'':28s} {'(a) CPU-h':>10s} {'(b) CPU-h':>10s}")
    for k in keys:
        print(f"{k:28s} {result['a'].get(k, 0.0):10.3f} {result['b'].get(k, 0.0):10.3f}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
