"""Jittability through tracing.

`jax.make_jaxpr` traces even when the submission sets `jax_disable_jit`, so
"jittable" cannot be faked by turning jit off.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax


def trace_jaxpr(
    fn: Callable,
    args: Sequence[Any],
    kwargs: dict[str, Any] | None = None,
    static_argnums: Sequence[int] = (),
    static_argnames: Sequence[str] = (),
):
    """Trace `fn(*args, **kwargs)` with all non-static arguments abstract.

    Returns the ClosedJaxpr; raises whatever JAX raises for untraceable code.
    Static keyword arguments are bound before tracing because make_jaxpr has
    no static_argnames.
    """
    kwargs = dict(kwargs or {})
    static_kwargs = {name: kwargs.pop(name) for name in static_argnames if name in kwargs}
    traced_kwargs = kwargs

    def bound(*positional, **rest):
        return fn(*positional, **rest, **static_kwargs)

    return jax.make_jaxpr(bound, static_argnums=tuple(static_argnums))(*args, **traced_kwargs)
