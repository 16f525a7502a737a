"""The ``delayed-bandits`` command: what the workflow's rules call, one readable command per job.

Bad arguments or config values exit with code 2 and a message naming what is wrong and what is
allowed; outputs are written atomically, so a failed command leaves no file behind."""

from __future__ import annotations

import argparse
import errno
import resource
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from delayed_bandits import algorithms, kinds, quoting
from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits import papers as registry
from delayed_bandits.commands import (
    config_args,
    figure_args,
    json_object,
    load_figure,
    merged_args,
    positive,
    shards_to_table,
)
from delayed_bandits.errors import ConfigError, OutputWriteError, TimeLimitError, VerifyFailed
from delayed_bandits.outputs import atomic_path, check_target, write_parquet


def _reps(text: str) -> tuple[int, int]:
    try:
        first, last = (int(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST, e.g. 0-49, got {text!r}") from None
    if first < 0 or last < first:
        raise argparse.ArgumentTypeError(f"need 0 <= FIRST <= LAST, got {text!r}")
    return first, last


_TABLE_HELP = {
    "summary": "summary table; required unless the figure is "
    "drawn from the configuration alone (kind delay_density)",
    "events": "event side tables of the shards",
}


def _table_args(p: argparse.ArgumentParser) -> None:
    """The claims and plot commands' tables, an option each (``kinds.TABLE_OPTIONS``): one file,
    or one per shard for --events."""
    for name in kinds.TABLE_OPTIONS:
        p.add_argument(
            f"--{name}",
            type=Path,
            nargs="+" if name == "events" else None,
            help=_TABLE_HELP.get(name, f"{name} table, for figures that have one"),
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="delayed-bandits", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("validate", help="check config files against the schema")
    config_args(p)
    p.set_defaults(handler=_validate)

    p = sub.add_parser(
        "schema", help="print the config schema, with what the paper registry fills in (JSON)"
    )
    p.set_defaults(handler=_schema)

    p = sub.add_parser("simulate", help="run a shard of replications with the compiled kernels")
    p.set_defaults(handler=_simulate)
    figure_args(p)
    p.add_argument("--setting", required=True, nargs="+", help="one or more settings of the figure")
    p.add_argument(
        "--algorithm",
        required=True,
        nargs="+",
        help="one or more algorithms of the figure, run on the same realisations "
        "(one that does not apply to a setting is skipped there)",
    )
    p.add_argument("--reps", required=True, type=_reps, help="replications FIRST-LAST, inclusive")
    p.add_argument("--out", required=True, type=Path, help="parquet file to write")
    p.add_argument(
        "--events",
        type=Path,
        help="parquet file for the algorithms' side tables "
        "(e.g. ODAAF's phase ends and eliminations)",
    )

    p = sub.add_parser(
        "aggregate",
        help="summarise shards: mean, se, quantiles per checkpoint, with a provenance sidecar",
    )
    p.set_defaults(handler=_aggregate)
    figure_args(p)
    p.add_argument(
        "--out",
        required=True,
        type=Path,
        help="summary table to write (CSV), with its provenance record beside it "
        "(<out stem>.provenance.json, where its readers find it)",
    )
    p.add_argument(
        "--provenance-html",
        type=Path,
        help="the sidecar also as an HTML page, which the Snakemake report shows inline",
    )
    p.add_argument("shards", nargs="+", type=Path)

    p = sub.add_parser(
        "ratios", help="ratio of mean regrets to the figure's baseline, bootstrap band"
    )
    p.set_defaults(handler=_ratios)
    figure_args(p)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("shards", nargs="+", type=Path)

    p = sub.add_parser(
        "claims", help="check a figure's claims against its summary, tables and runs"
    )
    p.set_defaults(handler=_claims)
    figure_args(p)
    _table_args(p)
    p.add_argument(
        "--shards",
        type=Path,
        nargs="+",
        help="the figure's shards, every run (its claims' table runs); required for a simulated "
        "figure whose kind reads them (kindtype.Kind.reads_runs)",
    )
    p.add_argument("--out", required=True, type=Path)
    p.add_argument(
        "--html",
        type=Path,
        help="the claims also as an HTML page, which the Snakemake report shows beside the figure",
    )

    p = sub.add_parser("gather-claims", help="all claims files as one markdown report")
    p.set_defaults(handler=_gather_claims)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--scale", help="the run's scale (config key scale), stated at the top")
    p.add_argument(
        "--merged",
        type=Path,
        help="the config the workflow merged (.snakemake/delayed-bandits/config-<hash>.json): "
        "the scale then names the figures whose only keeps a subset of their settings",
    )
    p.add_argument("claims", nargs="+", type=Path)

    p = sub.add_parser("plot", help="render a figure from its summary")
    p.set_defaults(handler=_plot)
    figure_args(p)
    _table_args(p)
    p.add_argument("--out", required=True, type=Path, nargs="+", help=".pdf and/or .png paths")
    p.add_argument(
        "--kind",
        help="draw the figure's tables as this kind of figure (default: the "
        "figure's own kind), e.g. arena_curves for the arena's regret",
    )
    p.add_argument(
        "--png-pages",
        type=Path,
        help="a folder to write every page of the figure into as a PNG of its own (page1.png, "
        "...): a document of several pages (the arena's curves) has its first alone in --out's PNG",
    )

    p = sub.add_parser("render", help="execute a notebook on the results and write it as HTML")
    p.set_defaults(handler=_render)
    p.add_argument(
        "--notebook",
        required=True,
        type=Path,
        help="notebook to run, e.g. notebooks/arena.ipynb (it runs from its own folder)",
    )
    p.add_argument(
        "--results",
        required=True,
        type=Path,
        help="results directory the notebook reads (as $DELAYED_BANDITS_RESULTS)",
    )
    p.add_argument("--out", required=True, type=Path, help="HTML page to write")

    p = sub.add_parser(
        "verify",
        help="check every result file of a run against its recorded checksum "
        "(shards: their content's, summaries: their provenance sidecar's, every file: the "
        "run's checksums.sha256 when it has one)",
    )
    p.set_defaults(handler=_verify)
    p.add_argument(
        "run",
        type=Path,
        help="the run's directory: . at the paper scale, <scale>/ at another (e.g. smoke)",
    )
    p.add_argument(
        "--record",
        action="store_true",
        help="first write the run's checksums.sha256 (every file under results/, figures/, "
        "reports/), e.g. before archiving it",
    )
    p.add_argument(
        "--config",
        "--configfile",  # Snakemake's name for the same files
        nargs="+",
        type=Path,
        help="the config files the run was made with, to check it holds every file they make "
        "(default: those its summaries' provenance records)",
    )
    p.add_argument(
        "--override", type=json_object, help="the run's config values on top of the files (JSON)"
    )

    p = sub.add_parser("bench", help="agent-steps per second of each kernel and its reference")
    p.set_defaults(handler=_bench)
    p.add_argument("--horizon", type=positive, default=2000)
    p.add_argument("--replications", type=positive, default=20, help="kernel runs per algorithm")
    p.add_argument("--reference-replications", type=positive, default=1)
    p.add_argument("--paper", action="append", help="only this paper's kernels (repeatable)")

    quoting.add_commands(sub)
    _add_package_commands(sub)
    return parser


def _add_package_commands(sub: Any) -> None:
    """The commands that registered packages bring of their own (the arena's ``leaderboard``,
    ``replay`` and ``quote``), added to the subparsers ``sub``. A package's ``cli`` module, which
    the registry finds (``Paper.commands``), has ``add_commands(sub)``, which adds its parsers,
    each with the function that runs it as its default ``handler``; and may have ``TABLES``, the
    readers of the tables its commands make, by name (of ``kinds.TABLES``), each called as
    ``reader(path, made_by)`` when a claims or plot command reads that table of one of its
    figures (``_read_table``)."""
    for paper in registry.registered().values():
        commands = paper.commands()
        if commands is not None:
            commands.add_commands(sub)


def _tables(args: argparse.Namespace, config: Mapping[str, Any], fig: Mapping[str, Any]) -> _Given:
    """The tables a claims or plot command was given, by name, each checked whole and made by
    this config (``tables``: a corrupt or truncated file, or one of another config, is an error
    naming it)."""
    import pandas as pd

    from delayed_bandits import provenance
    from delayed_bandits import tables as tb
    from delayed_bandits.aggregate import SUMMARY_COLUMNS

    out = _Given(f"{args.paper} {args.figure}")
    if args.summary is None and kinds.simulated(fig):
        raise ConfigError(
            f"--summary: required, {args.paper} {args.figure} is a simulated figure "
            f"(kind {kinds.of(fig)})"
        )
    if not any(getattr(args, name, None) for name in kinds.TABLE_OPTIONS):
        return out  # a figure drawn from the configuration alone: nothing was made by a run
    curves = cv.curves(args.paper, args.figure, fig)
    made_by = provenance.binding(config, args.paper, args.figure, curves)
    if args.summary is not None:
        out["summary"] = tb.read_summary(args.summary, SUMMARY_COLUMNS, made_by, curves)
    for name in kinds.TABLES:
        if getattr(args, name, None):
            out[name] = _read_table(args.paper, name, getattr(args, name), made_by)
    if getattr(args, "events", None):
        out["events"] = pd.concat(
            [tb.read_events(p, made_by) for p in args.events], ignore_index=True
        )
    return out


def _read_table(paper: str, name: str, path: Path, made_by: Any) -> Any:
    """The table ``name`` (of ``kinds.TABLES``) of a figure of ``paper``: ratios, which every
    paper's figure may have, or one of the paper's own commands (its ``TABLES``)."""
    from delayed_bandits import tables as tb
    from delayed_bandits.aggregate import RATIO_COLUMNS

    if name == "ratios":
        return tb.read_summary(path, RATIO_COLUMNS, made_by)
    readers = getattr(registry.get(paper).commands(), "TABLES", {})
    if name not in readers:
        raise ConfigError(f"--{name}: {paper} makes no {name} table; give none")
    return readers[name](path, made_by)


class _Given(dict):
    """The tables given to a claims or plot command, by name: asking for one that was not given
    is a ``ConfigError`` naming its option (Pike-Burke et al.'s Figure 3a reads --events)."""

    def __init__(self, figure: str) -> None:
        super().__init__()
        self.figure = figure

    def __missing__(self, name: str) -> Any:
        raise ConfigError(
            f"--{name}: required, {self.figure} reads its {name} table; give it (the workflow "
            "gives every table the figure has)"
        )


def _validate(args: argparse.Namespace) -> None:
    config = cfg.load(args.config, overrides=args.override)
    where = cfg.output_prefix(config) or "results/, figures/, ... at the top (the paper scale)"
    print(
        f"{' + '.join(map(str, args.config))}: valid; scale {config.get('scale', 'paper')}, outputs in {where}"
    )


def _schema(args: argparse.Namespace) -> None:
    import json

    print(json.dumps(cfg.schemas(), indent=1, ensure_ascii=False))


def _simulate(args: argparse.Namespace) -> None:
    from delayed_bandits import progress, provenance
    from delayed_bandits.simulate import TIME_LIMIT_S, run_job, time_limit

    config, _ = load_figure(args)
    # before the job, which may run for an hour: where it writes
    if args.events is not None and args.events.resolve() == args.out.resolve():
        raise ConfigError(f"--events {args.events} is the --out file; give another path")
    for target in (args.out, args.events):
        if target is not None:
            check_target(target)
    first, last = args.reps
    bar = progress.Progress(
        f"shard {args.paper}/{args.figure}/"
        f"{progress.curves(args.setting, args.algorithm)} "
        f"rep{first}-{last}",
        sys.stderr,
    )
    start = time.perf_counter()
    with time_limit(config.get("simulation_time_limit", TIME_LIMIT_S), f"job {bar.label}"):
        frame, events = run_job(
            config, args.paper, args.figure, args.setting, args.algorithm, first, last, bar
        )
    wall_time_s = time.perf_counter() - start
    metadata = provenance.shard_metadata(
        bar.done, bar.steps, wall_time_s, provenance.git_state(Path.cwd())
    )
    held = list(frame[["setting", "algorithm"]].drop_duplicates().itertuples(index=False))
    made_by = provenance.binding(config, args.paper, args.figure, held)
    with atomic_path(args.out) as tmp:
        if args.events:
            with atomic_path(args.events) as tmp_events:
                write_parquet(events, tmp_events, provenance.binding_metadata(made_by))
        provenance.write_shard(frame, tmp, metadata, made_by)
    bar.finish(progress.summary(bar.label, bar.done, bar.steps, wall_time_s))


def _aggregate(args: argparse.Namespace) -> None:
    import socket
    from datetime import datetime, timezone

    from delayed_bandits import provenance, tables
    from delayed_bandits.aggregate import read_shards, summarise

    start = time.perf_counter()
    config, _ = load_figure(args)
    made_by = provenance.binding(config, args.paper, args.figure)
    raw = read_shards(args.shards, made_by)
    made_from = (
        cfg.sources(args.config, args.override) if args.merged is None else merged_args(args)[1]
    )
    record = provenance.build(
        paper=args.paper,
        figure=args.figure,
        config=config,
        made_from=made_from,
        git=provenance.git_state(Path.cwd()),
        replications=provenance.replication_counts(raw),
        shards=[provenance.read_shard_metadata(p) for p in args.shards],
        aggregation_s=time.perf_counter() - start,
        created=datetime.now(timezone.utc),
        hostname=socket.gethostname(),
    )
    record = tables.write_table(summarise(raw), args.out, made_by, record)
    if args.provenance_html is not None:
        from delayed_bandits import pages

        with atomic_path(args.provenance_html) as tmp:
            tmp.write_text(
                pages.provenance_html(record, f"How {args.paper} {args.figure}'s summary was made")
            )


def _ratios(args: argparse.Namespace) -> None:
    from delayed_bandits import seeds
    from delayed_bandits.aggregate import ratio_of_means

    def ratios(raw: Any, config: Mapping[str, Any], fig: Mapping[str, Any]) -> Any:
        if "baseline" not in fig:
            raise ConfigError(
                f"config key 'papers.{args.paper}.{args.figure}.baseline': required "
                "for a ratios table (the algorithm in the denominator)"
            )
        seed = seeds.analysis_seed(config["seed"], args.paper, args.figure, "bootstrap")
        return ratio_of_means(raw, fig["baseline"], int(fig.get("bootstrap", 1000)), seed)

    shards_to_table(args, ratios)


def _claims(args: argparse.Namespace) -> None:
    from delayed_bandits import claims

    config, fig = load_figure(args)
    where = f"{args.paper} {args.figure} (kind {kinds.of(fig)})"
    if kinds.reads_runs(fig) and not args.shards:
        raise ConfigError(f"--shards: required, the claims of {where} read every run")
    if args.shards and not kinds.reads_runs(fig):
        raise ConfigError(f"--shards: the claims of {where} read no runs; give none")
    tables = _tables(args, config, fig)
    if args.shards:
        from delayed_bandits import provenance
        from delayed_bandits.aggregate import read_runs

        curves = cv.curves(args.paper, args.figure, fig)
        made_by = provenance.binding(config, args.paper, args.figure, curves)
        tables["runs"] = read_runs(args.shards, curves, made_by)
    found = claims.check(args.paper, args.figure, tables, fig)
    from delayed_bandits import provenance
    from delayed_bandits.tables import write_recorded

    # with its record, which `quote` checks before it passes a verdict on
    made_by = provenance.claims_binding(config, args.paper, args.figure)
    write_recorded(claims.to_json(found).encode(), args.out, made_by)
    if args.html is not None:
        with atomic_path(args.html) as tmp:
            own = not registry.get(args.paper).reproduces  # the arena's: no paper makes them
            tmp.write_text(claims.to_html(found, f"Claims of {args.paper} {args.figure}", own))


def _gather_claims(args: argparse.Namespace) -> None:
    from delayed_bandits import claims

    figures: dict[str, Mapping[str, Any]] = {}
    if args.merged is not None:
        config, _ = cfg.read_merged(args.merged)
        # results/<paper>/<figure>/claims.json
        where = [(path.parent.parent.name, path.parent.name) for path in args.claims]
        figures = {f"{p} {f}": cv.figure(config, p, f) for p, f in where}
    with atomic_path(args.out) as tmp:
        tmp.write_text(claims.to_markdown(args.claims, args.scale, figures))


def _plot(args: argparse.Namespace) -> None:
    from delayed_bandits import plotting

    bad = [str(p) for p in args.out if p.suffix not in (".pdf", ".png")]
    if bad:
        raise ConfigError(f"--out: {', '.join(bad)} must end in .pdf or .png")
    config, fig = load_figure(args)
    kind = args.kind or kinds.of(fig)
    plotting.view(args.paper, kind)  # an unknown kind fails before the tables are read
    plotting.plot_figure(
        _tables(args, config, fig), args.paper, args.figure, fig, args.out, kind, args.png_pages
    )


def _render(args: argparse.Namespace) -> None:
    from delayed_bandits import render

    cells = render.render(args.notebook, args.results, args.out)
    print(f"{args.notebook}: {cells} code cells run, written to {args.out}")


def _verify(args: argparse.Namespace) -> None:
    from delayed_bandits import verify

    if not any((args.run / top).is_dir() for top in verify.TOPS):
        raise ConfigError(
            f"{args.run}: no {', '.join(verify.TOPS)} directory; give a run's directory "
            "(. at the paper scale, <scale>/ at another, e.g. smoke)"
        )
    if args.record:
        print(f"{args.run / verify.MANIFEST}: {verify.record(args.run)} files recorded")
    config = cfg.load(args.config, overrides=args.override) if args.config else None
    checked, problems = verify.check(args.run, config)
    for line in problems:
        print(f"FAILED {line}")
    print(f"{args.run}: checked {'; '.join(checked)}: {len(problems)} problems")
    if problems:
        raise VerifyFailed(
            f"{len(problems)} problems: result files missing, not regular files, or not matching "
            "their record"
        )


def _bench(args: argparse.Namespace) -> None:
    from delayed_bandits import bench

    papers = tuple(args.paper) if args.paper else registry.ids()
    for paper in papers:
        algorithms.experiment(paper)  # an unknown paper fails here, naming the allowed ones
    rows = bench.run(args.horizon, args.replications, args.reference_replications, papers)
    print(f"agent-steps per second (replications x rounds / s), T = {args.horizon}")
    print(
        f"{'paper':<14}{'algorithm':<32}{'kernel':>14}{'reference':>14}{'speedup':>10}"
        f"{'x uniform':>11}  floor"
    )
    flagged = []
    for r in rows:
        vs_uniform = f"{r['vs_uniform']:>10,.1f}x" if "vs_uniform" in r else " " * 11
        floor = f"  {r['vs_floor']:.1f}x {r['floor']}'s" if "floor" in r else ""
        print(
            f"{r['paper']:<14}{r['algorithm']:<32}{r['kernel']:>14,.0f}"
            f"{r['reference']:>14,.0f}{r['speedup']:>9,.0f}x{vs_uniform}{floor}"
        )
        if "floor" in r and float(r["vs_floor"]) > bench.SLOWER_THAN_FLOOR:
            flagged.append(str(r["algorithm"]))
    print(
        "x uniform: times slower than uniform play on the same realisations; floor: times "
        "slower than its base learner's floor, measured in this run"
    )
    if flagged:
        print(
            f"slower than their floor by more than {bench.SLOWER_THAN_FLOOR:g}x: "
            + ", ".join(flagged)
        )


def _done(argv: Sequence[str], wall_s: float) -> str:
    """The last line of a job's log: the command as run, and what it took. Its CPU time is the
    operating system's count for the whole process, imports included, and for the processes it
    waited for (a notebook's kernel): exact, where Snakemake's benchmark samples (``benchmarks``)."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    cpu_s = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    peak_mb = own.ru_maxrss / 1024  # KiB on Linux
    return (
        f"delayed-bandits {shlex.join(argv)}\n"
        f"done in {wall_s:.2f} s wall, {cpu_s:.2f} s CPU, peak RSS {peak_mb:.0f} MB"
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # what the messages name: the command is the first argument once parsed, and the parsing
    # itself can fail, with a ConfigError, when a plug-in that brings commands does not import
    command = " ".join(["delayed-bandits", *argv[:1]])
    started = time.perf_counter()
    try:
        args = _parser().parse_args(argv)
        args.handler(args)
    except (ConfigError, FileNotFoundError, TimeLimitError) as exc:
        print(f"{command}: error: {exc}", file=sys.stderr)
        return 2
    except VerifyFailed as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 1
    except MemoryError as exc:
        # The traceback of a failed allocation says where, not what to do about it.
        print(
            f"{command}: error: out of memory ({exc or 'MemoryError'}); "
            "no output was written. Give the job more memory (Snakemake resource mem_mb, "
            "see src/delayed_bandits/resources.py) or use a smaller horizon.",
            file=sys.stderr,
        )
        return 1
    except OSError as exc:
        # a write through outputs.atomic_path is named there, the file and the errno; a full
        # disk met anywhere else is named here
        if not isinstance(exc, OutputWriteError) and exc.errno != errno.ENOSPC:
            raise
        where = f" ({exc.filename})" if exc.filename and exc.errno == errno.ENOSPC else ""
        said = (
            exc.strerror
            if isinstance(exc, OutputWriteError)
            else f"the disk is full: no space left on the device{where}; no output was "
            "written. Free space there and rerun the job"
        )
        print(f"{command}: error: {said}", file=sys.stderr)
        return 1
    # A command that writes files is a workflow job: its log (stderr) says what it did and how
    # long it took, even when the command itself has nothing to say.
    if getattr(args, "out", None) is not None:
        print(_done(argv, time.perf_counter() - started), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
