"""What a wrong value is, next to the right one: relations that hold on every entry the check compared.

A known mistake (check/known_mistakes.py) is declared by a suite with its
reference. The relations here need no declaration: they read only the
student's output, the expected one and the call's arguments, and say how the
two are related when one relation accounts for every entry compared: a
constant added (to the value, or inside a log or a square root), a scale, a clip
from below, one entry too many, axes swapped,
the order reversed, the sign flipped, NaN where the value is defined, an elementwise function
too many or too few, a step taken only part of the way or a multiple of it, values in 64 bits where JAX computes
32. Each is said as an observation in the student's terms with what code
usually produces it, never as the cause: the evidence is the values, however
the code that produced them was written.

A relation is only said when the evidence is more than a coincidence: it must
account for at least two entries that differ (a single scalar fits a constant
offset, a scale and a partial step all at once), except where its form leaves
no freedom (0 expected and a tiny positive value returned; a step of a round
fraction such as 0.1 of the way), and the reference must not satisfy it too.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

from autograder.catalog import messages
from autograder.catalog.message_ref import joined
from autograder.check.compare import leaves

# Entries closer than this (relative and absolute, on float64 copies) count as the same value; a little
# looser than the float32 check, since the student computed in float32 and the reference in float64.
RTOL, ATOL = 1e-4, 1e-5
# A value at most this large returned where 0 is expected reads as an eps or a clip.
SMALL = 1e-2
# The fractions a step size or damping is usually written with: 1/d, and m/d for these d.
ROUND_DENOMINATORS = (2, 4, 5, 10, 20)


@dataclasses.dataclass(frozen=True)
class Found:
    """A relation found: the catalog key of its sentence and the fields that fill it."""

    key: str
    fields: dict[str, str]

    def sentence(self) -> str:
        return messages.text(self.key, **self.fields)


def relation_hint(actual: Any, expected: Any, args: Sequence[Any] = (), devices: int | None = None) -> str | None:
    """The sentence of the first relation between the first differing output leaf and its reference, or None.

    Args:
        actual: what the student's function returned (NumPy arrays, Python scalars, in a pytree).
        expected: the reference, in the same structure.
        args: the call's positional arguments (a partial step starts from one of them; the first axis of an
            argument of two or more axes is a batch).
        devices: how many devices the call ran on, when the check spreads work over several: a factor equal
            to it is said to be the device count.
    """
    wrapped = _wrapped(actual, expected)
    if wrapped is not None:
        return wrapped.sentence()
    pair = _first_differingleaves(actual, expected)
    if pair is None:
        return None
    got, want = pair
    # A start is a float argument (or a leaf of one, such as a parameter) of the output's shape; a count such
    # as num_steps is none.
    starts = [np.asarray(a, dtype=np.float64) for a in leaves(list(args))
              if _numeric(a) and np.asarray(a).dtype.kind == "f" and np.shape(a) == want.shape]
    counts = _counts(args, devices)
    for finder in FINDERS:
        try:
            found = finder(got, want, starts)
        except (ValueError, TypeError, FloatingPointError):  # a relation undefined here says nothing
            found = None
        if found is not None:
            return _with_count(found, counts)
    found = _one_entry_scaled_by_count(got, want, counts)
    return _with_count(found, counts) if found is not None else None


# A count is named as the factor only from this size up: a factor of 2 is as often a missing 1/2 (the
# derivative of a square) as a sum over 2 devices or examples.
MIN_COUNT = 3


def _counts(args: Sequence[Any], devices: int | None) -> dict[str, int]:
    """The counts a factor is matched to, by the catalog key that names them: the devices (when several),
    and the batch: the first axis of the call's array arguments, when they all have the same length there and
    are a batch (inputs and targets, two arrays or more; or one array of examples of two or more axes)."""
    counts = {}
    if devices is not None and devices >= MIN_COUNT:
        counts["relation.count_devices"] = devices
    arrays = [a for a in args if _numeric(a) and np.ndim(a) >= 1]
    batches = {np.shape(a)[0] for a in arrays}
    if len(batches) == 1 and (len(arrays) >= 2 or np.ndim(arrays[0]) >= 2) and min(batches) >= MIN_COUNT:
        counts["relation.count_batch"] = batches.pop()
    return counts


def _with_count(found: Found, counts: dict[str, int]) -> str:
    """The relation's sentence, led, for a scale or a multiplied step whose factor (or its inverse) is exactly
    one count, by which count it is. Two counts of the same size name neither."""
    factors = {"relation.scaled": ("factor", "inverse"), "relation.step_multiplied": ("factor",)}.get(found.key, ())
    values = [float(found.fields[name]) for name in factors]
    named = [key for key, count in counts.items() if any(abs(abs(v) - count) < 1e-3 * count for v in values)]
    if len(named) != 1:
        return found.sentence()
    return joined(" ", messages.text(named[0], count=counts[named[0]]), found.sentence())


def _one_entry_scaled_by_count(got: np.ndarray, want: np.ndarray, counts: dict[str, int]) -> Found | None:
    """A value of one entry (a loss) that is exactly a count times the expected one, or 1 / count times: one
    number fits any scale, but a ratio of exactly the batch size or the device count is no coincidence."""
    if got.shape != want.shape or got.size != 1 or not counts:
        return None
    g, w = float(got.astype(np.float64).ravel()[0]), float(want.astype(np.float64).ravel()[0])
    if not (np.isfinite(g) and np.isfinite(w)) or abs(w) <= ATOL or abs(g) <= ATOL:
        return None
    ratio = g / w
    for count in counts.values():
        if abs(ratio - count) < RTOL * count or abs(1 / ratio - count) < RTOL * count:
            return Found("relation.scaled", {"factor": _number(ratio), "inverse": _number(1 / ratio)})
    return None


def _wrapped(actual: Any, expected: Any) -> Found | None:
    """A tuple or list returned where one array is expected, one of whose items is the expected value (the
    pair `jax.jvp` returns, the tuple of cotangents of a pullback)."""
    if not isinstance(actual, (tuple, list)) or isinstance(expected, (tuple, list, dict)) or not _numeric(expected):
        return None
    want = np.asarray(expected)
    for index, item in enumerate(actual):
        if _numeric(item) and np.shape(item) == want.shape and _same(np.asarray(item), want):
            return Found("relation.wrapped", {"index": str(index), "count": str(len(actual))})
    return None


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float, np.ndarray, np.generic)) and not isinstance(value, bool) and \
        np.asarray(value).dtype.kind in "iuf"


def _first_differingleaves(actual: Any, expected: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The first pair of numeric leaves that differ in dtype width, shape or values (None: none, or the
    structures differ, which the structure's own message says)."""
    got_leaves, want_leaves = leaves(actual), leaves(expected)
    if len(got_leaves) != len(want_leaves):
        return None
    for got, want in zip(got_leaves, want_leaves, strict=True):
        if not (_numeric(got) or isinstance(got, (bool, np.bool_))) or not _numeric(want):
            continue
        got, want = np.asarray(got), np.asarray(want)
        if got.dtype != want.dtype or got.shape != want.shape or not _same(got, want):
            return got, want
    return None


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a64.shape == b64.shape and bool(np.allclose(a64, b64, rtol=RTOL, atol=ATOL, equal_nan=True))


def _number(value: float) -> str:
    return f"{float(value):.4g}"


# --- The relations, most telling first ------------------------------------------------------------------
Finder = Callable[[np.ndarray, np.ndarray, list], "Found | None"]


def wider_dtype(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """float64 or int64 where JAX gives float32 or int32: computed by NumPy or Python, not jax.numpy."""
    wide = {("f", 4): 8, ("i", 4): 8, ("u", 4): 8}
    if want.dtype.kind in "fiu" and got.dtype.kind in "fiu" and got.dtype.itemsize == wide.get(
            (want.dtype.kind, want.dtype.itemsize)):
        return Found("relation.wider_dtype", {"actual": str(got.dtype), "expected": str(want.dtype)})
    return None


def not_finite_where_defined(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """NaN or inf where the expected value is finite, and right everywhere else."""
    if got.shape != want.shape:
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    bad = ~np.isfinite(g) & np.isfinite(w)
    if not bad.any() or not np.allclose(g[~bad], w[~bad], rtol=RTOL, atol=ATOL, equal_nan=True):
        return None
    return Found("relation.not_finite", {"count": str(int(bad.sum())), "size": str(g.size)})


# Functions undefined below 0 that code keeps defined at 0 by adding a small constant to their input, with the
# inverse that reads the constant back from the value at 0.
SHIFTED_INSIDE: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[float], float]]] = {
    "jnp.log": (np.log, np.exp),
    "jnp.sqrt": (np.sqrt, np.square),
}


def constant_inside(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The function of the argument plus a small constant on every entry, NaN where it is still undefined (an
    `eps` added inside a log or a square root): the constant is read from an entry where the argument is 0."""
    if got.shape != want.shape or got.size < 2:
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    for start in starts:
        at_zero = start == 0
        if not at_zero.any() or not np.all(np.isfinite(g[at_zero])):
            continue
        with np.errstate(all="ignore"):
            for name, (function, inverse) in SHIFTED_INSIDE.items():
                eps = float(inverse(float(np.median(g[at_zero]))))
                if not 0 < eps <= SMALL:
                    continue
                shifted = function(start + eps)
                if _same(g, shifted) and not _same(w, shifted):
                    return Found("relation.constant_inside", {"function": name, "offset": _number(eps)})
    return None


def one_entry_more_or_less(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The same entries with one added or dropped at either end of one axis."""
    if got.ndim != want.ndim or got.ndim == 0:
        return None
    differ = [axis for axis in range(got.ndim) if got.shape[axis] != want.shape[axis]]
    if len(differ) != 1 or abs(got.shape[differ[0]] - want.shape[differ[0]]) != 1:
        return None
    axis = differ[0]
    longer, shorter = (got, want) if got.shape[axis] > want.shape[axis] else (want, got)
    n = shorter.shape[axis]
    if n < 2:
        return None
    key = "relation.one_entry_more" if longer is got else "relation.one_entry_less"
    for index, kept in (("0", range(1, n + 1)), ("-1", range(0, n))):
        if _same(np.take(longer, kept, axis=axis), shorter):
            return Found(key, {"axis": str(axis), "index": index})
    return None


def padded_ends(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected entries with one more at each end of one axis (a "same" convolution, a padded border)."""
    if got.ndim != want.ndim or got.ndim == 0:
        return None
    differ = [axis for axis in range(got.ndim) if got.shape[axis] != want.shape[axis]]
    if len(differ) != 1 or got.shape[differ[0]] - want.shape[differ[0]] != 2 or want.shape[differ[0]] < 2:
        return None
    axis = differ[0]
    if _same(np.take(got, range(1, got.shape[axis] - 1), axis=axis), want):
        return Found("relation.padded_ends", {"axis": str(axis)})
    return None


def axes_swapped(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected array with its axes in another order (a transpose)."""
    if want.ndim < 2 or got.size != want.size or got.size < 2:
        return None
    for order in _permutations(want.ndim):
        moved = np.transpose(want, order)
        if moved.shape == got.shape and _same(got, moved) and not (moved.shape == want.shape and _same(moved, want)):
            return Found("relation.axes_swapped", {"axes": str(tuple(order))})
    return None


def _permutations(ndim: int) -> list[tuple[int, ...]]:
    import itertools

    return [order for order in itertools.permutations(range(ndim)) if order != tuple(range(ndim))]


def reversed_order(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected entries in reverse order along one axis."""
    if got.shape != want.shape or got.ndim == 0:
        return None
    for axis in range(want.ndim):
        flipped = np.flip(want, axis)
        if want.shape[axis] >= 2 and _same(got, flipped) and not _same(want, flipped):
            return Found("relation.reversed", {"axis": str(axis)})
    return None


def shifted_by_one(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected entries moved one place along an axis (the first or the last one not the expected)."""
    if got.shape != want.shape or got.ndim == 0:
        return None
    for axis in range(want.ndim):
        n = want.shape[axis]
        if n < 3:
            continue
        first, last = np.take(want, range(0, n - 1), axis=axis), np.take(want, range(1, n), axis=axis)
        if _same(first, last):
            continue  # the reference itself is the same moved by one place: nothing to tell
        # Each entry one place later than expected (the first one not the expected), or one place earlier.
        if _same(np.take(got, range(1, n), axis=axis), first) or _same(np.take(got, range(0, n - 1), axis=axis), last):
            return Found("relation.shifted", {"axis": str(axis)})
    return None


def flipped_sign(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """Minus the expected values."""
    if got.shape == want.shape and _same(got, -want) and not _same(want, -want):
        return Found("relation.flipped_sign", {})
    return None


def scaled(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected values times one constant (a sum for a mean, a count of devices or of the batch)."""
    if got.shape != want.shape:
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    nonzero = np.abs(w) > ATOL
    if nonzero.sum() < 2 or not np.all(np.abs(g[~nonzero]) <= ATOL):
        return None
    ratios = g[nonzero] / w[nonzero]
    factor = float(np.median(ratios))
    if abs(factor - 1) < 1e-3 or abs(factor) < 1e-6 or not _same(g, factor * w):
        return None
    return Found("relation.scaled", {"factor": _number(factor), "inverse": _number(1 / factor)})


def offset(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected values plus one constant on every entry (an eps added)."""
    if got.shape != want.shape or got.size < 2:
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    shift = float(np.median(g - w))
    if not np.isfinite(shift) or _same(w + shift, w) or not _same(g, w + shift):
        return None
    return Found("relation.offset", {"offset": _number(shift)})


def floored(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected values raised to a small floor where they are below it (a clip, a maximum, an eps)."""
    if got.shape != want.shape:
        return None
    g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
    if not (np.all(np.isfinite(g)) and np.all(np.isfinite(w))):
        return None
    changed = ~np.isclose(g, w, rtol=RTOL, atol=ATOL)
    floor = float(g[changed].min()) if changed.any() else 0.0
    if not changed.any() or not np.allclose(g[changed], floor, rtol=RTOL, atol=ATOL) or \
            not np.all(w[changed] < floor) or not np.all(w[~changed] >= floor - ATOL):
        return None
    if changed.sum() < 2 and not (np.all(w[changed] == 0) and 0 < floor <= SMALL):
        return None
    return Found("relation.floored", {"floor": _number(floor)})


# Elementwise functions and normalisations a student adds or leaves out, by the name the sentence shows.
def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


ELEMENTWISE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "jax.nn.log_softmax": _log_softmax,
    "jax.nn.softmax": _softmax,
    "jax.nn.sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "jnp.tanh": np.tanh,
    "jax.nn.relu": lambda x: np.maximum(x, 0),
    "jnp.abs": np.abs,
    # A running sum left out (the steps of a walk, the inputs a scan passes through) or added.
    "jnp.cumsum": lambda x: np.cumsum(x, axis=-1),
    # A square root left out reads better than a square added, a log left out better than an exp added.
    "jnp.sqrt": np.sqrt,
    "jnp.square": np.square,
    "jnp.log": np.log,
    "jnp.exp": np.exp,
}


def elementwise_function(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The expected values with one elementwise function or normalisation applied, or left out."""
    if got.shape != want.shape or got.size < 2:
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    with np.errstate(all="ignore"):
        for name, function in ELEMENTWISE.items():
            applied = function(w)
            if np.all(np.isfinite(applied)) and _same(g, applied) and not _same(w, applied):
                return Found("relation.extra_function", {"function": name})
            undone = function(g)
            if np.all(np.isfinite(undone)) and _same(w, undone) and not _same(g, undone):
                return Found("relation.missing_function", {"function": name})
    return None


def partial_step(got: np.ndarray, want: np.ndarray, starts: list) -> Found | None:
    """The result moved from an argument (the start) toward the expected value by one fixed fraction of the
    way, or a whole multiple of the step (the other way: -1; a sum over d devices: d)."""
    for start in starts:
        fraction = _step_fraction(got.astype(np.float64), want.astype(np.float64), start)
        if fraction is None:
            continue
        several = int((np.abs(want.astype(np.float64) - start) > ATOL).sum()) >= 2
        if 0 < fraction < 0.999 and (several or _round(fraction)):
            return Found("relation.partial_step", {"fraction": _number(fraction)})
        whole = round(fraction)
        if whole not in (0, 1) and abs(fraction - whole) < 1e-3 and abs(whole) <= 64:
            return Found("relation.step_multiplied", {"factor": str(whole)})
    return None


def _step_fraction(g: np.ndarray, w: np.ndarray, start: np.ndarray) -> float | None:
    """The one fraction t with g = start + t (w - start) on every entry, or None."""
    moving = np.abs(w - start) > ATOL
    if not moving.any() or not np.allclose(g[~moving], w[~moving], rtol=RTOL, atol=ATOL):
        return None
    fraction = float(np.median((g[moving] - start[moving]) / (w[moving] - start[moving])))
    if not np.isfinite(fraction) or not _same(g, start + fraction * (w - start)):
        return None
    return fraction


def _round(fraction: float) -> bool:
    """1/2, 0.1, 3/4, 0.01...: a fraction written by hand, not one a wrong formula lands on."""
    return any(abs(fraction - round(fraction * d) / d) < 1e-4 for d in ROUND_DENOMINATORS)


FINDERS: tuple[Finder, ...] = (wider_dtype, not_finite_where_defined, constant_inside, one_entry_more_or_less,
                               padded_ends, axes_swapped, reversed_order, shifted_by_one, flipped_sign, partial_step,
                               scaled, floored, offset, elementwise_function)
