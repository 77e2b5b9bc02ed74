"""Running a student's function once more with 64-bit floats, in the child, on any JAX of the supported range.

A value that is wrong in float32 and right when the same code computes in
float64 is wrong by rounding, not by its formula (check/rounding_relation.py
says so). JAX computes in 64 bits only in its x64 mode: a context manager
that JAX 0.8 and later expose as `jax.enable_x64(True)` and older releases
as `jax.experimental.enable_x64()` (student/jax_support.py lists the
differences).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np


def x64_mode() -> contextlib.AbstractContextManager[Any]:
    """JAX's x64 mode for the block: float64 and int64 arrays are kept, not narrowed to 32 bits."""
    import jax

    enable = getattr(jax, "enable_x64", None)
    if callable(enable):
        return enable(True)
    from jax import experimental  # before 0.8

    return experimental.enable_x64()  # type: ignore[attr-defined]


def widened(value: Any) -> Any:
    """`value` with every float32 array (or scalar) as float64; the rest (ints, keys, Python numbers) as it is.

    Call inside `x64_mode`, where a float64 array stays float64.
    """
    import jax

    def widen(leaf: Any) -> Any:
        if isinstance(leaf, (np.ndarray, np.generic, jax.Array)) and str(leaf.dtype) == "float32":
            return jax.device_put(np.asarray(leaf, dtype=np.float64))
        return leaf

    return jax.tree.map(widen, value)
