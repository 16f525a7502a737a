"""Every algorithm by paper and path-safe id, with its paper name, its compiled kernel and its
plain-Python reference. The CLI, the config checks, the bench and the docs read this one list.

Each paper's algorithms are the ``ALGORITHMS`` of its experiment module,
``delayed_bandits.papers.<paper>.experiment`` (the ``papers.Experiment`` contract).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from delayed_bandits import papers
from delayed_bandits.errors import ConfigError, KernelInputError, NotApplicable
from delayed_bandits.preconditions import NO_INPUTS, Inputs, check

# (setting, environment, checkpoints, policy seed) -> (pseudo-regret at checkpoints, actions,
# events): events is a side table of the run (e.g. ODAAF's phase ends) or None.
Runner = Callable[[Any, Any, np.ndarray, int], tuple[np.ndarray, np.ndarray, Any]]

ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
"""What an algorithm id is made of, a setting id's characters: an id is a directory name of
``per_curve`` shards and a word of the workflow's paths, so ``a/b`` or ``..`` cannot be one,
nor a name longer than a path component may be (``config.MAX_NAME``)."""


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
    # Whether its runs play a plain-Python policy round by round, having no compiled kernel (an
    # arena entrant declared without ``kernel=``): tens of times slower than a kernel, so the
    # resource model times its steps at ``resources.REFERENCE_STEPS_PER_SECOND``.
    interpreted: bool = False
    # What its kernel indexes (``preconditions.Inputs``): checked, with ``precondition`` and
    # ``applies``, before every run of ``kernel`` (``guarded``).
    inputs: Inputs = NO_INPUTS
    # Whether its jobs hold its kernel to its reference before its results count
    # (``simulate.run_job``: replication 0 of each setting, at the setting's horizon): a kernel
    # declared outside this package, which no test of ours holds to its policy.
    audited: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not ID.fullmatch(self.id):
            raise ConfigError(
                f"algorithm id {self.id!r} ({self.label!r}): an id is letters, digits, _ and - "
                f"(pattern {ID.pattern}), e.g. my-policy"
            )
        kernel = guarded(self, self.kernel)
        if self.reference is self.kernel:  # no kernel of its own: what it runs is the reference
            object.__setattr__(self, "reference", kernel)
        object.__setattr__(self, "kernel", kernel)


def guarded(algo: Algorithm, runner: Runner) -> Runner:
    """``runner`` (``algo``'s kernel), which first checks its call against what ``algo``
    declares: ``precondition`` (``KernelInputError``), ``applies`` (``NotApplicable``: callers
    play an algorithm only where it applies) and ``inputs`` (``preconditions.check``). A compiled
    kernel has no bounds checks, so a call outside them would corrupt memory instead of failing
    (docs/decisions/engineering.md#preconditions). The runner a guard wraps is kept
    (``__wrapped__``), so that an algorithm rebuilt from another (``dataclasses.replace``) is
    guarded once."""
    raw: Runner = getattr(runner, "__wrapped__", runner)
    who = f"kernel of {algo.id}"

    def run(setting: Any, env: Any, cp: np.ndarray, seed: int):
        wrong = algo.precondition(setting)
        if wrong:
            raise KernelInputError(f"{who}: {wrong}")
        reason = algo.applies(setting)
        if reason:
            raise NotApplicable(
                f"{algo.id} does not apply to this setting ({reason}); play it only where "
                "Algorithm.applies gives no reason"
            )
        check(who, algo.inputs, setting, env, cp, seed)
        return raw(setting, env, cp, seed)

    run.__wrapped__ = raw  # type: ignore[attr-defined]
    return run


def declaring(inputs: Inputs, declared: list[Algorithm]) -> list[Algorithm]:
    """The algorithms of ``declared``, their kernels guarded by ``inputs``: a paper declares
    what its kernels index once, for all of them."""
    return [replace(a, inputs=inputs) for a in declared]


def experiment(paper: str) -> papers.Experiment:
    """The experiment module of a paper; the error lists the papers we have."""
    return papers.get(paper).experiment()


def registry(paper: str) -> dict[str, Algorithm]:
    return {a.id: a for a in experiment(paper).ALGORITHMS}


def get(paper: str, algorithm: str) -> Algorithm:
    """Look up an algorithm; the error lists what is allowed."""
    algos = registry(paper)
    if algorithm not in algos:
        raise ConfigError(
            f"algorithm {algorithm!r} is not one of {', '.join(algos)} (paper {paper})"
        )
    return algos[algorithm]
