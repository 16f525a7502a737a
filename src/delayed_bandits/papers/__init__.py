"""The papers we reproduce, one folder each, and the registry that finds them.

``papers/<paper>/`` holds everything of one paper:

- ``__init__.py``: its registration, ``PAPER = Paper(...)`` (light: the workflow reads it when it
  builds the DAG, so it imports nothing heavy);
- ``experiment.py``: the setting, the environment and the algorithms (the ``Experiment`` contract
  below), with ``policies.py`` (plain-Python references, straight from the paper's pseudocode)
  and ``kernels.py`` (the compiled versions the runs use);
- ``analysis.py`` (optional): what the claims and plots both compute from the tables;
- ``claims.py``: ``CHECKS``, the claims of each figure; ``findings.py``: ``FINDINGS``, the
  paper's statements those claims test (``delayed_bandits.findings``); ``plots.py`` (optional):
  ``PLOTS``, the paper's own kinds of figure; ``cli.py`` (optional): its own commands of ``delayed-bandits``;
- ``schema.yaml``: the keys of its figures in the config.

Every list of papers derives from this registry: the seeds' paper ids, the resource model's
rates, the config schema's ``papers`` section and its algorithm and kind enums, the workflow's
per-paper targets. A new paper is a new folder; nothing else needs to name it
(``tests/test_registry.py`` adds a toy paper that way, from outside the package:
``$DELAYED_BANDITS_PAPERS``).

The arena (``delayed_bandits.arena``) is registered as a paper is, but is no folder of this one:
it runs every paper's algorithms, so it sits a layer above them (``tests/test_layers.py``), and
the registry loads it by name, as it loads the plug-ins (``BUILT_IN``).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from delayed_bandits.errors import ConfigError
from delayed_bandits.kindtype import Kind
from delayed_bandits.yamlio import read_yaml


class Experiment(Protocol):
    """What ``papers/<paper>/experiment.py`` provides: the contract the simulation, the config
    checks and the bench rely on. Optional too: ``BENCH_READINGS`` (named settings the bench also
    measures), ``reference_lines(figure, setting_cfg)`` (curves drawn on the regret figures) and
    ``check_figure(fig, where)`` (figure-level keys of its own; raises ``ConfigError``), and a
    built setting's ``n_arms`` (K, which the resource estimate counts; 1 without it)."""

    Setting: Any  # a class with ``from_config(cfg, where)``, which raises ConfigError
    ALGORITHMS: Sequence[Any]  # of ``algorithms.Algorithm``
    BENCH: Any  # a Setting the bench command runs

    def draw_environment(self, seed: np.random.SeedSequence, horizon: int, setting: Any) -> Any:
        """One realisation of the environment, shared by every algorithm of a replication."""


@dataclass(frozen=True)
class Paper:
    """The registration of one paper: who it is, and how fast its kernels run."""

    id: str
    """Path-safe id: the config's key under ``papers``, and ``results/<id>/...``."""
    seed_id: int
    """Its part of every seed (``seeds.setting_entropy``); never change it: every number would."""
    title: str
    """Authors, venue and what is reproduced: the schema's description of its config section."""
    figure_ids: str
    """Pattern of its figure ids in the config (e.g. ``^fig[0-9]+\\Z``: ``\\Z``, not ``$``,
    which also matches before a final line break)."""
    steps_per_second: int
    """Agent-steps per second of its slowest (setting, algorithm) job at its largest horizon,
    measured and rounded down; it asks for run time (``resources.simulation``)."""
    shard_steps_per_second: int
    """The typical rate of one whole figure's job, which sizes ``shard_size: auto`` shards
    (``resources.auto_shard_size``)."""
    kinds: tuple[Kind, ...] = ()
    """The kinds of figure it draws besides the generic regret curves (``kindtype.Kind``)."""
    extra_targets: tuple[str, ...] = ()
    reproduces: bool = True
    """Whether its claims test a paper's statements (reproductions, counted in the papers'
    verdicts); False for the arena, whose claims are its own, counted apart and labelled with
    no paper (``claims.to_markdown``)."""
    """Outputs of its own rules (``workflow/rules/<id>.smk``) that ``snakemake <id>`` also makes."""
    package: str = field(default="", compare=False)
    """Where its modules are (default: ``delayed_bandits.papers.<id>``)."""

    @property
    def module(self) -> str:
        return self.package or f"{__name__}.{self.id}"

    def experiment(self) -> Experiment:
        module: Any = importlib.import_module(f"{self.module}.experiment")
        return module

    def _optional(self, name: str) -> ModuleType | None:
        try:
            return importlib.import_module(f"{self.module}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{self.module}.{name}":
                raise  # a module that fails to import is a bug, not a paper without one
            return None

    def checks(self) -> Mapping[str, Any]:
        """Its claims, by figure id (``claims.CHECKS``; none when it has no claims module)."""
        module = self._optional("claims")
        return module.CHECKS if module else {}

    def findings(self) -> Sequence[Any]:
        """Its findings, one statement of the paper each (``findings.FINDINGS``; none when it has
        no findings module)."""
        module = self._optional("findings")
        return module.FINDINGS if module else ()

    def plots(self) -> Mapping[str, Any]:
        """Its own kinds of figure, by kind (``plots.PLOTS``; none when it has no plots module)."""
        module = self._optional("plots")
        return module.PLOTS if module else {}

    def commands(self) -> ModuleType | None:
        """Its own commands of ``delayed-bandits``, beside the generic ones: its ``cli`` module
        (``add_commands`` and ``TABLES``, which ``cli._add_package_commands`` describes; none
        when it has no cli module)."""
        return self._optional("cli")

    def schema(self) -> dict[str, Any]:
        """Its figures' schema (``schema.yaml`` beside its modules)."""
        return read_yaml(resources.files(self.module).joinpath("schema.yaml").read_text())


BUILT_IN = ("delayed_bandits.arena",)
"""The packages of this distribution registered as papers from outside this folder, each with a
``PAPER`` whose ``package`` names it: imported by name, so that the registry imports no module
above it."""

PLUGINS = "DELAYED_BANDITS_PAPERS"
"""Environment variable: comma-separated packages kept outside this folder (importable, e.g.
through ``PYTHONPATH``), each with a ``PAPER`` whose ``package`` names it, or ``ENTRANTS``, arena
algorithms of one's own (``arena.entrants``), or both."""


def plugins() -> list[ModuleType]:
    """The packages named in ``$DELAYED_BANDITS_PAPERS``, imported."""
    names = [n.strip() for n in os.environ.get(PLUGINS, "").split(",") if n.strip()]
    return [_import_plugin(name) for name in names]


def _import_plugin(name: str) -> ModuleType:
    """A package of ``$DELAYED_BANDITS_PAPERS``; a failure to import it names the variable and
    the package, whatever the package raised."""
    try:
        return importlib.import_module(name)
    except Exception as exc:
        raise ConfigError(
            f"${PLUGINS} names the package {name!r}, which failed to import: "
            f"{type(exc).__name__}: {exc}; fix the package or remove it from ${PLUGINS} "
            f"(now {os.environ.get(PLUGINS)!r})"
        ) from exc


@cache
def registered() -> dict[str, Paper]:
    """Every registered paper, by id, in the order of their seed ids: the packages in this folder,
    those of ``BUILT_IN`` and those named in ``$DELAYED_BANDITS_PAPERS``. Ids and seed ids must be
    unique, so that no paper can change another's numbers."""
    names = [f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__) if m.ispkg]
    names += BUILT_IN
    modules = [importlib.import_module(name) for name in names] + plugins()
    found = sorted((m.PAPER for m in modules if hasattr(m, "PAPER")), key=lambda p: p.seed_id)
    for key in ("id", "seed_id"):
        values = [getattr(p, key) for p in found]
        clash = sorted({v for v in values if values.count(v) > 1})
        if clash:
            raise ConfigError(
                f"papers {', '.join(p.id for p in found)}: {key} {clash} is taken "
                "twice; each paper needs its own"
            )
    return {p.id: p for p in found}


def ids() -> tuple[str, ...]:
    return tuple(registered())


def get(paper: str) -> Paper:
    """The registration of ``paper``; the error lists the papers there are."""
    papers = registered()
    if paper not in papers:
        raise ConfigError(f"paper {paper!r} is not one of {', '.join(papers)}")
    return papers[paper]
