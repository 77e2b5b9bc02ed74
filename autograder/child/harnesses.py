"""The kit's wrappers around a student's function: calls a request cannot express, declared by each assignment.

Only arrays, numbers and names cross into the student's process, so a check
that must hand the student's function another function (a loss for
per_example_grads, the grader's own f for 09's functions, chosen by name),
call the function a student's function returns (hessian(f)), pass one dict to two calls, or run the function as the
body of a `lax.scan` asks for `<function>@<harness>`: the executor finds the
student's `<function>` as usual and wraps it with the harness of that name.
An assignment declares its own harnesses in a module of its own beside this
one, child/harnesses_<assignment>.py (HARNESSES: name -> Harness), found by
name like the suites' catalogs, so adding one edits no shared file; the
sandbox child's view holds every such module (sandbox/os_isolation.py), and
the student package ships them (student/wheel.py). They run next to the
student's code, like the executor, and decide nothing: the parent compares
what comes back with references it computes itself. They used to live in the
notebooks' setup cells, where a student could edit them.
"""

from __future__ import annotations

from typing import Callable

from autograder.child.harness_types import Harness, jitted_else_as_is

__all__ = ["HARNESSES", "PREFIX", "Harness", "jitted_else_as_is", "wrap"]

PREFIX = "harnesses_"  # an assignment's module of harnesses: child/harnesses_<assignment>.py


def _declared() -> dict[str, Harness]:
    """Every assignment's harnesses, from the modules child/harnesses_<assignment>.py, by module name; a harness
    name two assignments declare is an error naming both."""
    import importlib
    import pkgutil

    from autograder import child

    found: dict[str, Harness] = {}
    where: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(child.__path__), key=lambda info: info.name):
        if not info.name.startswith(PREFIX):
            continue
        module = importlib.import_module(f"{child.__name__}.{info.name}")
        for name, harness in module.HARNESSES.items():
            if name in found:
                raise ValueError(f"{module.__name__} declares the harness {name!r}, which {where[name]} declares")
            found[name], where[name] = harness, module.__name__
    return found


def wrap(harness: str, function: str, student_function: Callable) -> Callable:
    """`student_function` (the student's `function`) inside `harness`; KeyError for a harness it has none of."""
    declared = HARNESSES[harness]
    if function not in declared.wraps:
        raise KeyError(f"{harness} wraps {', '.join(sorted(declared.wraps))}, not {function}")
    return declared.build(student_function)


# Each assignment's harnesses, found by name.
HARNESSES: dict[str, Harness] = _declared()
