"""The registry: every algorithm by paper and path-safe id, with its paper name, its compiled
kernel and its plain-Python reference. The CLI, the config checks, the bench and the docs read
this one list.

Each paper plugs in through ``delayed_bandits.experiments.<paper>``, a module that provides:
``Setting`` (with ``from_config(cfg, where)``), ``draw_environment(seed, horizon, setting)``,
``ALGORITHMS`` (a list of ``Algorithm``), ``BENCH`` (a setting for the bench command) and,
optionally, ``BENCH_READINGS`` (named settings the bench measures too),
``reference_lines(figure, setting_cfg)`` for curves drawn on its figures and
``check_figure(figure_cfg, where)`` for figure-level keys of its own (raises ``ConfigError``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, Callable

import numpy as np

from delayed_bandits.errors import ConfigError

PAPERS = ("vernade2017", "pikeburke2018", "thune2019", "manegueu2020", "vernade2020", "arena")

# (setting, environment, checkpoints, policy seed) -> (pseudo-regret at checkpoints, actions,
# events): events is a side table of the run (e.g. ODAAF's phase ends) or None.
Runner = Callable[[Any, Any, np.ndarray, int], tuple[np.ndarray, np.ndarray, Any]]


@dataclass(frozen=True)
class Algorithm:
    """One policy: ``kernel`` is what runs, ``reference`` is what readers audit and tests compare."""

    id: str
    label: str
    description: str
    kernel: Runner
    reference: Runner
    # What the algorithm needs of a setting: an error message when the setting lacks it, else "".
    precondition: Callable[[Any], str] = lambda setting: ""
    # Where the algorithm's model does not cover a setting (e.g. it assumes a delay law the setting
    # does not have): the reason, else "". Unlike a failed ``precondition``, which is a config
    # error, such a curve is not run and is reported as not applicable; only figures with
    # ``simulate_jobs: per_setting`` may have one (``config.validate``).
    applies: Callable[[Any], str] = lambda setting: ""


@cache
def experiment(paper: str) -> ModuleType:
    """The plug-in module of a paper; the error lists the papers we have."""
    if paper not in PAPERS:
        raise ConfigError(f"paper {paper!r} is not one of {', '.join(PAPERS)}")
    return importlib.import_module(f"delayed_bandits.experiments.{paper}")


def registry(paper: str) -> dict[str, Algorithm]:
    return {a.id: a for a in experiment(paper).ALGORITHMS}


def get(paper: str, algorithm: str) -> Algorithm:
    """Look up an algorithm; the error lists what is allowed."""
    algos = registry(paper)
    if algorithm not in algos:
        raise ConfigError(f"algorithm {algorithm!r} is not one of {', '.join(algos)} "
                          f"(paper {paper})")
    return algos[algorithm]
