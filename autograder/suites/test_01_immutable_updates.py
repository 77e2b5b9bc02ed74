"""01_immutable_updates: functional updates with `x.at[...]`."""

import numpy as np

from autograder.suites.api import Mistake, assert_not_unrolled, expect_jittable, expect_output, graded, text

F32 = np.float32


def _vector(rng, sizes, low=5, high=40):
    return rng.standard_normal(int(sizes.integers(low, high))).astype(F32)


def _square(rng, n):
    return rng.standard_normal((n, n)).astype(F32)


def _set(x, index, value):
    out = x.copy()
    out[index] = value
    return out


def _added_at(x, index, value):
    out = x.copy()
    out[index] += value
    return out


SET_ELEMENT_MISTAKES = (
    Mistake("01_immutable_updates.set_element.mistake.added", _added_at),
    Mistake("01_immutable_updates.set_element.mistake.unchanged", lambda x, index, value: x.copy()),
)


# --- set_element ---------------------------------------------------------------

@graded("set_element", "correct")
def test_set_element_correct(submission, rng, sizes):
    for _ in range(3):
        x = _vector(rng, sizes)
        index = int(rng.integers(0, len(x)))
        value = F32(rng.standard_normal())
        expect_output(submission, "set_element", (x, index, value), _set(x, index, value),
                      mistakes=SET_ELEMENT_MISTAKES)


@graded("set_element", "negative index")
def test_set_element_negative_index(submission, rng, sizes):
    x = _vector(rng, sizes)
    index = -int(rng.integers(1, len(x) + 1))
    value = F32(rng.standard_normal())
    expect_output(submission, "set_element", (x, index, value), _set(x, index, value),
                      mistakes=SET_ELEMENT_MISTAKES)


@graded("set_element", "jittable with index and value traced")
def test_set_element_jittable(submission, rng, sizes):
    x = _vector(rng, sizes)
    index = np.int32(rng.integers(-len(x), len(x)))
    value = F32(rng.standard_normal())
    expect_jittable(submission, "set_element", (x, index, value), _set(x, int(index), value))


@graded("set_element", "dtype of x kept")
def test_set_element_dtype_kept(submission, rng, sizes):
    x = rng.integers(-50, 50, int(sizes.integers(5, 20))).astype(np.int32)
    index = int(rng.integers(0, len(x)))
    value = F32(rng.integers(-50, 50))
    expect_output(submission, "set_element", (x, index, value), _set(x, index, value), exact=True, check_dtype=True,
                  hint=_kept_dtype_hint(x.dtype), mistakes=SET_ELEMENT_MISTAKES)


def _kept_dtype_hint(dtype):
    """The dtype advice, only when the output's dtype is what is wrong."""
    return lambda out: None if np.asarray(out).dtype == dtype else text("01_immutable_updates.set_element.dtype")


# --- set_diagonal --------------------------------------------------------------

def _with_diagonal(m, values):
    out = m.copy()
    np.fill_diagonal(out, values)
    return out


def _added_to_diagonal(m, values):
    return m + np.diag(np.broadcast_to(values, (len(m),))).astype(m.dtype)


def _rows_replaced(m, values):
    """`m.at[idx].set(values)` with one index array: every row replaced by the values."""
    return np.broadcast_to(np.asarray(values, dtype=m.dtype), m.shape).copy()


SET_DIAGONAL_MISTAKES = (
    Mistake("01_immutable_updates.set_diagonal.mistake.added", _added_to_diagonal),
    Mistake("01_immutable_updates.set_diagonal.mistake.rows", _rows_replaced),
    Mistake("01_immutable_updates.set_diagonal.mistake.zeros", lambda m, values: np.zeros_like(m)),
)


@graded("set_diagonal", "correct with a vector of values")
def test_set_diagonal_vector(submission, rng, sizes):
    n = int(sizes.integers(3, 12))
    m, values = _square(rng, n), rng.standard_normal(n).astype(F32)
    expect_output(submission, "set_diagonal", (m, values), _with_diagonal(m, values), mistakes=SET_DIAGONAL_MISTAKES)


@graded("set_diagonal", "correct with a scalar value")
def test_set_diagonal_scalar(submission, rng, sizes):
    n = int(sizes.integers(3, 12))
    m, value = _square(rng, n), F32(rng.standard_normal())
    expect_output(submission, "set_diagonal", (m, value), _with_diagonal(m, value), mistakes=SET_DIAGONAL_MISTAKES)


@graded("set_diagonal", "jittable")
def test_set_diagonal_jittable(submission, rng, sizes):
    n = int(sizes.integers(3, 12))
    m, values = _square(rng, n), rng.standard_normal(n).astype(F32)
    expect_jittable(submission, "set_diagonal", (m, values), _with_diagonal(m, values))


def _jitted_set_diagonal(submission, rng, n):
    m, values = _square(rng, n), rng.standard_normal(n).astype(F32)
    return expect_jittable(submission, "set_diagonal", (m, values), _with_diagonal(m, values))


@graded("set_diagonal", "no Python loop over the diagonal")
def test_set_diagonal_not_unrolled(submission, rng):
    # Sizes drawn per run (from the run's hidden seed), never the same two: a program cannot be tuned to them.
    n_small, n_large = int(rng.integers(3, 9)), int(rng.integers(40, 97))
    small, large = (_jitted_set_diagonal(submission, rng, n) for n in (n_small, n_large))
    assert_not_unrolled(small, large, function="set_diagonal", n_small=n_small, n_large=n_large,
                        fix=text("01_immutable_updates.set_diagonal.unrolled_fix"))


# --- histogram -----------------------------------------------------------------

def _counts(indices, num_bins):
    return np.bincount(indices, minlength=num_bins).astype(np.int32)


def _dtype_hint(counts):
    """The int32 advice, only when the counts' dtype is what is wrong."""
    return None if np.asarray(counts).dtype == np.int32 else text("01_immutable_updates.histogram.dtype")


HISTOGRAM_MISTAKES = (
    Mistake("01_immutable_updates.histogram.mistake.set_one",
            lambda indices, num_bins: (_counts(indices, num_bins) > 0).astype(np.int32)),
    Mistake("01_immutable_updates.histogram.mistake.nothing_counted",
            lambda indices, num_bins: np.zeros(num_bins, np.int32)),
)


@graded("histogram", "correct")
def test_histogram_correct(submission, rng, sizes):
    # Distinct indices: this check is about shape, dtype and placement only.
    num_bins = int(sizes.integers(6, 30))
    indices = rng.permutation(num_bins)[: int(sizes.integers(1, num_bins))].astype(np.int32)
    expect_output(submission, "histogram", (indices, num_bins), _counts(indices, num_bins), exact=True,
                  check_dtype=True, hint=_dtype_hint, mistakes=HISTOGRAM_MISTAKES)


@graded("histogram", "duplicates counted")
def test_histogram_duplicates(submission, rng, sizes):
    num_bins = int(sizes.integers(3, 8))
    indices = rng.integers(0, num_bins, int(sizes.integers(40, 120))).astype(np.int32)
    expect_output(submission, "histogram", (indices, num_bins), _counts(indices, num_bins), exact=True,
                  mistakes=HISTOGRAM_MISTAKES)


@graded("histogram", "jittable with num_bins static")
def test_histogram_jittable(submission, rng, sizes):
    num_bins = int(sizes.integers(3, 10))
    indices = rng.integers(0, num_bins, 50).astype(np.int32)
    expect_jittable(submission, "histogram", (indices, num_bins), _counts(indices, num_bins), exact=True,
                    static_argnums=(1,), mistakes=HISTOGRAM_MISTAKES)


# --- swap_rows -----------------------------------------------------------------

def _swapped(m, i, j):
    out = m.copy()
    out[[i, j]] = m[[j, i]]
    return out


def _overwritten(m, i, j):
    """Row i written first, then row j copied from the already changed row i: both hold m[j]."""
    out = m.copy()
    out[i] = m[j]
    out[j] = out[i]
    return out


SWAP_ROWS_MISTAKES = (
    Mistake("01_immutable_updates.swap_rows.mistake.overwritten", _overwritten),
    Mistake("01_immutable_updates.swap_rows.mistake.zeros", lambda m, i, j: np.zeros_like(m)),
)


def _matrix(rng, sizes):
    return rng.standard_normal((int(sizes.integers(3, 10)), int(sizes.integers(2, 6)))).astype(F32)


@graded("swap_rows", "correct")
def test_swap_rows_correct(submission, rng, sizes):
    for _ in range(2):
        m = _matrix(rng, sizes)
        i, j = (int(v) for v in rng.choice(len(m), 2, replace=False))
        expect_output(submission, "swap_rows", (m, i, j), _swapped(m, i, j), exact=True,
                      mistakes=SWAP_ROWS_MISTAKES)


@graded("swap_rows", "i == j leaves m unchanged")
def test_swap_rows_same_row(submission, rng, sizes):
    m = _matrix(rng, sizes)
    i = int(rng.integers(0, len(m)))
    expect_output(submission, "swap_rows", (m, i, i), m, exact=True)


@graded("swap_rows", "jittable with i and j traced")
def test_swap_rows_jittable(submission, rng, sizes):
    m = _matrix(rng, sizes)
    i, j = (np.int32(v) for v in rng.choice(len(m), 2, replace=False))
    expect_jittable(submission, "swap_rows", (m, i, j), _swapped(m, int(i), int(j)), exact=True,
                    mistakes=SWAP_ROWS_MISTAKES)
