"""The settings of a figure: each listed setting (``settings``), repeated once per value of the
figure's ``sweep`` or per combination of its ``grid``'s values, the subset an overlay keeps
with ``only`` (``selected``), and how a run of a subset states it (``scale``, ``title``).

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
    each value sets (``axis_values``), but for a value the axis' ``only_with`` keeps to some
    listed settings (``_joins``); otherwise once, as listed."""
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
            if _joins(fig, name, tuple(part for part, _ in combo))
        }
    return {Point(name): dict(cfg) for name, cfg in listed.items()}


def _joins(fig: Mapping[str, Any], listed: str, names: tuple[str, ...]) -> bool:
    """Whether the listed setting ``listed`` crosses the grid values ``names`` (one per axis):
    always, but where an axis' ``only_with`` keeps its value to some settings (the arena's
    K = 50 on a few laws). Its entries name listed settings or other axes' values, grouped and
    matched as ``only``'s are: entries of one group unite, groups intersect."""
    axes = fig.get("grid") or ()
    for axis, name in zip(axes, names):
        entries = set((axis.get("only_with") or {}).get(name, ()))
        if not entries:
            continue
        groups = [(listed, entries & set(fig["settings"]))] + [
            (other, entries & set(other_axis["names"]))
            for other_axis, other in zip(axes, names)
            if other_axis is not axis
        ]
        if any(kept and value not in kept for value, kept in groups):
            return False
    return True


def selected(fig: Mapping[str, Any]) -> dict[Point, dict[str, Any]]:
    """The settings of ``expand`` the figure's ``only`` keeps (every one without ``only``): a
    setting id entry keeps its setting; the other entries are grouped by what they name (the
    listed settings, or the value names of one grid axis: ``only_groups``), and a setting is kept
    when, in every group that has entries, it matches one of them. Entries of one group unite,
    groups intersect, and the ids unite with the result: ``[geometric100, pareto1, K10]`` keeps
    the K = 10 settings of geometric100 and of pareto1."""
    only = fig.get("only")
    every = expand(fig)
    if not only:
        return every
    ids, groups = only_groups(fig)
    return {
        p: cfg
        for p, cfg in every.items()
        if p.id in ids or (groups and all(_matches(p, what, names) for what, names in groups))
    }


def only_groups(fig: Mapping[str, Any]) -> tuple[set[str], list[tuple[int | None, set[str]]]]:
    """The entries of the figure's ``only`` that are setting ids, and the others grouped by what
    they name: ``(None, listed settings)``, then ``(i, value names of grid axis i)`` per axis, in
    the grid's order, each group only when it has entries. An entry naming a value on two axes
    is in both groups; an entry naming nothing is in none (``check_only`` refuses it)."""
    only = list(fig.get("only") or ())
    every = list(expand(fig))
    ids = {p.id for p in every} & set(only)
    rest = [entry for entry in only if entry not in ids]
    groups: list[tuple[int | None, set[str]]] = []
    listed = {entry for entry in rest if entry in fig["settings"]}
    if listed:
        groups.append((None, listed))
    for i, axis in enumerate(fig.get("grid") or ()):
        named = {entry for entry in rest if entry not in listed and entry in axis["names"]}
        if named:
            groups.append((i, named))
    return ids, groups


def _matches(p: Point, what: int | None, names: set[str]) -> bool:
    """Whether the point's listed setting (``what`` None) or its value on grid axis ``what`` is
    one of ``names``."""
    return (p.listed if what is None else p.names[what]) in names


def points(fig: Mapping[str, Any]) -> dict[str, Point]:
    """The figure's settings (``selected``), as points by id."""
    return {p.id: p for p in selected(fig)}


def settings(fig: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The config of each of the figure's settings (``selected``), by id."""
    return {p.id: cfg for p, cfg in selected(fig).items()}


def point(fig: Mapping[str, Any], setting: str) -> Point:
    """The point of the setting id ``setting`` of the figure, whatever its ``only``; the error
    lists the figure's setting ids. Read from the id's parts (``Point.id``) and checked against
    the figure, without expanding it: the seeds ask for it once per curve."""
    sweep, axes = fig.get("sweep"), fig.get("grid") or ()
    # a listed setting's id may hold "-" itself: the parts after it are the last ones
    listed, *parts = setting.rsplit("-", 1 if sweep else len(axes)) if sweep or axes else [setting]
    found: Point | None = None
    if listed in fig["settings"]:
        if sweep:
            if len(parts) == 1 and parts[0].isdigit() and int(parts[0]) < len(sweep["values"]):
                found = Point(listed, index=int(parts[0]))
        elif len(parts) == len(axes):
            names = tuple(parts)
            if all(n in a["names"] for a, n in zip(axes, names)) and _joins(fig, listed, names):
                found = Point(listed, names=names)
    if found is None or found.id != setting:
        ids = [p.id for p in expand(fig)]
        raise ConfigError(f"setting {setting!r} is not one of {', '.join(ids)}")
    return found


def axis_values(axis: Mapping[str, Any], value: Any) -> dict[str, Any]:
    """The setting keys one grid value sets: ``{key: value}``, or, for an axis whose ``key`` is a
    list (values that move together, e.g. a base rate and its gaps), one entry per key."""
    keys = axis["key"]
    return dict(zip(keys, value)) if isinstance(keys, list) else {keys: value}


def check_only(fig: Mapping[str, Any], where: str, given_as: str = "") -> None:
    """``only`` (an overlay's subset of a figure's settings): each entry names a setting id, a
    listed setting or a grid value's name, and together (``selected``) they leave at least one
    setting. The error names ``given_as`` (a command's option that selects settings the same
    way), else the config key ``<where>.only``."""
    only = fig.get("only")
    if not only:
        return
    every = list(expand(fig))
    ids = {p.id for p in every}
    names = {name for p in every for name in p.names} - ids - set(fig["settings"])
    unknown = [entry for entry in only if entry not in ids | set(fig["settings"]) | names]
    key = given_as or f"{where}.only"
    if unknown:
        raise ConfigError(
            f"{key}: no setting of the figure is named {', '.join(map(repr, unknown))}; "
            f"allowed: a setting id, a listed setting ({', '.join(fig['settings'])}) or a grid "
            f"value's name ({', '.join(sorted(names))})"
        )
    if not selected(fig):
        _, groups = only_groups(fig)
        raise ConfigError(
            f"{key}: [{', '.join(only)}] selects no setting: "
            f"{' ∩ '.join(_group_name(fig, what) for what, _ in groups)} is empty; allowed: "
            "entries whose groups (the listed settings, each grid axis's value names) share a "
            "setting, or setting ids"
        )


def _group_name(fig: Mapping[str, Any], what: int | None) -> str:
    """A group of ``only_groups`` in an error: ``settings``, or the key of its grid axis."""
    if what is None:
        return "settings"
    key = fig["grid"][what]["key"]
    return "+".join(key) if isinstance(key, list) else str(key)


def _subset(fig: Mapping[str, Any]) -> str:
    """What the figure's ``only`` keeps, when it keeps fewer settings than the figure has:
    ``a subset: <n> of <N> settings (only: <entries>)``; "" when it keeps every one."""
    if not fig.get("only"):
        return ""  # nothing to expand: a figure drawn from a bare config may list no settings
    kept, every = len(selected(fig)), len(expand(fig))
    if kept == every:
        return ""
    return f"a subset: {kept} of {every} settings (only: {', '.join(fig['only'])})"


def scale(
    name: str, figs: Mapping[str, Mapping[str, Any]] | None = None, prose: bool = False
) -> str:
    """How a run states its scale, where ``name`` is its config's ``scale`` (``paper``, ``smoke``,
    ``full``...; a name has no space) and ``figs`` the figures it speaks for, by how a reader
    names them (``arena regret``): ``name`` when each keeps every setting, else ``<name> scale,
    a subset: <n> of <N> settings (only: <entries>)``, each subset figure named when ``figs``
    has several (``<name> scale, arena regret: a subset: ...; arena window: a subset: ...``).
    ``prose``: as a phrase, ``<name> scale`` for a complete run. ``name`` may be a label this
    function made (a digest's ``scale``): it is returned as it is."""
    if " " in name:  # a label already worded: a name has no space (the schema's pattern)
        return name
    subsets = {title: _subset(fig) for title, fig in (figs or {}).items()}
    subsets = {title: words for title, words in subsets.items() if words}
    if not subsets:
        return f"{name} scale" if prose else name
    if len(figs or {}) == 1:
        return f"{name} scale, {next(iter(subsets.values()))}"
    return f"{name} scale, " + "; ".join(f"{title}: {words}" for title, words in subsets.items())


def caption(fig: Mapping[str, Any]) -> str:
    """The figure's ``caption`` on one line, followed by ``A subset: ...`` when its ``only``
    keeps a subset of its settings (``title``'s reason)."""
    words = _subset(fig)
    text = " ".join(str(fig.get("caption", "")).split())
    return text + (f" {words[0].upper()}{words[1:]}." if words else "")


def title(fig: Mapping[str, Any], default: str = "") -> str:
    """The figure's ``title`` (``default`` without one), followed by ``; a subset: ...`` when its
    ``only`` keeps a subset of its settings: a title may state the scale ("standard scale"),
    which would otherwise read as the complete figure's."""
    words = _subset(fig)
    return fig.get("title", default) + (f"; {words}" if words else "")


def horizon(fig: Mapping[str, Any], setting_cfg: Mapping[str, Any]) -> int:
    """T of a setting: its own ``horizon`` if it has one, else the figure's."""
    return int(setting_cfg.get("horizon", fig["horizon"]))
