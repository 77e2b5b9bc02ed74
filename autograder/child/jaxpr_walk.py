"""Walking a jaxpr recursively, into the sub-jaxprs of jit, cond, while and scan."""

from __future__ import annotations

from typing import Iterator

from jax import core as _core_api  # noqa: F401  (keeps jax.core importable)
from jax.extend import core as jex_core


def _sub_jaxprs(params: dict) -> Iterator:
    for value in params.values():
        candidates = value if isinstance(value, (tuple, list)) else (value,)
        for candidate in candidates:
            if isinstance(candidate, jex_core.ClosedJaxpr):
                yield candidate.jaxpr
            elif isinstance(candidate, jex_core.Jaxpr):
                yield candidate


def equations(jaxpr) -> Iterator:
    """Every equation of `jaxpr` (a Jaxpr or ClosedJaxpr), sub-jaxprs included."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    for eqn in jaxpr.eqns:
        yield eqn
        for sub in _sub_jaxprs(eqn.params):
            yield from equations(sub)


def primitive_names(jaxpr) -> set[str]:
    """Names of all primitives used anywhere in `jaxpr`."""
    return {eqn.primitive.name for eqn in equations(jaxpr)}


# Equations that only wrap another function's jaxpr: `jax.jit` inside the traced function.
_WRAPPERS = frozenset({"pjit", "jit", "closed_call", "core_call"})


def outermost_primitive_names(jaxpr) -> set[str]:
    """Names of the top-level equations of `jaxpr`, looking through `jax.jit` wrappers.

    What the function *is* at its top ("a custom_jvp function"), as against what it uses somewhere inside.
    """
    names: set[str] = set()
    pending = [getattr(jaxpr, "jaxpr", jaxpr)]
    while pending:
        for eqn in pending.pop().eqns:
            subs = list(_sub_jaxprs(eqn.params))
            if eqn.primitive.name in _WRAPPERS and len(subs) == 1:
                pending.append(subs[0])
            else:
                names.add(eqn.primitive.name)
    return names
