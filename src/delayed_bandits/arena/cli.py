"""The arena's own commands of ``delayed-bandits``: ``screen`` (the contest that the screen's
runs ask for, ``leaderboard.screen_plan``: the checkpoint of that name in
``workflow/rules/arena.smk``), ``leaderboard`` (the table its figures read, made from the
screen's and the contest's runs pooled by the rule of that name), ``replay`` (one
run, round by round, checked against the entrant's reference), ``check-entrant`` (an entrant's
kernel held to its reference over whole runs, ``check``). The registry finds this module
(``Paper.commands``) and ``cli`` adds its commands to its parser (``cli._add_package_commands``),
with the leaderboard's reader (``TABLES``) for the claims and plot commands of the arena's
figures. ``quote``, which quotes the arena's digest beside the papers', is generic
(``quoting``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Mapping

from delayed_bandits.commands import (
    config_args,
    figure_args,
    load_figure,
    positive,
    shards_to_table,
)
from delayed_bandits.errors import ConfigError, VerifyFailed
from delayed_bandits.outputs import atomic_path

# what check-entrant reads without --config: the full-scale arena (config/arena-full.yaml), so
# that its default settings run at the citable run's horizon
CHECKED_CONFIG = [Path("config/config.yaml"), Path("config/arena-full.yaml")]
# check-entrant's replications per setting by default: enough to see a second draw of the best
# arm's position, few enough for a check of a minute
CHECKED_REPLICATIONS = 2
CHECK_NAMED = 3  # settings that differ that its last line names; the lines above give each
PAGE_FILE = "page.md"  # entrant-page's Markdown page, beside its figures <name>.{png,pdf}


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
        "shards",
        nargs="+",
        type=Path,
        help="every run: the screen's shards and, where the figure screens, the contest's",
    )

    p = sub.add_parser(
        "screen",
        help="the arena's screen (docs/decisions/arena.md#screening): from the first stage's "
        "shards, per setting the contenders that run the rest of the replications (JSON)",
    )
    p.set_defaults(handler=_screen)
    figure_args(p)
    p.add_argument("--out", required=True, type=Path, help="the plan to write (JSON)")
    p.add_argument("shards", nargs="+", type=Path, help="the screen's shards")

    p = sub.add_parser(
        "families",
        help="the answer per regime family: each entrant's mean paired ratio of regret at T to "
        "Thompson sampling ignoring delays over a family's settings, with its 95 %% interval",
    )
    p.set_defaults(handler=_families)
    figure_args(p)
    p.add_argument("--out", required=True, type=Path, help="table to write (CSV)")
    p.add_argument("shards", nargs="+", type=Path)

    p = sub.add_parser(
        "entrant-page",
        help="the page of one entrant of an arena run: its ratio to Thompson sampling per regime "
        "family and its regret per setting at T, beside the best of each information model, "
        "where it does not apply, and its claim (Markdown, with figures in PNG and PDF)",
    )
    p.set_defaults(handler=_entrant_page)
    p.add_argument("name", help="the entrant's id, as the run's leaderboard names it")
    p.add_argument(
        "--run",
        type=Path,
        default=Path("."),
        help="the run's folder: . for the standard run (default), smoke, full, or your overlay's "
        "scale; it reads <run>/results/arena/regret/{leaderboard,families}.csv",
    )
    p.add_argument(
        "--out",
        type=Path,
        help=f"the folder to write {PAGE_FILE} and the figures to (default: "
        "<run>/entrants/<id>, beside the run's results/, never in it: `verify` checks that tree)",
    )

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


def _read_leaderboard(path: Path, made_by: Any) -> Any:
    """The leaderboard table at ``path``, checked whole and made by ``made_by``
    (``tables.read_table``)."""
    from delayed_bandits import tables
    from delayed_bandits.arena.leaderboard import COLUMNS

    return tables.read_table(path, COLUMNS, ["horizon", "field", "setting", "algorithm"], made_by)


def _read_families(path: Path, made_by: Any) -> Any:
    """The families table at ``path`` (``answer.table``), checked whole and made by
    ``made_by``."""
    from delayed_bandits import tables
    from delayed_bandits.arena.answer import COLUMNS

    return tables.read_table(path, COLUMNS, ["family", "algorithm"], made_by)


TABLES = {"leaderboard": _read_leaderboard, "families": _read_families}
"""The tables the arena's commands make that its figures read, by name (``kinds.TABLES``)."""


def read_plan(path: Path, made_by: Any) -> dict[str, Any]:
    """The screen's plan at ``path`` (``screen``), checked whole and made by ``made_by`` (None:
    any; ``tables.read_recorded``)."""
    from delayed_bandits import tables

    return json.loads(tables.read_recorded(path, made_by))


def _screen(args: argparse.Namespace) -> None:
    from delayed_bandits import provenance, tables
    from delayed_bandits.aggregate import read_shards
    from delayed_bandits.arena import claims, leaderboard

    if args.paper != leaderboard.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {leaderboard.PAPER!r} screens")
    config, fig = load_figure(args)
    made_by = provenance.binding(config, args.paper, args.figure)
    plan = leaderboard.screen_plan(read_shards(args.shards, made_by), fig, claims.KEPT)
    data = json.dumps(plan, indent=2, ensure_ascii=False) + "\n"
    tables.write_recorded(data.encode(), args.out, made_by)
    going = sum(len(a) for a in plan["settings"].values())
    print(
        f"replications {plan['first']}-{plan['last']}: {going} contenders in "
        f"{len(plan['settings'])} settings"
    )


def _leaderboard(args: argparse.Namespace) -> None:
    from delayed_bandits.arena import claims, leaderboard

    if args.paper != leaderboard.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {leaderboard.PAPER!r} has a leaderboard")

    def make(raw: Any, config: Mapping[str, Any], fig: Mapping[str, Any]) -> Any:
        return leaderboard.build(raw, fig, config["seed"], args.figure, claims.KEPT)

    board, fig = shards_to_table(args, make)
    # what the log keeps: how precise the table is, and what more runs would buy
    precision = leaderboard.statistics(fig)["precision"]
    print(leaderboard.precision_report(board, precision).to_string(index=False))


def _families(args: argparse.Namespace) -> None:
    from delayed_bandits.arena import answer

    if args.paper != answer.PAPER:
        raise ConfigError(f"--paper {args.paper!r}: only {answer.PAPER!r} has regime families")
    table, _ = shards_to_table(args, lambda raw, config, fig: answer.table(raw, fig))
    print("\n".join(answer.sentences(table).values()))  # what the log keeps


def _entrant_page(args: argparse.Namespace) -> None:
    from delayed_bandits import plotting
    from delayed_bandits.arena import entrant_page

    run = entrant_page.read_run(args.run, TABLES)
    entrant_page.check_entrant(run.board, args.name)
    out = args.out or entrant_page.default_out(args.run, args.name)
    out.mkdir(parents=True, exist_ok=True)
    drawn = entrant_page.figures(run, args.name)
    pages = {}
    for name, fig in drawn.items():  # a figure of several pages: a PNG of each in <name>/
        pages[name] = len(fig) if isinstance(fig, list) else 1
        folder = out / name if pages[name] > 1 else None
        plotting.save(fig, [out / f"{name}.png", out / f"{name}.pdf"], folder)
    text = entrant_page.page(run, args.name, {name: f"{name}.png" for name in drawn}, pages)
    with atomic_path(out / PAGE_FILE) as tmp:
        tmp.write_text(text, encoding="utf-8")
    print(f"wrote {out / PAGE_FILE} and its figures {', '.join(f'{n}.{{png,pdf}}' for n in drawn)}")


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
