"""What a figure's title and caption say, filled from its config: each names the figure's horizon
and run count as ``{horizon}`` and ``{replications}`` rather than typing their numbers, so that it
says what the run did at any scale (``T = {horizon}, {replications} runs``) and no number is
typed twice (tests/test_typed_numbers.py). Apart from ``grid`` so that the wording of a figure
stays out of the simulating modules' hash (``software.simulation_files``): rewording a caption
reruns no simulation."""

from __future__ import annotations

import re
from typing import Any, Mapping

from delayed_bandits import grid
from delayed_bandits.errors import ConfigError

FILLED = ("horizon", "replications", "checkpoints")
"""The figure's keys a title or caption may name as ``{key}``."""
SCALE = "scale"
"""``{scale}``: the run's scale, worded ``<name> scale``, the config key ``scale`` (``STANDARD``
for ``paper``); filled when the config is merged (``config.merged``), since a figure's own
section does not hold it."""
STANDARD = "standard"
"""How a figure's text names the scale ``paper`` (that of config/config.yaml, what ``make
figures`` runs): the arena's *standard* scale, as its digest names it."""
_FIELD = re.compile(r"\{([a-z_]+)\}")


def filled(
    fig: Mapping[str, Any], text: str, where: str = "title", scale: str | None = None
) -> str:
    """``text`` with each ``{key}`` of ``FILLED`` replaced by the figure's value (an integer with
    thousands separators) and, where ``scale`` (the config's ``scale``) is given, ``{scale}`` by
    its words; a ``{key}`` the figure does not set, or not one of these, is an error naming it
    and ``where`` (set notation such as ``{0.1, 0.5}`` is left as it is). Without ``scale``,
    ``{scale}`` stays for the merge to fill."""

    def value(m: re.Match[str]) -> str:
        key = m[1]
        if key == SCALE:
            if scale is None:
                return m[0]
            return f"{STANDARD if scale == 'paper' else scale} scale"
        if key not in FILLED or key not in fig:
            raise ConfigError(
                f"{where}: {{{key}}} is not a value this figure sets; allowed: "
                + ", ".join(f"{{{k}}}" for k in (SCALE, *FILLED) if k == SCALE or k in fig)
            )
        v = fig[key]
        return f"{v:,}" if isinstance(v, int) else str(v)

    return _FIELD.sub(value, text)


def title(fig: Mapping[str, Any], default: str = "") -> str:
    """The figure's title (``grid.title``: with the subset its ``only`` keeps), ``filled``."""
    return filled(fig, grid.title(fig, default))


def caption(fig: Mapping[str, Any]) -> str:
    """The figure's caption on one line (a folded YAML caption ends in a newline, which the
    report would show as a literal \\n), with the subset its ``only`` keeps (``grid.caption``),
    ``filled``: the report's."""
    return filled(fig, grid.caption(fig), "caption")
