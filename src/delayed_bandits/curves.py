"""The curves of a figure: each (setting, algorithm) pair, the registry algorithm and the setting
config it runs (a figure's ``variants`` name parameterisations of a registry algorithm), the name
it carries on figures, and which pairs have results."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from delayed_bandits import grid
from delayed_bandits.algorithms import Algorithm, experiment, get
from delayed_bandits.errors import ConfigError


def figure(config: Mapping[str, Any], paper: str, fig: str) -> Mapping[str, Any]:
    """The experiment of one figure; the error lists the figures the config has."""
    papers = config["papers"]
    if paper not in papers:
        raise ConfigError(f"paper {paper!r} is not in the config; it has {', '.join(papers)}")
    if fig not in papers[paper]:
        raise ConfigError(
            f"figure {fig!r} is not in papers.{paper}; it has {', '.join(papers[paper])}"
        )
    return papers[paper][fig]


JOB_KINDS = ("per_figure", "per_setting", "per_curve")


def stages(stats: Mapping[str, Any], replications: int) -> tuple[int, int]:
    """(runs of the screen, runs in all) of a figure whose ``statistics`` ask for
    ``screen_runs`` of its ``replications`` (the arena's screen, then contest,
    ``delayed_bandits.arena.screening``, which reads it from here): one stage (the screen is
    everything) when ``screen_runs`` is 0 (the default, ``arena.ties.STATISTICS``: a figure
    screens only where its config asks) or at least ``replications``. Here, below the arena,
    so that the layout of every figure's shards can read it."""
    first = int(stats.get("screen_runs", 0))
    if first <= 0 or first >= replications:
        return replications, replications
    return first, replications


def first_stage(fig: Mapping[str, Any]) -> int:
    """The replications every curve of the figure runs, its shards': all its ``replications``,
    or the screen's where its ``statistics`` ask for one (``stages``; the contest runs the rest
    for the contenders alone)."""
    return stages(fig.get("statistics") or {}, int(fig["replications"]))[0]


def simulate_jobs(fig: Mapping[str, Any]) -> str:
    """What one simulation job of the figure runs (one of ``JOB_KINDS``): ``per_figure`` (every
    curve of the figure, the default: the fewest jobs), ``per_setting`` (every algorithm on one
    setting) or ``per_curve`` (one algorithm on one setting)."""
    return str(fig.get("simulate_jobs", JOB_KINDS[0]))


def resolve(
    fig: Mapping[str, Any], setting_cfg: Mapping[str, Any], algorithm: str
) -> tuple[str, dict[str, Any]]:
    """(registry id, setting config) of a curve. A figure's ``variants`` name parameterisations of
    a registry algorithm ({algorithm, label, ...}); their other keys override the setting's."""
    variant = fig.get("variants", {}).get(algorithm)
    if variant is None:
        return algorithm, dict(setting_cfg)
    params = {k: v for k, v in variant.items() if k not in ("algorithm", "label")}
    return variant["algorithm"], {**setting_cfg, **params}


def curve(
    paper: str, fig: Mapping[str, Any], setting_cfg: Mapping[str, Any], algorithm: str, where: str
) -> tuple[Algorithm, Any]:
    """The registry entry and the built setting (the plug-in's ``Setting``) of one curve;
    ``where`` is the config key that a bad setting's error names."""
    registry_id, resolved = resolve(fig, setting_cfg, algorithm)
    return get(paper, registry_id), experiment(paper).Setting.from_config(resolved, where)


def curves(paper: str, figure: str, fig: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(setting, algorithm) of every curve of the figure that has results, settings first. In a
    ``per_curve`` figure that is every pair (``config.validate`` refuses an algorithm that does
    not apply, so nothing is built here); otherwise, the pairs whose algorithm applies to the
    setting (``Algorithm.applies``)."""
    all_settings = grid.settings(fig)
    pairs = [(s, a) for s in all_settings for a in fig["algorithms"]]
    if simulate_jobs(fig) == "per_curve":
        return pairs
    kept = []
    for s, a in pairs:
        algo, built = curve(paper, fig, all_settings[s], a, f"papers.{paper}.{figure}.settings.{s}")
        if not algo.applies(built):
            kept.append((s, a))
    return kept


def check_curves(
    paper: str, figure: str, fig: Mapping[str, Any], given: Sequence[str], names: Sequence[str]
) -> None:
    """The ``--setting`` values (``given``) and ``--algorithm`` values (``names``) of a command:
    each one of the figure's, none twice; the error names the bad one and the allowed."""
    for what, values, allowed, key in (
        ("--setting", given, grid.settings(fig), "settings"),
        ("--algorithm", names, fig["algorithms"], "algorithms"),
    ):
        for name in values:
            if name not in allowed:
                raise ConfigError(
                    f"{what} {name!r} is not one of {', '.join(allowed)} "
                    f"(papers.{paper}.{figure}.{key})"
                )
        twice = sorted({name for name in values if list(values).count(name) > 1})
        if twice:
            raise ConfigError(f"{what} {', '.join(twice)} given more than once")


def label(paper: str, fig: Mapping[str, Any], algorithm: str) -> str:
    """The name a curve carries on figures: its variant's label, else the paper's name for it."""
    variant = fig.get("variants", {}).get(algorithm)
    if variant is not None:
        return str(variant.get("label", algorithm))
    return get(paper, algorithm).label


def interpreted(paper: str, fig: Mapping[str, Any], algorithm: str) -> bool:
    """Whether the curve ``algorithm`` of the figure plays a plain-Python policy, having no
    compiled kernel (``Algorithm.interpreted``), which the resource model times apart."""
    return get(paper, resolve(fig, {}, algorithm)[0]).interpreted
