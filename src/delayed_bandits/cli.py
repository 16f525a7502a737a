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

from delayed_bandits import algorithms, kinds
from delayed_bandits import config as cfg
from delayed_bandits import papers as registry
from delayed_bandits.errors import ConfigError, TimeLimitError
from delayed_bandits.outputs import atomic_path, check_target, write_parquet


def _reps(text: str) -> tuple[int, int]:
    try:
        first, last = (int(x) for x in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST, e.g. 0-49, got {text!r}") from None
    if first < 0 or last < first:
        raise argparse.ArgumentTypeError(f"need 0 <= FIRST <= LAST, got {text!r}")
    return first, last


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _override(text: str) -> dict[str, Any]:
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f"expected a JSON object, e.g. '{{\"seed\": 3}}', got {text!r}"
        )
    return value


def _config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        required=True,
        nargs="+",
        type=Path,
        help="experiment config files (YAML), each an overlay of those before it, "
        "e.g. config/config.yaml config/smoke.yaml",
    )
    p.add_argument(
        "--override",
        type=_override,
        help="config values on top of the files, as a "
        "JSON object (what Snakemake's --config KEY=VALUE sets)",
    )


def _figure_args(p: argparse.ArgumentParser) -> None:
    _config_args(p)
    p.add_argument("--paper", required=True, help="paper id, e.g. vernade2017")
    p.add_argument("--figure", required=True, help="figure id, e.g. fig2")


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


QUOTED = {  # what `quote` knows: the digest's committed file, and the run it is made from
    "arena": (Path("docs/data/arena-full.json"), "full"),
    "papers": (Path("docs/data/papers.json"), "."),
}
QUOTING = (  # the documents with blocks quoted from them
    Path("README.md"),
    Path("docs/arena.md"),
    Path("docs/artifact-evaluation.md"),
    Path("docs/reproduction.md"),
)
QUOTE_SHOWN = 50  # differences a failed check lists by field; the rest it counts


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="delayed-bandits", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("validate", help="check config files against the schema")
    _config_args(p)

    sub.add_parser(
        "schema", help="print the config schema, with what the paper registry fills in (JSON)"
    )

    p = sub.add_parser("simulate", help="run a shard of replications with the compiled kernels")
    _figure_args(p)
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
    _figure_args(p)
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
    _figure_args(p)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("shards", nargs="+", type=Path)

    p = sub.add_parser(
        "claims", help="check a figure's claims against its summary, tables and runs"
    )
    _figure_args(p)
    _table_args(p)
    p.add_argument(
        "--shards",
        type=Path,
        nargs="+",
        help="the figure's shards, every run (its claims' table runs); required for a simulated "
        "figure, except the arena's",
    )
    p.add_argument("--out", required=True, type=Path)
    p.add_argument(
        "--html",
        type=Path,
        help="the claims also as an HTML page, which the Snakemake report shows beside the figure",
    )

    p = sub.add_parser(
        "leaderboard",
        help="the arena's regret per (horizon, comparison, "
        "setting, algorithm), ranked with paired ties, with what each was told",
    )
    _figure_args(p)
    p.add_argument("--out", required=True, type=Path, help="table to write (CSV)")
    p.add_argument("shards", nargs="+", type=Path)

    p = sub.add_parser(
        "replay",
        help="replay one run of the arena with the entrant's plain-Python reference and its "
        "kernel (checked to take the same actions), and summarise what it saw, round by round",
    )
    _figure_args(p)
    p.add_argument("--setting", required=True, help="a setting of the figure")
    p.add_argument("--algorithm", required=True, help="an algorithm of the figure")
    p.add_argument(
        "--replication", required=True, type=int, help="the replication, 0 <= R < replications"
    )
    p.add_argument("--out", type=Path, help="the round-by-round trace to write (CSV)")
    p.add_argument(
        "--at", nargs="+", type=_positive, default=(), help="rounds to show besides those chosen"
    )

    p = sub.add_parser("gather-claims", help="all claims files as one markdown report")
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--scale", help="the run's scale (config key scale), stated at the top")
    p.add_argument("claims", nargs="+", type=Path)

    p = sub.add_parser("plot", help="render a figure from its summary")
    _figure_args(p)
    _table_args(p)
    p.add_argument("--out", required=True, type=Path, nargs="+", help=".pdf and/or .png paths")
    p.add_argument(
        "--kind",
        help="draw the figure's tables as this kind of figure (default: the "
        "figure's own kind), e.g. arena_curves for the arena's regret",
    )

    p = sub.add_parser("render", help="execute a notebook on the results and write it as HTML")
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
        nargs="+",
        type=Path,
        help="the config files the run was made with, to check it holds every file they make "
        "(default: those its summaries' provenance records)",
    )
    p.add_argument(
        "--override", type=_override, help="the run's config values on top of the files (JSON)"
    )

    p = sub.add_parser(
        "quote",
        help="the numbers the docs quote, from a run's results (the arena's, or the papers' "
        "verdicts): write them (the digest, and the marked blocks of the docs), or check the "
        "docs against the committed digests and, with --run, the digest against a rerun",
    )
    p.add_argument(
        "digest_of",
        nargs="?",
        choices=tuple(QUOTED),
        default="arena",
        metavar="{" + ",".join(QUOTED) + "}",
        help="which digest --run makes: arena (default: the arena's run, full after `make "
        "arena-full`) or papers (the papers' verdicts, . after `make figures`)",
    )
    p.add_argument(
        "--run",
        type=Path,
        help="the run's directory (arena: full, or . after `make figures`; papers: ., or smoke "
        "after the quick check); without it, check that the docs' blocks are what the committed "
        "digests give",
    )
    p.add_argument(
        "--digest",
        type=Path,
        help="the committed digest of the one chosen (default: "
        + ", ".join(f"{name}: {path}" for name, (path, _) in QUOTED.items())
        + ")",
    )
    p.add_argument(
        "--docs",
        nargs="+",
        type=Path,
        default=list(QUOTING),
        help=f"the documents whose marked blocks quote them (default: {' '.join(map(str, QUOTING))})",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="write the run's digest and the docs' blocks (needs --run) instead of checking",
    )

    p = sub.add_parser("bench", help="agent-steps per second of each kernel and its reference")
    p.add_argument("--horizon", type=_positive, default=2000)
    p.add_argument("--replications", type=_positive, default=20, help="kernel runs per algorithm")
    p.add_argument("--reference-replications", type=_positive, default=1)
    p.add_argument("--paper", action="append", help="only this paper's kernels (repeatable)")
    return parser


def _load(args: argparse.Namespace) -> tuple[dict[str, Any], Mapping[str, Any]]:
    """The config of a figure's command, checked for that figure (the workflow has checked the
    rest), and the figure's own section; ConfigError when the figure is not in it."""
    config = cfg.load(args.config, args.paper, args.override, args.figure)
    return config, cfg.figure(config, args.paper, args.figure)


def _tables(args: argparse.Namespace, config: Mapping[str, Any], fig: Mapping[str, Any]) -> _Given:
    """The tables a claims or plot command was given, by name, each checked whole and made by
    this config (``tables``: a corrupt or truncated file, or one of another config, is an error
    naming it)."""
    import pandas as pd

    from delayed_bandits import provenance
    from delayed_bandits import tables as tb
    from delayed_bandits.aggregate import RATIO_COLUMNS, SUMMARY_COLUMNS

    out = _Given(f"{args.paper} {args.figure}")
    if args.summary is None and kinds.simulated(fig):
        raise ConfigError(
            f"--summary: required, {args.paper} {args.figure} is a simulated figure "
            f"(kind {kinds.of(fig)})"
        )
    if not any(getattr(args, name, None) for name in kinds.TABLE_OPTIONS):
        return out  # a figure drawn from the configuration alone: nothing was made by a run
    curves = cfg.curves(args.paper, args.figure, fig)
    made_by = provenance.binding(config, args.paper, args.figure, curves)
    if args.summary is not None:
        out["summary"] = tb.read_summary(args.summary, SUMMARY_COLUMNS, made_by, curves)
    if getattr(args, "ratios", None):
        out["ratios"] = tb.read_summary(args.ratios, RATIO_COLUMNS, made_by)
    if getattr(args, "leaderboard", None):
        from delayed_bandits.papers.arena.leaderboard import COLUMNS

        out["leaderboard"] = tb.read_table(
            args.leaderboard, COLUMNS, ["horizon", "field", "setting", "algorithm"], made_by
        )
    if getattr(args, "events", None):
        out["events"] = pd.concat(
            [tb.read_events(p, made_by) for p in args.events], ignore_index=True
        )
    return out


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

    config, _ = _load(args)
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
    config, _ = _load(args)
    made_by = provenance.binding(config, args.paper, args.figure)
    raw = read_shards(args.shards, made_by)
    record = provenance.build(
        paper=args.paper,
        figure=args.figure,
        config=config,
        config_paths=[str(p) for p in args.config],
        overrides=args.override,
        git=provenance.git_state(Path.cwd()),
        replications=provenance.replication_counts(raw),
        shards=[provenance.read_shard_metadata(p) for p in args.shards],
        aggregation_s=time.perf_counter() - start,
        created=datetime.now(timezone.utc),
        hostname=socket.gethostname(),
    )
    record = tables.write_table(summarise(raw), args.out, made_by, record)
    if args.provenance_html is not None:
        with atomic_path(args.provenance_html) as tmp:
            tmp.write_text(
                provenance.to_html(record, f"How {args.paper} {args.figure}'s summary was made")
            )


def _shards_to_table(args: argparse.Namespace, make: Any) -> tuple[Any, Mapping[str, Any]]:
    """A table made from a figure's shards (ratios, the leaderboard): the shards read as
    made by this config, ``make(shards, config, fig)`` written with its record
    (``tables.write_table``); the table and the figure's config."""
    from delayed_bandits import provenance, tables
    from delayed_bandits.aggregate import read_shards

    config, fig = _load(args)
    made_by = provenance.binding(config, args.paper, args.figure)
    table = make(read_shards(args.shards, made_by), config, fig)
    tables.write_table(table, args.out, made_by)
    return table, fig


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

    _shards_to_table(args, ratios)


def _claims(args: argparse.Namespace) -> None:
    from delayed_bandits import claims

    config, fig = _load(args)
    where = f"{args.paper} {args.figure} (kind {kinds.of(fig)})"
    if kinds.reads_runs(fig) and not args.shards:
        raise ConfigError(f"--shards: required, the claims of {where} read every run")
    if args.shards and not kinds.reads_runs(fig):
        raise ConfigError(f"--shards: the claims of {where} read no runs; give none")
    tables = _tables(args, config, fig)
    if args.shards:
        from delayed_bandits import provenance
        from delayed_bandits.aggregate import read_runs

        curves = cfg.curves(args.paper, args.figure, fig)
        made_by = provenance.binding(config, args.paper, args.figure, curves)
        tables["runs"] = read_runs(args.shards, curves, made_by)
    found = claims.check(args.paper, args.figure, tables, fig)
    with atomic_path(args.out) as tmp:
        tmp.write_text(claims.to_json(found))
    if args.html is not None:
        with atomic_path(args.html) as tmp:
            tmp.write_text(claims.to_html(found, f"Claims of {args.paper} {args.figure}"))


def _leaderboard(args: argparse.Namespace) -> None:
    from delayed_bandits.papers.arena import leaderboard

    if args.paper != leaderboard.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {leaderboard.PAPER!r} has a leaderboard")
    board, fig = _shards_to_table(
        args, lambda raw, config, fig: leaderboard.build(raw, fig, config["seed"], args.figure)
    )
    # what the log keeps: how precise the table is, and what more runs would buy
    precision = leaderboard.statistics(fig)["precision"]
    print(leaderboard.precision_report(board, precision).to_string(index=False))


def _replay(args: argparse.Namespace) -> None:
    from delayed_bandits.papers.arena import replay

    if args.paper != replay.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {replay.PAPER!r} can be replayed")
    config, _ = _load(args)
    try:
        run = replay.replay(config, args.figure, args.setting, args.algorithm, args.replication)
    except replay.Mismatch as exc:
        raise VerifyFailed(str(exc)) from None
    summary = replay.describe(run, args.figure, args.at)
    if args.out is not None:
        with atomic_path(args.out) as tmp:
            run.trace.to_csv(tmp, index=False, float_format="%.10g")
    print(summary)


def _gather_claims(args: argparse.Namespace) -> None:
    from delayed_bandits import claims

    with atomic_path(args.out) as tmp:
        tmp.write_text(claims.to_markdown(args.claims, args.scale))


def _plot(args: argparse.Namespace) -> None:
    from delayed_bandits import plotting

    bad = [str(p) for p in args.out if p.suffix not in (".pdf", ".png")]
    if bad:
        raise ConfigError(f"--out: {', '.join(bad)} must end in .pdf or .png")
    config, fig = _load(args)
    kind = args.kind or kinds.of(fig)
    plotting.view(args.paper, kind)  # an unknown kind fails before the tables are read
    plotting.plot_figure(_tables(args, config, fig), args.paper, args.figure, fig, args.out, kind)


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


class VerifyFailed(Exception):
    """A check failed (exit code 1): ``verify`` found a file that does not match its record, or
    ``replay`` a kernel that does not take its reference's actions."""


def _bench(args: argparse.Namespace) -> None:
    from delayed_bandits import bench

    papers = tuple(args.paper) if args.paper else registry.ids()
    for paper in papers:
        algorithms.experiment(paper)  # an unknown paper fails here, naming the allowed ones
    rows = bench.run(args.horizon, args.replications, args.reference_replications, papers)
    print(f"agent-steps per second (replications x rounds / s), T = {args.horizon}")
    print(f"{'paper':<14}{'algorithm':<32}{'kernel':>14}{'reference':>14}{'speedup':>10}")
    for r in rows:
        print(
            f"{r['paper']:<14}{r['algorithm']:<32}{r['kernel']:>14,.0f}"
            f"{r['reference']:>14,.0f}{r['speedup']:>9,.0f}x"
        )


def _digest(name: str, run: Path) -> dict[str, Any]:
    """The digest ``name`` (of ``QUOTED``) of the run under ``run``."""
    from delayed_bandits import verdicts
    from delayed_bandits.papers.arena import digest as arena

    if name == "papers":
        return verdicts.digest(run, leave_out=(arena.PAPER,))
    if not (run / "results" / arena.PAPER).is_dir():
        raise ConfigError(
            f"--run: {run} holds no {arena.PAPER} results (results/{arena.PAPER}/); run "
            "`make arena-full` (then --run full) or `make figures` (then --run .) first"
        )
    return arena.digest(run)


def _blocks(name: str, digest: Mapping[str, Any]) -> dict[str, str]:
    """The Markdown blocks the digest ``name`` gives, by block name."""
    from delayed_bandits import verdicts
    from delayed_bandits.papers.arena import digest as arena

    return (verdicts if name == "papers" else arena).blocks(digest)


def _read_digest(path: Path, name: str) -> dict[str, Any]:
    """A committed digest; a missing one or a directory is an error saying how to write it."""
    import json

    if not path.is_file():
        raise ConfigError(
            f"{path}: {'a directory, not a' if path.is_dir() else 'no'} digest; write it from its "
            f"run: delayed-bandits quote {name} --run {QUOTED[name][1]} --write"
        )
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError alike
        raise ConfigError(f"{path}: not a JSON digest ({exc})") from None


def _quote(args: argparse.Namespace) -> None:
    import json

    from delayed_bandits import quoted

    if args.write and args.run is None:
        raise ConfigError("--write: needs --run, the run whose numbers the docs quote")
    paths = {name: path for name, (path, _) in QUOTED.items()}
    if args.digest is not None:
        paths[args.digest_of] = args.digest
    made = _digest(args.digest_of, args.run) if args.run is not None else None
    digests = {
        name: made if args.write and name == args.digest_of else _read_digest(path, name)
        for name, path in paths.items()
    }
    blocks: dict[str, str] = {}
    for name, d in digests.items():
        given = _blocks(name, d)
        if set(given) & set(blocks):
            raise ConfigError(f"{paths[name]}: blocks {sorted(set(given) & set(blocks))} twice")
        blocks |= given
    if args.write:
        with atomic_path(paths[args.digest_of]) as tmp:
            tmp.write_text(json.dumps(made, indent=1, ensure_ascii=False) + "\n")
        for doc in args.docs:
            with atomic_path(doc) as tmp:
                tmp.write_text(quoted.fill(doc.read_text(), blocks, str(doc)))
        print(
            f"wrote {paths[args.digest_of]} and the quoted blocks of "
            f"{', '.join(map(str, args.docs))}"
        )
        return
    problems = [
        f"{doc}: block {name} is not what the committed digests give"
        for doc in args.docs
        for name in quoted.stale(doc.read_text(), blocks, str(doc))
    ]
    said = f"{', '.join(map(str, args.docs))}: every quoted block is the committed digests'"
    if made is not None:
        committed, where = digests[args.digest_of], paths[args.digest_of]
        numbers = quoted.differences(quoted.checked(committed), quoted.checked(made))
        about = quoted.information(committed, made)
        if numbers:
            shown = numbers[:QUOTE_SHOWN]
            more = len(numbers) - len(shown)
            problems += [
                f"{where}: {len(numbers)} number(s) differ from the run in {args.run}:",
                *(f"  {line}" for line in shown),
                *([f"  ... and {more} more"] if more else []),
                f"{where}: {about}",
            ]
        said += f"\n{where}: numbers agree with the run in {args.run}; {about}"
    if problems:
        raise VerifyFailed("\n".join(problems))
    print(said)


COMMANDS = {
    "validate": _validate,
    "schema": _schema,
    "simulate": _simulate,
    "aggregate": _aggregate,
    "ratios": _ratios,
    "claims": _claims,
    "leaderboard": _leaderboard,
    "replay": _replay,
    "gather-claims": _gather_claims,
    "plot": _plot,
    "render": _render,
    "quote": _quote,
    "bench": _bench,
    "verify": _verify,
}
"""What each command does, one function each: ``main`` parses the arguments and calls it."""


def _done(argv: Sequence[str], wall_s: float, cpu_s: float) -> str:
    """The last line of a job's log: the command as run, and what it took."""
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return (
        f"delayed-bandits {shlex.join(argv)}\n"
        f"done in {wall_s:.2f} s wall, {cpu_s:.2f} s CPU, peak RSS {peak_mb:.0f} MB"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    started, cpu_started = time.perf_counter(), time.process_time()
    try:
        COMMANDS[args.command](args)
    except (ConfigError, FileNotFoundError, TimeLimitError) as exc:
        print(f"delayed-bandits {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except VerifyFailed as exc:
        print(f"delayed-bandits {args.command}: {exc}", file=sys.stderr)
        return 1
    except MemoryError as exc:
        # The traceback of a failed allocation says where, not what to do about it.
        print(
            f"delayed-bandits {args.command}: error: out of memory ({exc or 'MemoryError'}); "
            "no output was written. Give the job more memory (Snakemake resource mem_mb, "
            "see src/delayed_bandits/resources.py) or use a smaller horizon.",
            file=sys.stderr,
        )
        return 1
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        # Outputs are written to a temporary name (outputs.atomic_path), removed on the way here.
        where = f" ({exc.filename})" if exc.filename else ""
        print(
            f"delayed-bandits {args.command}: error: the disk is full: no space left on the "
            f"device{where}; no output was written. Free space there and rerun the job.",
            file=sys.stderr,
        )
        return 1
    # A command that writes files is a workflow job: its log (stderr) says what it did and how
    # long it took, even when the command itself has nothing to say.
    if getattr(args, "out", None) is not None:
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        print(_done(argv, wall, cpu), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
