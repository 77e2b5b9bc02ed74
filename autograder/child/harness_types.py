"""What an assignment's harnesses are made of (child/harnesses.py finds them): the Harness a module declares,
and the helper that runs a derivative of a derivative as one program. Kept apart, so that an assignment's
module (child/harnesses_<assignment>.py) imports it without importing the registry that imports it.
"""

from __future__ import annotations

import dataclasses
from typing import Callable


def jitted_else_as_is(function: Callable, *args):
    """function(*args) under jax.jit, or as it is if it cannot be traced.

    For values only, where a harness computes a derivative of a derivative: eagerly, nested transformations
    run one operation at a time, and XLA compiled 60 small programs for one Hessian, most of a first check
    of 09 or 07. Under jax.jit, one. Whether the student's function can be traced is judged by a check of
    its own; one that cannot is called as it is, and its values judged the same way.
    """
    import jax

    try:
        return jax.jit(function)(*args)
    except Exception:
        return function(*args)


@dataclasses.dataclass(frozen=True)
class Harness:
    """A wrapper the kit puts around a student's function, and how feedback shows a call made through it.

    `shown` is the call as the student would write it, a format string over `function` (the student's
    function), `named` (the first argument, the name of a kit function the harness hands on), `rest`
    (the other arguments, described by dtype and shape) and `arguments` (all of them, described). So no
    feedback names `function@harness`, which no student can define or call.
    """

    wraps: frozenset[str]
    build: Callable[[Callable], Callable]
    shown: str
