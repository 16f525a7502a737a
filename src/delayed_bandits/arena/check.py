"""Hold an entrant's kernel to its reference over whole runs: ``delayed-bandits check-entrant``.

The kernel test (``tests/test_kernel_equals_reference.py``) compares a few hundred rounds of each
registered algorithm on the bench's setting; a kernel that departs from its policy only once its
counts grow, or on one delay law, passes it. This check plays the kernel and the reference on the
arena's own replications (``replay.drawn``: the seeds and the draw of ``simulate.run_job``) over
the full horizon, on settings of the arena's figure, and names the first round that differs
(``replay.compare``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

from delayed_bandits import algorithms, grid, papers
from delayed_bandits import curves as cv
from delayed_bandits.arena.entrants import Entrant
from delayed_bandits.arena.problem import Setting
from delayed_bandits.arena.replay import PAPER, Mismatch, compare, drawn
from delayed_bandits.errors import ConfigError


def entrant(name: str) -> Entrant:
    """The arena's entrant ``name``; the error names it and the entrants there are, and where a
    plug-in's come from."""
    found = algorithms.registry(PAPER)
    if name not in found:
        raise ConfigError(
            f"entrant {name!r} is not one of the arena's: {', '.join(found)}. An entrant of "
            f"your own is in the ENTRANTS of a package named in ${papers.PLUGINS} (now "
            f"{os.environ.get(papers.PLUGINS, '')!r})"
        )
    found_entrant = found[name]
    assert isinstance(found_entrant, Entrant)  # the arena's algorithms are all entrants
    return found_entrant


def compared(entrant: Entrant) -> bool:
    """Whether the entrant has a kernel of its own to hold to its reference (an entrant declared
    without ``kernel=`` runs its reference: there is nothing to compare)."""
    return entrant.kernel is not entrant.reference


def default_settings(fig: Mapping[str, Any], entrant: Entrant) -> list[str]:
    """The settings checked when none are named: for each delay law's kind (uniform, geometric,
    Pareto, per arm, empirical, packet loss) without and with censoring, and with 0s delayed by
    a law of their own (reward-dependent delays), at each base rate (a kernel may depart from its
    policy on low rates only), the first of the figure's settings with the most arms where the
    entrant applies: every path a kernel takes through the delays and the window, where the arms
    are many enough for its choices to matter."""
    chosen: dict[tuple[str, bool, bool, float], tuple[str, int]] = {}
    for name, cfg in grid.settings(fig).items():
        st = Setting.from_config(cfg, name)
        if entrant.applies(st) or entrant.precondition(st):
            continue
        key = (
            str(cfg["delay"]["kind"]),
            st.censored,
            st.reward_dependent,
            float(cfg["base_mean"]),
        )
        if key not in chosen or st.n_arms > chosen[key][1]:
            chosen[key] = (name, st.n_arms)
    return [name for name, _ in chosen.values()]


def named_settings(fig: Mapping[str, Any], given: Sequence[str], where: str) -> list[str]:
    """The figure's settings that ``given`` names, as an overlay's ``only`` names them (a setting
    id, a listed setting or a grid value's name: ``grid.selected``); the error names the bad one
    and what is allowed."""
    subset = {**fig, "only": list(given)}
    grid.check_only(subset, "", where)
    return list(grid.settings(subset))


@dataclass(frozen=True)
class Checked:
    """One setting checked: its id, its horizon, the replications compared, and the first
    difference (``replay.Mismatch``'s message), or why it was not run; "" for neither."""

    setting: str
    horizon: int
    replications: int
    mismatch: str = ""
    skipped: str = ""

    def line(self) -> str:
        """What ``check-entrant`` prints of it."""
        if self.skipped:
            return f"{self.setting}: not run: {self.skipped}"
        if self.mismatch:
            return f"{self.setting}: DIFFERS: {self.mismatch}"
        return (
            f"{self.setting}: same actions over {self.horizon} rounds in "
            f"{self.replications} replication{'s' if self.replications > 1 else ''}"
        )


def check(
    config: Mapping[str, Any],
    figure: str,
    entrant: Entrant,
    settings: Sequence[str],
    replications: int,
    horizon: int | None = None,
) -> Iterator[Checked]:
    """Replications 0..``replications``-1 of ``entrant``'s kernel and reference on each of the
    figure's ``settings`` over ``horizon`` rounds (default: the setting's horizon), setting by
    setting; a setting stops at its first replication that differs. A setting where the entrant
    does not apply is skipped, with the reason."""
    fig = cv.figure(config, PAPER, figure)
    all_settings = grid.settings(fig)
    for name in settings:
        cfg = all_settings[name]
        st = Setting.from_config(cfg, f"papers.{PAPER}.{figure}.settings.{name}")
        rounds = horizon or grid.horizon(fig, cfg)
        reason = entrant.applies(st) or entrant.precondition(st)
        if reason:
            yield Checked(name, rounds, 0, skipped=reason)
            continue
        for r in range(replications):
            try:
                compare(drawn(config, figure, name, entrant, st, r, rounds))
            except Mismatch as exc:
                yield Checked(name, rounds, r + 1, mismatch=str(exc))
                break
        else:
            yield Checked(name, rounds, replications)
