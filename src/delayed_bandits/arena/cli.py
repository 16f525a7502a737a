"""The arena's own commands of ``delayed-bandits``: ``leaderboard`` (the table its figures read,
made from the shards by the rule of that name in ``workflow/rules/arena.smk``), ``replay`` (one
run, round by round, checked against the entrant's reference), ``check-entrant`` (an entrant's
kernel held to its reference over whole runs, ``check``) and ``quote`` (the numbers the docs
quote: the arena's digest, and beside it the papers' verdicts, whose blocks the same documents
hold; and the statistical rules, worded by the code that applies them, ``rule_blocks``). The registry finds this module (``Paper.commands``) and ``cli`` adds its commands to its
parser (``cli._add_package_commands``), with the leaderboard's reader (``TABLES``) for the claims
and plot commands of the arena's figures."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Mapping

from delayed_bandits.cli import config_args, figure_args, load_figure, positive, shards_to_table
from delayed_bandits.errors import ConfigError, VerifyFailed
from delayed_bandits.outputs import atomic_path

QUOTED = {  # what `quote` knows: the digest's committed file, and the run it is made from
    "arena": (Path("docs/data/arena-full.json"), "full"),
    "papers": (Path("docs/data/papers.json"), "."),
    "speed": (Path("docs/data/speed.json"), "."),
}
DECLARED = "entrants"  # blocks the code gives without a run: the entrants', the rules'
QUOTING = (  # the documents with blocks quoted from them
    Path("README.md"),
    Path("docs/arena.md"),
    # the entrants' table and the tie rule (a file to fill, not a decision cited)
    Path("docs/decisions") / "arena.md",
    Path("docs/artifact-evaluation.md"),
    Path("docs/reproduction.md"),
    Path("docs/decisions", "cross-cutting.md"),
    Path("docs/speed.md"),
    Path("docs/library.md"),  # the entrants' information models (digest.declared)
)
CONFIG = Path("config/config.yaml")  # the paper scale, whose run counts the prose states
# what check-entrant reads without --config: the full-scale arena (config/arena-full.yaml), so
# that its default settings run at the citable run's horizon
CHECKED_CONFIG = [CONFIG, Path("config/arena-full.yaml")]
PAGES = Path("docs/figures")  # the page per figure that `quote papers --write` writes (pages.py)
# check-entrant's replications per setting by default: enough to see a second draw of the best
# arm's position, few enough for a check of a minute
CHECKED_REPLICATIONS = 2
CHECK_NAMED = 3  # settings that differ that its last line names; the lines above give each
QUOTE_SHOWN = 50  # differences a failed check lists by field; the rest it counts


def rule_blocks() -> dict[str, str]:
    """The blocks that state a statistical rule: worded by the code that applies it
    (``arena.ties``, ``claims``, ``findings``), the same whatever the run; and those of
    config/config.yaml."""
    from delayed_bandits import claims, config, findings, pages
    from delayed_bandits.arena import ties

    # and the config's run counts and horizons that the prose states (pages.config_blocks)
    return {
        **ties.blocks(),
        **claims.rule_blocks(),
        **findings.rule_blocks(),
        **pages.config_blocks(config.load(CONFIG)),
    }


def add_commands(sub: Any) -> None:
    """The arena's commands, added to the subparsers ``sub`` of ``delayed-bandits``."""
    p = sub.add_parser(
        "leaderboard",
        help="the arena's regret per (horizon, comparison, "
        "setting, algorithm), ranked with paired ties, with what each was told",
    )
    p.set_defaults(handler=_leaderboard)
    figure_args(p)
    p.add_argument("--out", required=True, type=Path, help="table to write (CSV)")
    p.add_argument(
        "--base",
        type=Path,
        help="the base runs' leaderboard to race: the shards given are then the second stage's, "
        "as its plan asks (none where it asks for none); without it, the shards are the base runs'",
    )
    p.add_argument("shards", nargs="*", type=Path)

    p = sub.add_parser(
        "replay",
        help="replay one run of the arena with the entrant's plain-Python reference and its "
        "kernel (checked to take the same actions), and summarise what it saw, round by round",
    )
    p.set_defaults(handler=_replay)
    figure_args(p)
    p.add_argument("--setting", required=True, help="a setting of the figure")
    p.add_argument("--algorithm", required=True, help="an algorithm of the figure")
    p.add_argument(
        "--replication", required=True, type=int, help="the replication, 0 <= R < replications"
    )
    p.add_argument("--out", type=Path, help="the round-by-round trace to write (CSV)")
    p.add_argument(
        "--at", nargs="+", type=positive, default=(), help="rounds to show besides those chosen"
    )

    p = sub.add_parser(
        "check-entrant",
        help="play an arena entrant's kernel and its reference policy on the arena's "
        "replications over the full horizon, and name the first round where their actions "
        "differ (exit code 1); run it on an entrant of your own before a full run",
    )
    p.set_defaults(handler=_check_entrant)
    p.add_argument("name", help="the entrant's id, e.g. ucb1-matched or one of your own")
    config_args(p, default=CHECKED_CONFIG)
    p.add_argument(
        "--figure", default="regret", help="the arena's figure whose settings and seeds it plays"
    )
    p.add_argument(
        "--settings",
        nargs="+",
        help="settings of the figure, as an overlay's `only` names them (a setting id, a listed "
        "setting or a grid value's name); default: for each delay law's kind, without and with "
        "censoring, the first setting with the most arms where the entrant applies",
    )
    p.add_argument(
        "--replications",
        type=positive,
        default=CHECKED_REPLICATIONS,
        help=f"replications per setting, the figure's first (default {CHECKED_REPLICATIONS})",
    )
    p.add_argument(
        "--horizon", type=positive, help="rounds per run (default: the setting's horizon)"
    )

    p = sub.add_parser(
        "quote",
        help="the numbers the docs quote, from a run's results (the arena's, or the papers' "
        "verdicts): write them (the digest, and the marked blocks of the docs), or check the "
        "docs against the committed digests and, with --run, the digest against a rerun",
    )
    p.set_defaults(handler=_quote)
    p.add_argument(
        "digest_of",
        nargs="?",
        choices=(*QUOTED, DECLARED),
        default="arena",
        metavar="{" + ",".join((*QUOTED, DECLARED)) + "}",
        help="which digest --run makes: arena (default: the arena's run, full after `make "
        "arena-full`), papers (the papers' verdicts, . after `make figures`) or speed (where "
        "the time of `make figures` and `make test` goes, . after both); or entrants, "
        "with --write and no run: the blocks the code gives, the entrants' declarations and the statistical rules (after adding an entrant or changing a rule)",
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
        help="write the run's digest and the docs' blocks (needs --run) instead of checking; "
        "for papers, also a page per figure of the run (--pages)",
    )
    p.add_argument(
        "--pages",
        type=Path,
        default=PAGES,
        help=f"where papers --write puts the page of each figure (default: {PAGES})",
    )


def _read_leaderboard(path: Path, made_by: Any) -> Any:
    """The leaderboard table at ``path``, checked whole and made by ``made_by``
    (``tables.read_table``)."""
    from delayed_bandits import tables
    from delayed_bandits.arena.leaderboard import COLUMNS

    return tables.read_table(path, COLUMNS, ["horizon", "field", "setting", "algorithm"], made_by)


TABLES = {"leaderboard": _read_leaderboard}
"""The tables the arena's commands make that its figures read, by name (``kinds.TABLES``)."""


def _leaderboard(args: argparse.Namespace) -> None:
    from delayed_bandits import provenance
    from delayed_bandits.arena import leaderboard, racing

    if args.paper != leaderboard.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {leaderboard.PAPER!r} has a leaderboard")
    if args.base is None and not args.shards:
        raise ConfigError("shards: the base runs' shards are required without --base")

    def make(raw: Any, config: Mapping[str, Any], fig: Mapping[str, Any]) -> Any:
        if args.base is None:
            board = leaderboard.build(raw, fig, config["seed"], args.figure)
            return racing.combine(board, board.iloc[:0], leaderboard.CONTENDER)
        base = _read_leaderboard(args.base, provenance.binding(config, args.paper, args.figure))
        base = base[leaderboard.BASE_COLUMNS]
        return leaderboard.race(base, raw, fig, config["seed"], args.figure)

    board, fig = shards_to_table(args, make)
    # what the log keeps: how precise the table is, and what more runs would buy
    precision = leaderboard.statistics(fig)["precision"]
    print(leaderboard.precision_report(board, precision).to_string(index=False))


def _replay(args: argparse.Namespace) -> None:
    from delayed_bandits.arena import replay

    if args.paper != replay.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {replay.PAPER!r} can be replayed")
    config, _ = load_figure(args)
    try:
        run = replay.replay(config, args.figure, args.setting, args.algorithm, args.replication)
    except replay.Mismatch as exc:
        raise VerifyFailed(str(exc)) from None
    summary = replay.describe(run, args.figure, args.at)
    if args.out is not None:
        with atomic_path(args.out) as tmp:
            run.trace.to_csv(tmp, index=False, float_format="%.10g")
    print(summary)


def _check_entrant(args: argparse.Namespace) -> None:
    from delayed_bandits import config as cfg
    from delayed_bandits import curves as cv
    from delayed_bandits.arena import check

    entrant = check.entrant(args.name)
    replications = args.replications
    if not check.compared(entrant):
        replications = 1  # nothing to compare: each setting played once, held to the rules
        print(
            f"{entrant.id}: its kernel is its reference, so there is nothing to compare; it is "
            "played once on each setting, held to the arena's rules (a global generator, "
            "exiting)"
            + (
                "; note: declared without kernel=, its runs play its policy in plain Python, "
                "tens of times slower than a kernel (the jobs' time requests count it: "
                "resources.REFERENCE_STEPS_PER_SECOND)"
                if entrant.interpreted
                else ""
            )
        )
    config = cfg.load(args.config, check.PAPER, args.override, args.figure)
    fig = cv.figure(config, check.PAPER, args.figure)
    settings = (
        check.named_settings(fig, args.settings, "--settings")
        if args.settings
        else check.default_settings(fig, entrant)
    )
    results = []
    for checked in check.check(config, args.figure, entrant, settings, replications, args.horizon):
        print(checked.line(), flush=True)
        results.append(checked)
    differ = [c.setting for c in results if c.mismatch]
    run = [c for c in results if not c.skipped]
    if not run:
        given = f"--settings {' '.join(args.settings)}" if args.settings else "--figure"
        raise ConfigError(
            f"{given}: entrant {entrant.id!r} applies to none of the settings of "
            f"papers.{check.PAPER}.{args.figure} chosen; name settings where it applies"
        )
    if differ:
        named = ", ".join(differ[:CHECK_NAMED]) + (
            f" and {len(differ) - CHECK_NAMED} more" if len(differ) > CHECK_NAMED else ""
        )
        raise VerifyFailed(
            f"entrant {entrant.id!r}: its kernel and its reference played differently on "
            f"{len(differ)} of {len(run)} settings, {named} (above: the first round that "
            "differs in each); make the kernel take its policy's actions, reading only what the "
            "policy is told"
        )
    print(
        f"entrant {entrant.id!r}: kernel and reference took the same actions on "
        f"{len(run)} setting{'s' if len(run) > 1 else ''}"
    )


def _digest(name: str, run: Path) -> dict[str, Any]:
    """The digest ``name`` (of ``QUOTED``) of the run under ``run``."""
    from delayed_bandits import speed, verdicts
    from delayed_bandits.arena import digest as arena

    if name == "papers":
        return verdicts.digest(run, leave_out=(arena.PAPER,))
    if name == "speed":
        return speed.digest(run)
    if not (run / "results" / arena.PAPER).is_dir():
        raise ConfigError(
            f"--run: {run} holds no {arena.PAPER} results (results/{arena.PAPER}/); run "
            "`make arena-full` (then --run full) or `make figures` (then --run .) first"
        )
    return arena.digest(run)


def _blocks(name: str, digest: Mapping[str, Any]) -> dict[str, str]:
    """The Markdown blocks the digest ``name`` gives, by block name."""
    from delayed_bandits import speed, verdicts
    from delayed_bandits.arena import digest as arena

    return {"papers": verdicts, "speed": speed}.get(name, arena).blocks(digest)


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


def _write_pages(run: Path, digest: Mapping[str, Any], where: Path) -> str:
    """The page of every figure of ``run`` (``pages.build``, with the papers' ``digest``) written
    under ``where``; what the report says of them."""
    from delayed_bandits import pages

    written = pages.build(run, digest)
    where.mkdir(parents=True, exist_ok=True)
    for name, text in written.items():
        with atomic_path(where / name) as tmp:
            tmp.write_text(text)
    return f", and {len(written)} figure pages in {where}"


def _quote(args: argparse.Namespace) -> None:
    import json

    from delayed_bandits import quoted
    from delayed_bandits.arena import digest as arena

    declared = args.digest_of == DECLARED
    if declared and (args.run is not None or args.digest is not None):
        raise ConfigError(
            f"{DECLARED}: its blocks come from the entrants' declarations, not from a run's "
            "digest (no --run, no --digest)"
        )
    if args.write and args.run is None and not declared:
        raise ConfigError(
            "--write: needs --run, the run whose numbers the docs quote (or `delayed-bandits "
            f"quote {DECLARED} --write`, the blocks the code gives: the entrants' declarations and the statistical rules)"
        )
    paths = {name: path for name, (path, _) in QUOTED.items()}
    if args.digest is not None:
        paths[args.digest_of] = args.digest
    made = _digest(args.digest_of, args.run) if args.run is not None else None
    digests = {
        name: made if args.write and name == args.digest_of else _read_digest(path, name)
        for name, path in paths.items()
    }
    blocks: dict[str, str] = rule_blocks() | arena.declared()
    for name, d in digests.items():
        given = _blocks(name, d)
        if set(given) & set(blocks):
            raise ConfigError(f"{paths[name]}: blocks {sorted(set(given) & set(blocks))} twice")
        blocks |= given
    if args.write:
        if made is not None:
            with atomic_path(paths[args.digest_of]) as tmp:
                tmp.write_text(json.dumps(made, indent=1, ensure_ascii=False) + "\n")
        for doc in args.docs:
            with atomic_path(doc) as tmp:
                tmp.write_text(quoted.fill(doc.read_text(), blocks, str(doc)))
        written = _write_pages(args.run, made, args.pages) if args.digest_of == "papers" else ""
        print(
            f"wrote {'' if made is None else f'{paths[args.digest_of]} and '}the quoted blocks "
            f"of {', '.join(map(str, args.docs))}{written}"
        )
        return
    problems = [
        f"{doc}: block {name} is not what the committed digests and the code (entrants, rules) give"
        for doc in args.docs
        for name in quoted.stale(doc.read_text(), blocks, str(doc))
    ]
    said = (
        f"{', '.join(map(str, args.docs))}: every quoted block is the committed digests' or the "
        "code's (entrants, rules)"
    )
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
