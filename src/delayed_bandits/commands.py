"""What the commands of ``delayed-bandits`` share, below both the top-level command (``cli``)
and those a registered package brings (the arena's, ``arena.cli``) and ``quote`` (``quoting``):
the config options and their reading (``config_args``, ``figure_args``, ``load_figure``), argument
types (``positive``) and a table made from a figure's shards (``shards_to_table``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Mapping, Sequence

from delayed_bandits import config as cfg
from delayed_bandits import curves as cv
from delayed_bandits.errors import ConfigError


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def json_object(text: str) -> dict[str, Any]:
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


def config_args(
    p: argparse.ArgumentParser, merged: bool = False, default: Sequence[Path] = ()
) -> None:
    """--config and --override; with ``merged`` (a figure's command), --merged as the alternative
    to both, which the workflow gives; with ``default`` (a command a reader runs by hand), the
    config files read without --config."""
    given = p.add_mutually_exclusive_group(required=True) if merged else p
    given.add_argument(
        "--config",
        "--configfile",  # Snakemake's name for the same files
        nargs="+",
        type=Path,
        help="experiment config files (YAML), each an overlay of those before it, "
        "e.g. config/config.yaml config/smoke.yaml (--configfile, as Snakemake names them, is "
        "the same)" + (f" (default: {' '.join(map(str, default))})" if default else ""),
        required=not merged and not default,
        default=list(default) if default else None,
    )
    if merged:
        given.add_argument(
            "--merged",
            type=Path,
            help="the config the workflow merged from its config files and validated when it "
            "built its jobs (.snakemake/delayed-bandits/config-<hash>.json), read as it is",
        )
    p.add_argument(
        "--override",
        type=json_object,
        help="config values on top of the files, as a "
        "JSON object (what Snakemake's --config KEY=VALUE sets)",
    )


def figure_args(p: argparse.ArgumentParser) -> None:
    config_args(p, merged=True)
    p.add_argument("--paper", required=True, help="paper id, e.g. vernade2017")
    p.add_argument("--figure", required=True, help="figure id, e.g. fig2")


def load_figure(args: argparse.Namespace) -> tuple[dict[str, Any], Mapping[str, Any]]:
    """The config of a figure's command, checked for that figure (the workflow has checked the
    rest), and the figure's own section; ConfigError when the figure is not in it. The config is
    the workflow's, merged once when it built the jobs (--merged), or that of the config files
    given (--config, --override)."""
    if args.merged is None:
        config = cfg.load(args.config, args.paper, args.override, args.figure)
    else:
        config = merged_args(args)[0]
        cfg.validate(config, args.paper, args.figure)
    return config, cv.figure(config, args.paper, args.figure)


def merged_args(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """The merged config of --merged and what it was made from (``config.read_merged``)."""
    if args.override is not None:
        raise ConfigError(
            "--override: the merged config (--merged) holds the overrides it was made with; "
            "give config files (--config) to override values"
        )
    return cfg.read_merged(args.merged)


def shards_to_table(args: argparse.Namespace, make: Any) -> tuple[Any, Mapping[str, Any]]:
    """A table made from a figure's shards (ratios, the leaderboard): the shards read as
    made by this config, ``make(shards, config, fig)`` written with its record
    (``tables.write_table``); the table and the figure's config."""
    from delayed_bandits import provenance, tables
    from delayed_bandits.aggregate import read_shards

    config, fig = load_figure(args)
    made_by = provenance.binding(config, args.paper, args.figure)
    raw = read_shards(args.shards, made_by)
    table = make(raw, config, fig)
    tables.write_table(table, args.out, made_by)
    return table, fig
