"""Naming a known mistake from a wrong value, as the grader does, from the recorded variants.

At release, each known mistake a check would name at a step was computed on
the step's public inputs (student/mistake_recording.py): the record holds,
with the step, each variant's output and the catalog key that names it, in
the grader's order and with its tolerance, and, with the record, the
sentences in every language. A wrong value that equals a variant gets that
sentence as its hint, in the notebook's language, as from the grader.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autograder.check import compare
from autograder.student import recorded


def named(actual: Any, mistakes: dict | None, arrays: list[np.ndarray]) -> str | None:
    """The key of the first recorded variant `actual` equals within the recorded tolerance, or None."""
    if not mistakes:
        return None
    rtol, atol = float(mistakes["rtol"]), float(mistakes["atol"])
    for variant in mistakes.get("variants", ()):
        if _equal(actual, recorded.decode(variant["value"], arrays), rtol, atol):
            return str(variant["key"])
    return None


def _equal(actual: Any, variant: Any, rtol: float, atol: float) -> bool:
    try:
        compare.assert_close(actual, variant, call="", rtol=rtol, atol=atol)
    except (AssertionError, TypeError, ValueError):
        return False
    return True
