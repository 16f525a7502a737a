"""The settings of a figure: each listed setting (``settings``), repeated once per value of the
figure's ``sweep`` or per combination of its ``grid``'s values, and the subset an overlay keeps
with ``only``.

Each setting is a ``Point``: the listed setting it repeats and where it stands along the sweep or
on each axis of the grid. Its id is made from the point and never read back: what needs a
setting's listed setting or its grid values' names takes them from the point (``points``)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Mapping

from delayed_bandits.errors import ConfigError


@dataclass(frozen=True)
class Point:
    """One setting of a figure: ``listed``, the id of the setting under ``settings`` it repeats;
    ``index``, the position of its value in the sweep's ``values`` (None without a sweep);
    ``names``, the name of its value on each axis of the grid, in the grid's order (none without
    a grid)."""

    listed: str
    index: int | None = None
    names: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``<listed>``, ``<listed>-<index>`` (two digits at least) along a sweep, or
        ``<listed>-<name>-<name>...`` on a grid: a path component of the shards and part of the
        seeds (``seeds.setting_entropy``), so it never changes for a setting that exists."""
        sweep = () if self.index is None else (f"{self.index:02d}",)
        return "-".join((self.listed, *sweep, *self.names))


def expand(fig: Mapping[str, Any]) -> dict[Point, dict[str, Any]]:
    """Every setting of the figure, whatever its ``only``, with its config, in order: each listed
    setting once per value of a ``sweep`` ({key, values}), with ``key`` set to it; otherwise once
    per combination of the values of a ``grid`` (a list of {key, values, names}: a list, so that a
    smoke config's grid replaces the full one rather than being merged into it), with the keys
    each value sets (``axis_values``); otherwise once, as listed."""
    listed = fig["settings"]
    sweep, grid = fig.get("sweep"), fig.get("grid")
    if sweep:
        return {
            Point(name, index=i): {**cfg, sweep["key"]: value}
            for name, cfg in listed.items()
            for i, value in enumerate(sweep["values"])
        }
    if grid:
        axes = [list(zip(axis["names"], axis["values"])) for axis in grid]
        return {
            Point(name, names=tuple(part for part, _ in combo)): {
                **cfg,
                **{
                    key: value
                    for axis, (_, value) in zip(grid, combo)
                    for key, value in axis_values(axis, value).items()
                },
            }
            for name, cfg in listed.items()
            for combo in itertools.product(*axes)
        }
    return {Point(name): dict(cfg) for name, cfg in listed.items()}


def selected(fig: Mapping[str, Any]) -> dict[Point, dict[str, Any]]:
    """The settings of ``expand`` an entry of the figure's ``only`` names (its id, its listed
    setting or the name of one of its grid values); every one without ``only``."""
    only = set(fig.get("only") or ())
    return {
        p: cfg
        for p, cfg in expand(fig).items()
        if not only or p.id in only or p.listed in only or not only.isdisjoint(p.names)
    }


def points(fig: Mapping[str, Any]) -> dict[str, Point]:
    """The figure's settings (``selected``), as points by id."""
    return {p.id: p for p in selected(fig)}


def settings(fig: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The config of each of the figure's settings (``selected``), by id."""
    return {p.id: cfg for p, cfg in selected(fig).items()}


def point(fig: Mapping[str, Any], setting: str) -> Point:
    """The point of the setting id ``setting`` of the figure, whatever its ``only``; the error
    lists the figure's setting ids."""
    found = {p.id: p for p in expand(fig)}
    if setting not in found:
        raise ConfigError(f"setting {setting!r} is not one of {', '.join(found)}")
    return found[setting]


def axis_values(axis: Mapping[str, Any], value: Any) -> dict[str, Any]:
    """The setting keys one grid value sets: ``{key: value}``, or, for an axis whose ``key`` is a
    list (values that move together, e.g. a base rate and its gaps), one entry per key."""
    keys = axis["key"]
    return dict(zip(keys, value)) if isinstance(keys, list) else {keys: value}


def check_only(fig: Mapping[str, Any], where: str, given_as: str = "") -> None:
    """``only`` (an overlay's subset of a figure's settings): each entry names a setting id, a
    listed setting or a grid value's name, and together they leave at least one setting. The
    error names ``given_as`` (a command's option that selects settings the same way), else the
    config key ``<where>.only``."""
    only = fig.get("only")
    if not only:
        return
    every = list(expand(fig))
    ids = {p.id for p in every}
    names = {name for p in every for name in p.names} - ids - set(fig["settings"])
    unknown = [entry for entry in only if entry not in ids | set(fig["settings"]) | names]
    if unknown:
        raise ConfigError(
            f"{given_as or where + '.only'}: no setting of the figure is named {', '.join(map(repr, unknown))}; "
            f"allowed: a setting id, a listed setting ({', '.join(fig['settings'])}) or a grid "
            f"value's name ({', '.join(sorted(names))})"
        )


def horizon(fig: Mapping[str, Any], setting_cfg: Mapping[str, Any]) -> int:
    """T of a setting: its own ``horizon`` if it has one, else the figure's."""
    return int(setting_cfg.get("horizon", fig["horizon"]))
