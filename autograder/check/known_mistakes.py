"""Naming a wrong value's exact mistake: the known wrong variants of a reference, run on the same inputs.

Beside each reference a suite declares the mistakes students make with it
(distances left squared, `selu` without its scale, the two weights of an
average swapped), each as the function that computes what code with that
mistake returns. When a student's output is wrong, the grader computes every
variant on the same hidden inputs, here in the trusted parent (a variant is
suite code, never student code), and when the output equals one of them the
hint names that mistake: the evidence is the value itself, however the code
that produced it was written. A variant that equals the reference on these
inputs proves nothing and is passed over.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

from autograder.check.compare import assert_close

# A variant is computed in float64 and the student's output in float32: compare a little looser than a check.
RTOL, ATOL = 1e-4, 1e-5


@dataclasses.dataclass(frozen=True)
class Mistake:
    """One known mistake with a function's reference.

    key: the catalog key of the sentence that names the mistake and its fix
        (English in the suite's messages module, translations in locale/*.po).
    compute: the function's arguments (positional, then keyword) -> what code
        that makes this mistake returns, in the reference's structure.
    """

    key: str
    compute: Callable[..., Any]


def named_mistake(actual: Any, expected: Any, args: Sequence[Any], kwargs: dict[str, Any],
                  mistakes: Sequence[Mistake]) -> Mistake | None:
    """The first of `mistakes` whose variant `actual` equals (and the reference does not), or None."""
    for mistake in mistakes:
        try:
            wrong = mistake.compute(*args, **kwargs)
        except Exception:  # noqa: BLE001 - a variant undefined for these inputs names nothing
            continue
        if _equal(actual, wrong) and not _equal(expected, wrong):
            return mistake
    return None


def _equal(actual: Any, variant: Any) -> bool:
    try:
        assert_close(actual, variant, call="", rtol=RTOL, atol=ATOL)
    except (AssertionError, TypeError, ValueError):
        return False
    return True
