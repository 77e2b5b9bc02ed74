"""Comparing a submission's outputs with the reference, in the trusted parent.

Each assert names the call, what was expected and what came back, in the
style of chex's asserts. Outputs arrive as NumPy arrays (see wire_format);
Python scalars are accepted where an array scalar is expected.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autograder.catalog import messages
from autograder.catalog.message_ref import joined
from autograder.check.failure import fail
from autograder.protocol import wire_format

# (rtol, atol) by dtype; docs/curriculum.md: float32 rtol 1e-5, atol 1e-6.
TOLERANCES = {
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
}


# Entries shown around the first difference of an array (they fit on one line).
EXCERPT = 6


def describe_structure(tree: Any) -> str:
    """A pytree's structure as feedback shows it: `tuple(array[3], dict(b: array[], w: array[3]))`.

    Args:
        tree: nested dicts, tuples and lists of arrays and scalars.

    Returns:
        The description.
    """
    if isinstance(tree, dict):
        return "dict(" + ", ".join(f"{k}: {describe_structure(v)}" for k, v in sorted(tree.items())) + ")"
    if isinstance(tree, tuple):
        return "tuple(" + ", ".join(describe_structure(v) for v in tree) + ")"
    if isinstance(tree, list):
        return "list(" + ", ".join(describe_structure(v) for v in tree) + ")"
    if isinstance(tree, np.ndarray):
        return f"array{list(tree.shape)}"
    return type(tree).__name__


def _structure_key(tree: Any) -> Any:
    if isinstance(tree, dict):
        return ("dict", tuple(sorted((k, _structure_key(v)) for k, v in tree.items())))
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, tuple(_structure_key(v) for v in tree))
    return "leaf"


def assert_same_structure(actual: Any, expected: Any, *, call: str) -> None:
    """Same nesting of dicts (same keys), tuples and lists; leaves not compared.

    Args:
        actual: what the student's function returned.
        expected: the reference.
        call: how feedback names the call (`describe_call`).

    Raises:
        AssertionError: the student reads "<call> returned the structure
            tuple(array[3], dict(b: array[], w: array[3])), expected ...".
    """
    if _structure_key(actual) != _structure_key(expected):
        raise fail(messages.text(
            "check.wrong_structure", call=call,
            actual=describe_structure(actual), expected=describe_structure(expected)), call=call)


def assert_close(actual: Any, expected: Any, *, call: str, rtol: float | None = None,
                 atol: float | None = None, check_dtype: bool = False) -> None:
    """Every leaf of `actual` matches `expected` in structure, shape (and dtype) and values.

    Args:
        actual: what the student's function returned.
        expected: the reference, computed in the test.
        call: how feedback names the call (`describe_call`).
        rtol: relative tolerance; None: the expected dtype's (float32 1e-5,
            float16 1e-3, bfloat16 1e-2, integers and booleans exact).
        atol: absolute tolerance; None: the expected dtype's (float32 1e-6).
        check_dtype: the dtypes must match too.

    Raises:
        AssertionError: the student reads the call, then the wrong structure,
            shape, dtype or type, or "N of M values differ (largest difference
            ...); first at [i]: got g, expected e" and the row around it, the
            differing entries starred. NaN equals NaN.
    """
    assert_same_structure(actual, expected, call=call)
    for got, want in zip(leaves(actual), leaves(expected), strict=True):
        _assert_leaf_close(got, want, call=call, rtol=rtol, atol=atol, check_dtype=check_dtype)


def assert_same_shapes(actual: Any, expected: Any, *, call: str) -> None:
    """Same structure and leaf shapes; values not compared (for random outputs).

    Args:
        actual: what the student's function returned.
        expected: anything of the expected structure and shapes.
        call: how feedback names the call.

    Raises:
        AssertionError: the student reads the wrong structure, or
            "<call> returned shape (3,), expected (3, 4)".
    """
    assert_same_structure(actual, expected, call=call)
    for got, want in zip(leaves(actual), leaves(expected), strict=True):
        got, want = _as_array(got, call), np.asarray(want)
        if got.shape != want.shape:
            raise fail(messages.text("check.wrong_shape", call=call, actual=got.shape, expected=want.shape), call=call)


def assert_equal(actual: Any, expected: Any, *, call: str, check_dtype: bool = False) -> None:
    """Exact equality of every leaf (integers, booleans, bit-exact floats): `assert_close` with no tolerance.

    Args:
        actual: what the student's function returned.
        expected: the reference.
        call: how feedback names the call.
        check_dtype: the dtypes must match too.

    Raises:
        AssertionError: as `assert_close`.
    """
    assert_close(actual, expected, call=call, rtol=0.0, atol=0.0, check_dtype=check_dtype)


def assert_dtype(actual: Any, expected_dtype: Any, *, call: str) -> None:
    """The value (an array or Python scalar) has dtype `expected_dtype`.

    Args:
        actual: what the student's function returned (one leaf).
        expected_dtype: anything `numpy.dtype` accepts.
        call: how feedback names the call.

    Raises:
        AssertionError: the student reads "<call> returned dtype int64, expected int32".
    """
    got = _as_array(actual, call)
    if got.dtype != np.dtype(expected_dtype):
        raise fail(messages.text("check.wrong_dtype", call=call, actual=got.dtype,
                                 expected=np.dtype(expected_dtype)), call=call)


def assert_all_finite(actual: Any, *, call: str) -> None:
    """No leaf holds NaN or inf (gradients at the edge of a `jnp.where`, say).

    Args:
        actual: what the student's function returned.
        call: how feedback names the call.

    Raises:
        AssertionError: the student reads "<call> returned 3 non-finite values
            (NaN or inf), expected all finite."
    """
    for leaf in leaves(actual):
        got = _as_array(leaf, call)
        bad = int(np.size(got) - np.count_nonzero(np.isfinite(got)))
        if bad:
            raise fail(messages.text("check.not_finite", call=call, count=bad), call=call)


def leaves(tree: Any) -> list:
    """The leaves of a result in the order every comparison walks them (dicts by sorted key)."""
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def _as_array(value: Any, call: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if type(value) in (bool, int, float):
        return np.asarray(value)
    raise fail(messages.text("check.wrong_type", call=call, actual=type(value).__name__, expected="an array"),
               call=call)


def _assert_leaf_close(actual: Any, expected: Any, *, call: str, rtol, atol, check_dtype: bool) -> None:
    got = _as_array(actual, call)
    want = np.asarray(expected)
    if got.shape != want.shape:
        raise fail(messages.text("check.wrong_shape", call=call, actual=got.shape, expected=want.shape), call=call)
    if check_dtype and got.dtype != want.dtype:
        raise fail(messages.text("check.wrong_dtype", call=call, actual=got.dtype, expected=want.dtype), call=call)
    default_rtol, default_atol = TOLERANCES.get(want.dtype.name, (0.0, 0.0))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if got.dtype.kind not in "biufc" and wire_format.extended_name(got) is None:  # bfloat16, float8... are numbers
        raise fail(messages.text("check.wrong_dtype", call=call, actual=got.dtype, expected=want.dtype), call=call)
    g = got.astype(np.float64) if got.dtype.kind != "c" else got
    w = want.astype(np.float64) if want.dtype.kind != "c" else want
    with np.errstate(invalid="ignore"):
        close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return
    wrong = np.argwhere(~close)
    first = tuple(int(i) for i in wrong[0])
    with np.errstate(invalid="ignore"):
        diff = np.abs(g - w)
    feedback = messages.text(
        "check.wrong_values", call=call, count=len(wrong), size=close.size,
        max_diff=float(np.nanmax(np.where(close, 0, diff))) if np.isfinite(diff[~close]).any() else float("nan"),
        rtol=rtol, atol=atol, index=first if first else "()",
        got=_number(got[first].item() if first else got.item()),
        expected=_number(want[first].item() if first else want.item()))
    if got.ndim:
        feedback = joined("\n", feedback, _excerpt(got, want, close, first))
    raise fail(feedback, call=call)


def _number(value: Any) -> str:
    """A value as a student reads it: 7 significant digits, no float noise (0.4446918, not 0.4446917772293091)."""
    if isinstance(value, bool) or isinstance(value, (int, np.integer)):
        return str(value)
    if isinstance(value, complex):
        return f"{value:.7g}"
    return f"{float(value):.7g}"


def _excerpt(got: np.ndarray, want: np.ndarray, close: np.ndarray, first: tuple[int, ...]) -> str:
    """EXCERPT entries of the row holding the first difference, got above expected, differing ones starred."""
    row = first[:-1]
    start = max(0, min(first[-1] - 1, got.shape[-1] - EXCERPT))
    stop = min(got.shape[-1], start + EXCERPT)
    cells = []
    for column in range(start, stop):
        at = (*row, column)
        mark = "" if close[at] else "*"
        cells.append((f"{mark}{_number(got[at].item())}", f"{mark}{_number(want[at].item())}"))
    width = max(len(text) for pair in cells for text in pair)
    more_before, more_after = ("… " if start else ""), (" …" if stop < got.shape[-1] else "")
    span = ", ".join([*(str(i) for i in row), f"{start}:{stop}"])
    got_row = " ".join(g.rjust(width) for g, _ in cells)
    want_row = " ".join(w.rjust(width) for _, w in cells)
    return messages.text("check.values_excerpt", span=f"[{span}]",
                         got=f"[{more_before}{got_row}{more_after}]", expected=f"[{more_before}{want_row}{more_after}]")
