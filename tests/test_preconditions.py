"""Every compiled kernel checks what it indexes before it runs (``preconditions``,
``algorithms.guarded``): an array of the wrong shape, dtype or range, a horizon of 0, one arm,
checkpoints past T, a negative seed, a window of 0, or a setting outside the algorithm's model
is refused with a named error naming the argument, where compiled code without bounds checks
would corrupt memory. Probes of docs/auditing.md's tally; the end-to-end tier plays each kernel
with numba's bounds checks on (``test_kernels_boundscheck.py``)."""

from __future__ import annotations

from dataclasses import is_dataclass, replace
from typing import Any, Callable

import numpy as np
import pytest

from delayed_bandits import algorithms, environment, seeds
from delayed_bandits import papers as registry
from delayed_bandits.arena import experiment as arena
from delayed_bandits.arena.kernels import run_km_bootstrap_kernel
from delayed_bandits.errors import KernelInputError, NotApplicable
from delayed_bandits.preconditions import Array

HORIZON = 40


def _with(obj: Any, path: list[str], value: Any) -> Any:
    """``obj`` with the attribute at ``path`` replaced by ``value`` (frozen dataclasses)."""
    if not path:
        return value
    assert is_dataclass(obj)
    return replace(obj, **{path[0]: _with(getattr(obj, path[0]), path[1:], value)})


def _call(paper: str) -> tuple[algorithms.Algorithm, Any, Any, np.ndarray]:
    """The paper's first algorithm, its bench setting and a draw of it at ``HORIZON``."""
    plugin = algorithms.experiment(paper)
    st = plugin.BENCH
    env = plugin.draw_environment(
        seeds.replication_seeds(0, paper, "bench", "bench", 0)[0], HORIZON, st
    )
    return plugin.ALGORITHMS[0], st, env, environment.checkpoint_grid(HORIZON, 4)


def _broken(spec: Array) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Each way of breaking the array ``spec`` declares, by name."""
    cases: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "dtype": lambda a: a.astype(np.int64) if "f" in spec.kinds else a.astype(np.float64),
        "dimensions": lambda a: a[..., None],
        "a list": lambda a: a.tolist(),
    }
    if spec.low is not None:
        cases["below its range"] = lambda a: np.where(
            np.arange(a.size).reshape(a.shape) == 0, a.dtype.type(spec.low - 1), a
        )
    if spec.high is not None:
        cases["above its range"] = lambda a: np.where(
            np.arange(a.size).reshape(a.shape) == 0, spec.high + 1, a
        )
    if "f" in spec.kinds:
        cases["NaN"] = lambda a: np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a)
    if spec.shape and spec.shape[0] == "T":
        cases["no rounds"] = lambda a: a[:0]
    if "K" in spec.shape:
        axis = spec.shape.index("K")
        cases["one arm"] = lambda a: np.take(a, [0], axis=axis)
    return cases


CASES = [
    (paper, spec.path, name)
    for paper in registry.ids()
    for spec in _call(paper)[0].inputs.arrays
    for name in _broken(spec)
]


@pytest.mark.probe("kernels")
@pytest.mark.parametrize(("paper", "path", "case"), CASES, ids=["-".join(c) for c in CASES])
def test_a_kernel_refuses_an_array_it_would_misread(probe, paper, path, case) -> None:
    algo, st, env, cp = _call(paper)
    spec = next(s for s in algo.inputs.arrays if s.path == path)
    root, *attributes = path.split(".")
    current: Any = env if root == "env" else st
    for attribute in attributes:
        current = getattr(current, attribute)
    value = _broken(spec)[case](current)
    if root == "env":
        env = _with(env, attributes, value)
    else:
        st = _with(st, attributes, value)
    with probe.refused(KernelInputError, f"kernel of {algo.id}: argument "):
        algo.kernel(st, env, cp, 0)


@pytest.mark.probe("kernels")
@pytest.mark.parametrize(
    ("case", "cp", "seed"),
    [
        ("past T", np.array([10, HORIZON + 1]), 0),
        ("round 0", np.array([0, 10]), 0),
        ("decreasing", np.array([20, 10]), 0),
        ("floats", np.array([10.0, 20.0]), 0),
        ("empty", np.array([], dtype=np.int64), 0),
        ("negative seed", np.array([10, 20]), -1),
        ("float seed", np.array([10, 20]), 0.5),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
@pytest.mark.parametrize("paper", registry.ids())
def test_a_kernel_refuses_checkpoints_or_a_seed_it_would_misread(
    probe, paper, case, cp, seed
) -> None:
    algo, st, env, _ = _call(paper)
    argument = "seed" if "seed" in case else "checkpoints"
    with probe.refused(KernelInputError, f"kernel of {algo.id}: argument {argument} is"):
        algo.kernel(st, env, cp, seed)


@pytest.mark.probe("kernels")
@pytest.mark.parametrize("paper", ["vernade2017", "manegueu2020", "vernade2020"])
def test_a_windowed_kernel_refuses_a_window_of_zero(probe, paper) -> None:
    algo, st, env, cp = _call(paper)
    with probe.refused(KernelInputError, "argument setting.window is 0; allowed: at least 1"):
        algo.kernel(replace(st, window=0), env, cp, 0)


@pytest.mark.probe("kernels")
def test_an_entrant_is_refused_where_it_does_not_apply(probe) -> None:
    """The bench's crash (``make bench`` aborted): ts-km's kernel, sized by the window m, on the uncensored
    reading, where a conversion later than m indexed past its table."""
    ts_km = algorithms.get("arena", "ts-km")
    _, _, env, cp = _call("arena")
    st = arena.BENCH_READINGS["uncensored"]
    with probe.refused(NotApplicable, "ts-km does not apply to this setting (uncensored"):
        ts_km.kernel(st, env, cp, 0)


@pytest.mark.probe("kernels")
def test_the_bootstrap_kernel_refuses_a_conversion_later_than_its_window(probe) -> None:
    """Its own Python caller checks what the compiled body indexes: each conversion's delay in a
    table of m + 1 cells."""
    rng = np.random.default_rng(0)
    uniforms = rng.random((HORIZON, 3))
    late = np.full((HORIZON, 3), 30, dtype=np.int64)
    with probe.refused(
        KernelInputError, "argument delays holds a conversion later than the window"
    ):
        run_km_bootstrap_kernel(np.array([0.5, 0.5, 0.9]), uniforms, late, 20, 0)


def test_the_bench_plays_each_entrant_only_where_it_applies() -> None:
    """Where an entrant does not apply, the bench leaves its row out (it used to crash)."""
    from delayed_bandits import bench

    rows = bench.run(30, 1, 1, ("arena",))
    names = {row["algorithm"] for row in rows}
    assert "ts-km" in names and "ts-km (uncensored)" not in names
    assert "ud-ucb (uncensored)" in names and "ud-ucb" not in names


def test_a_guard_wraps_its_kernel_once() -> None:
    """An algorithm rebuilt from another (``declaring``, ``dataclasses.replace``) checks once,
    and an entrant without a kernel of its own keeps one runner for both."""
    algo = algorithms.get("vernade2017", "d-ucb")
    again = replace(algo)
    assert getattr(again.kernel, "__wrapped__") is getattr(algo.kernel, "__wrapped__")
    uniform = algorithms.get("arena", "uniform")
    assert uniform.kernel is uniform.reference
