"""``delayed-bandits quote``: the numbers the docs quote, from a run's results: the arena's
digest (``arena.digest``), the papers' verdicts (``verdicts``, with a page per figure, ``pages``)
and where the time of ``make figures`` and ``make test`` goes (``speed``), written as the marked
blocks of README.md and docs/ (``quoted``), or a rerun checked against the committed digests;
and the blocks the code gives without a run (the entrants' declarations, the statistical rules
worded by the code that applies them, ``rule_blocks``). Generic: below the top-level command,
which adds it (``cli``), apart from the arena's own commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Mapping

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
PAGES = Path("docs/figures")  # the page per figure that `quote papers --write` writes (pages.py)
QUOTE_SHOWN = 50  # differences a failed check lists by field; the rest it counts


def tables_dir(digest: Path) -> Path:
    """Where the arena digest ``digest``'s per-cell tables are committed: beside it, a folder of
    its name (docs/data/arena-full/), in the run's layout (``arena.digest.tables``)."""
    return digest.with_suffix("")


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
    """``quote``, added to the subparsers ``sub`` of ``delayed-bandits``."""
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
        if args.digest_of == "arena" and made is not None:
            copies = arena.write_tables(args.run, tables_dir(paths["arena"]))
            written = f", and {len(copies)} per-cell tables with their records under " + str(
                tables_dir(paths["arena"])
            )
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
