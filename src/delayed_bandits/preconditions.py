"""What a compiled kernel indexes, declared once per paper (``Inputs``), and the one function that
checks it before the kernel runs (``check``).

numba compiles without bounds checks: a kernel handed an array of the wrong shape, a delay beyond
the window it sized its buffers by, or a horizon of 0 writes outside its arrays and corrupts
memory, or crashes the process, instead of refusing (docs/decisions/engineering.md#preconditions).
Each paper's experiment declares the arrays its kernels read (``INPUTS``: where each is found,
its dtype, its shape in named sizes, its range) and any rule the shapes cannot state (``rules``:
e.g. a kernel sized by the window m sees no conversion later than m);
``algorithms.Algorithm`` checks them, with the algorithm's ``applies`` and ``precondition``, on
every call of its kernel, raising ``errors.KernelInputError`` (``NotApplicable`` where the
setting is outside its model) that names the kernel, the argument and what is allowed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from delayed_bandits.errors import KernelInputError

KINDS = {"f": "float", "i": "signed integer", "u": "unsigned integer", "b": "bool"}
"""numpy's dtype kinds, as the errors name them."""

MINIMUM = {"T": 1, "K": 2}
"""The least value of a named size: a horizon of at least one round, at least two arms. Any other
size (the dimension d, ...) is at least 1."""


@dataclass(frozen=True)
class Array:
    """One array a kernel indexes: where it is read from the runner's arguments (a dotted path
    from ``setting`` or ``env``, e.g. ``env.uniforms``), the dtype kinds allowed (``KINDS``), its
    shape in named sizes (``T`` rounds, ``K`` arms, ...: one name has one value across the
    arrays), and the closed range its values must lie in (None: unbounded; floats must also be
    finite)."""

    path: str
    kinds: str
    shape: tuple[str, ...]
    low: float | None = None
    high: float | None = None


Rule = Callable[[Any, Any], str]
# (setting, env) -> what is wrong, naming the argument and what is allowed; "" when it holds


@dataclass(frozen=True)
class Inputs:
    """The declared preconditions of a paper's kernels: its arrays, and the rules the shapes do
    not state."""

    arrays: tuple[Array, ...]
    rules: tuple[Rule, ...] = ()


def _read(path: str, setting: Any, env: Any) -> Any:
    root, *attributes = path.split(".")
    value = {"setting": setting, "env": env}[root]
    for attribute in attributes:
        value = getattr(value, attribute)
    return value


def _array(who: str, spec: Array, value: Any, sizes: dict[str, int]) -> None:
    """``KernelInputError`` when ``value`` is not the array ``spec`` declares; binds the named
    sizes of its shape in ``sizes``."""
    allowed = " or ".join(KINDS[k] for k in spec.kinds)
    named = f"{who}: argument {spec.path}"
    if not isinstance(value, np.ndarray):
        raise KernelInputError(f"{named} is a {type(value).__name__}; allowed: a numpy array")
    if value.dtype.kind not in spec.kinds:
        raise KernelInputError(f"{named} has dtype {value.dtype}; allowed: {allowed}")
    if value.ndim != len(spec.shape):
        raise KernelInputError(
            f"{named} has shape {value.shape}; allowed: {len(spec.shape)} dimensions "
            f"({', '.join(spec.shape)})"
        )
    for name, size in zip(spec.shape, value.shape):
        if sizes.setdefault(name, size) != size:
            raise KernelInputError(
                f"{named} has {name} = {size} (shape {value.shape}); allowed: {name} = "
                f"{sizes[name]}, as the arrays before it"
            )
        if size < MINIMUM.get(name, 1):
            raise KernelInputError(
                f"{named} has {name} = {size}; allowed: {name} >= {MINIMUM.get(name, 1)}"
            )
    if value.size == 0:
        return
    low, high = value.min(), value.max()  # a NaN propagates to both: two passes, no copy
    if value.dtype.kind == "f" and not (np.isfinite(low) and np.isfinite(high)):
        raise KernelInputError(f"{named} holds a NaN or an infinity; allowed: finite values")
    if (spec.low is not None and low < spec.low) or (spec.high is not None and high > spec.high):
        raise KernelInputError(
            f"{named} holds values in [{low}, {high}]; allowed: "
            f"[{'-inf' if spec.low is None else spec.low}, "
            f"{'inf' if spec.high is None else spec.high}]"
        )


def checkpoints(who: str, cp: Any, horizon: int) -> None:
    """``KernelInputError`` unless ``cp`` is a non-empty, strictly increasing integer array of
    rounds in 1..``horizon``: the kernels record the regret at ``cp[i] - 1``."""
    ok = (
        isinstance(cp, np.ndarray)
        and cp.ndim == 1
        and cp.size > 0
        and cp.dtype.kind in "iu"
        and bool((np.diff(cp) > 0).all())
        and 1 <= cp[0]
        and cp[-1] <= horizon
    )
    if not ok:
        raise KernelInputError(
            f"{who}: argument checkpoints is {cp!r}; allowed: a non-empty, strictly increasing "
            f"integer array of rounds in 1..{horizon} (the horizon T)"
        )


def check(who: str, inputs: Inputs, setting: Any, env: Any, cp: Any, seed: Any) -> None:
    """``KernelInputError`` naming ``who`` (the kernel), the argument and what is allowed when a
    runner's arguments break ``inputs``: each declared array, the checkpoints (rounds in 1..T
    when T is declared), the policy seed (an integer >= 0) and each rule."""
    sizes: dict[str, int] = {}
    for spec in inputs.arrays:
        _array(who, spec, _read(spec.path, setting, env), sizes)
    if "T" in sizes:
        checkpoints(who, cp, sizes["T"])
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise KernelInputError(
            f"{who}: argument seed is {seed!r}; allowed: an integer >= 0 (the policy seed)"
        )
    for rule in inputs.rules:
        wrong = rule(setting, env)
        if wrong:
            raise KernelInputError(f"{who}: {wrong}")


def within(path: str, bound: Callable[[Any, Any], int], what: str) -> Rule:
    """A rule: every value of the integer array at ``path`` is at most ``bound(setting, env)``
    (``what`` names the bound), where a kernel sizes a buffer by it."""

    def rule(setting: Any, env: Any) -> str:
        values, limit = _read(path, setting, env), int(bound(setting, env))
        if values.size and values.max() > limit:
            return f"argument {path} holds {values.max()}; allowed: at most {what} = {limit}"
        return ""

    return rule


def at_least(path: str, least: int) -> Rule:
    """A rule: the integer at ``path`` (e.g. a window) is at least ``least``."""

    def rule(setting: Any, env: Any) -> str:
        value = _read(path, setting, env)
        if value is not None and int(value) < least:
            return f"argument {path} is {value}; allowed: at least {least}"
        return ""

    return rule


NO_INPUTS = Inputs(())
"""The declaration of a runner that reads nothing a compiled kernel indexes (a plain-Python
reference, uniform play): only its checkpoints and seed are checked."""
