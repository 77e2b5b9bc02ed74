"""Telling float32 rounding from a wrong formula: the student's own code, run again in 64 bits.

The relations of check/value_relations.py read values only, and no value can
tell rounding from a formula that differs by a rounding-sized amount (a
cancelling expansion, a tiny eps). The code can: when the student's function,
called again on the same arguments widened to float64 under JAX's x64 mode
(child/wider_floats.py), returns the expected values to far tighter than the
check's tolerance, the formula is right and the float32 result lost its
digits to rounding (a difference of nearly equal numbers, a finite
difference, `exp(x) - 1`, `log(1 + x)`). That is an observation of what the
code did, so it is never a false cause. It is only looked for once the
values are wrong and no other relation accounts for them, so a correct
submission never pays for the second call.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from autograder.catalog import messages
from autograder.check.compare import assert_same_structure, leaves
from autograder.check.submission import StudentCodeError, Submission

# Agreement asked of the 64-bit run: ten times tighter than the float32 checks' 1e-5 (a reference recorded in
# float32 is itself within 6e-8 of the float64 one), so the float32 miss is the rounding's alone.
RTOL, ATOL = 1e-6, 1e-8
# The call options a second call keeps (a "jit" call runs plain: the same values, computed in the child).
_KEPT = ("mode", "in_axes", "argnums")


def rounding_hint(submission: Submission, function: str, args: Sequence[Any], kwargs: dict[str, Any],
                  expected: Any, options: dict[str, Any]) -> str | None:
    """The "float32 rounding" relation's sentence when `function` in 64 bits returns `expected`, else None.

    Args:
        submission: the student's submission, to call the function again.
        function: the function whose values were wrong.
        args, kwargs: the call's arguments, as the failed check passed them.
        expected: the reference output.
        options: the failed call's `call_with` options (its mode, `in_axes`, `argnums`).
    """
    if not submission.answers_in_64_bits:
        return None
    wanted = [np.asarray(leaf) for leaf in leaves(expected)]
    if not wanted or not all(leaf.dtype.kind == "f" for leaf in wanted):
        return None
    if not any(np.asarray(leaf).dtype == np.float32 for leaf in leaves([list(args), kwargs]) if _array(leaf)):
        return None  # nothing to widen: a second call would compute the same thing
    kept = {name: value for name, value in options.items() if name in _KEPT}
    try:
        wide = submission.call_with(function, args, kwargs, wider_floats=True, **kept)
    except (StudentCodeError, AssertionError):  # it fails in 64 bits: nothing to learn from it
        return None
    try:
        assert_same_structure(wide, expected, call=function)
    except AssertionError:
        return None  # another structure (a list of the right leaves, say): not a matter of rounding
    pairs = list(zip((np.asarray(leaf) for leaf in leaves(wide)), wanted, strict=True))
    if any(g.shape != w.shape or g.dtype != np.float64 for g, w in pairs):
        return None  # not computed in 64 bits (a cast to float32 inside)
    if not all(np.allclose(g, w.astype(np.float64), rtol=RTOL, atol=ATOL) for g, w in pairs):
        return None
    return messages.text("relation.float32_rounding")


def _array(leaf: Any) -> bool:
    return isinstance(leaf, (np.ndarray, np.generic))
