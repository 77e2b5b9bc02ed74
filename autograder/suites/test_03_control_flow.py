"""03_control_flow: `lax.cond`, `lax.fori_loop` and `lax.while_loop` under jit."""

import contextlib

import numpy as np

from autograder.suites.api import (
    Mistake,
    StudentCodeError,
    assert_not_unrolled,
    assert_uses_primitive,
    expect_jittable,
    expect_output,
    expect_trace_count,
    graded,
    hint_key,
    text,
    with_advice,
)

F32 = np.float32
I32 = np.int32


def _program_for_structure(submission, function, args, static_args, static_argnum, expected):
    """The facts of `function`'s program with `args` traced, once jit of it has given `expected`.

    Structure points come only with correct values. A student's own
    `jax.jit` object that marks this argument static cannot take it traced
    (JAX refuses to hash a tracer). That mistake is the compile-once check's
    business, so here it is traced as the student declared it instead
    (`static_args` in place of `args`), and the structure check judges the rest.
    """
    try:
        return expect_jittable(submission, function, args, expected)
    except StudentCodeError as error:
        described = error.error
        if described is None or hint_key(described.mro, described.message) != "hint.UnhashableStatic":
            raise
        try:
            return expect_jittable(submission, function, static_args, expected, static_argnums=(static_argnum,))
        except StudentCodeError:
            raise error from None


@contextlib.contextmanager
def _fix_on_error(key):
    """Add the exercise's fix (messages key) to the feedback when the student's code raises."""
    try:
        yield
    except StudentCodeError as error:
        raise with_advice(error, text(key)) from None


# --- square ----------------------------------------------------------------------

def _x(rng, sizes):
    shape = [(int(sizes.integers(3, 40)),), (int(sizes.integers(2, 6)), int(sizes.integers(2,
                                                                                           6)))][int(sizes.integers(0,
                                                                                                                    2))]
    return (rng.standard_normal(shape) * 3).astype(F32)


def _square(x, negate):
    return -np.square(x) if negate else np.square(x)


SQUARE_MISTAKES = (
    Mistake("03_control_flow.square.mistake.swapped_branches", lambda x, negate: _square(x, not negate)),
    Mistake("03_control_flow.square.mistake.not_squared", lambda x, negate: -x if negate else x.copy()),
)


@graded("square", "correct")
def test_square_correct(submission, rng, sizes):
    for negate in (True, False):
        x = _x(rng, sizes)
        expect_output(submission, "square", (x, negate), _square(x, negate), check_dtype=True,
                      mistakes=SQUARE_MISTAKES)


@graded("square", "jittable with negate traced")
def test_square_jittable(submission, rng, sizes):
    x, negate = _x(rng, sizes), np.bool_(rng.integers(0, 2))
    with _fix_on_error("03_control_flow.square.keep_traced"):
        expect_jittable(submission, "square", (x, negate), _square(x, negate))


@graded("square", "compiles once for both values of negate")
def test_square_compiles_once(submission, rng, sizes):
    x = _x(rng, sizes)
    negates = (True, False, True, False)
    with _fix_on_error("03_control_flow.square.keep_traced"):
        expect_trace_count(submission, "square", [((x, np.bool_(negate)), {}) for negate in negates],
                           [_square(x, negate) for negate in negates], 1,
                           call_sequence=text("03_control_flow.square.calls", shape=f"f32{list(x.shape)}",
                                              negates=", ".join(map(str, negates))),
                           fix=text("03_control_flow.square.keep_traced"))


@graded("square", "uses lax.cond")
def test_square_uses_cond(submission, rng, sizes):
    x = _x(rng, sizes)
    with _fix_on_error("03_control_flow.square.keep_traced"):
        facts = _program_for_structure(submission, "square", (x, np.bool_(True)), (x, True), 1, _square(x, True))
    assert_uses_primitive(facts, {"cond"}, function="square", construct="`lax.cond`",
                          why=text("03_control_flow.square.use_cond"))


# --- sum_init ----------------------------------------------------------------------

def _summands(rng, n):
    """Multiples of 1/4 of moderate size: every partial sum is exact in float32,
    so any summation order matches the reference exactly."""
    return (rng.integers(-400, 400, n) / 4).astype(F32)


def _sum_init(x, num):
    return F32(x[:num].astype(np.float64).sum())


SUM_INIT_MISTAKES = (
    Mistake("03_control_flow.sum_init.mistake.starts_at_x0", lambda x, num: _sum_init(x, num) if num else x[0]),
    Mistake("03_control_flow.sum_init.mistake.last_entries",
            lambda x, num: F32(x[len(x) - num:].astype(np.float64).sum())),
    Mistake("03_control_flow.sum_init.mistake.one_more", lambda x, num: _sum_init(x, num + 1)),
    Mistake("03_control_flow.sum_init.mistake.counted", lambda x, num: F32(num)),
)


@graded("sum_init", "correct")
def test_sum_init_correct(submission, rng, sizes):
    for _ in range(3):
        x = _summands(rng, int(sizes.integers(5, 50)))
        num = int(sizes.integers(1, len(x)))  # a loop count: compile-time in a plain call
        expect_output(submission, "sum_init", (x, num), _sum_init(x, num), check_dtype=True,
                      mistakes=SUM_INIT_MISTAKES)


@graded("sum_init", "num = 0 and num = len(x)")
def test_sum_init_edges(submission, rng, sizes):
    x = _summands(rng, int(sizes.integers(5, 50)))
    x[0] = rng.integers(1, 400) / 4  # a nonzero first entry, so a sum that starts at x[0] shows
    for num in (0, len(x)):
        expect_output(submission, "sum_init", (x, num), _sum_init(x, num), check_dtype=True,
                      mistakes=SUM_INIT_MISTAKES)


@graded("sum_init", "compiles once for many num")
def test_sum_init_compiles_once(submission, rng, sizes):
    x = _summands(rng, int(sizes.integers(10, 50)))
    nums = [0, len(x), *(int(n) for n in rng.choice(np.arange(1, len(x)), 4, replace=False))]
    with _fix_on_error("03_control_flow.sum_init.keep_traced"):
        expect_trace_count(submission, "sum_init", [((x, num), {}) for num in nums], [_sum_init(x,
                                                                                                num) for num in nums],
                           1, call_sequence=text("03_control_flow.sum_init.calls", shape=f"f32[{len(x)}]",
                                                   nums=", ".join(map(str, nums))),
                           fix=text("03_control_flow.sum_init.keep_traced"))


@graded("sum_init", "program size independent of len(x)")
def test_sum_init_not_unrolled(submission, rng):
    # Sizes drawn per run (from the run's hidden seed): a program cannot be tuned to them.
    n_small, n_large = int(rng.integers(6, 13)), int(rng.integers(48, 97))
    num = int(rng.integers(1, n_small))  # the same num at both sizes: only len(x) changes
    facts = []
    for n in (n_small, n_large):
        x = _summands(rng, n)
        with _fix_on_error("03_control_flow.sum_init.keep_traced"):
            facts.append(_program_for_structure(submission, "sum_init", (x, I32(num)), (x, num), 1, _sum_init(x, num)))
    assert_not_unrolled(*facts, function="sum_init", n_small=n_small, n_large=n_large,
                        fix=text("03_control_flow.sum_init.unrolled_fix"))


@graded("sum_init", "uses lax.fori_loop")
def test_sum_init_uses_fori_loop(submission, rng, sizes):
    x = _summands(rng, int(sizes.integers(5, 50)))
    num = int(rng.integers(1, len(x)))
    with _fix_on_error("03_control_flow.sum_init.keep_traced"):
        facts = _program_for_structure(submission, "sum_init", (x, I32(num)), (x, num), 1, _sum_init(x, num))
    # fori_loop lowers to `while` with a traced bound and to `scan` with Python-int bounds.
    assert_uses_primitive(facts, {"while", "scan"}, function="sum_init", construct="`lax.fori_loop`",
                          why=text("03_control_flow.sum_init.use_fori_loop"))


# --- power_iteration -----------------------------------------------------------------

def _symmetric_positive(rng, sizes):
    """Symmetric with positive entries: a simple, well-separated dominant eigenvalue
    (Perron), so the recurrence is well conditioned in float32."""
    n = int(sizes.integers(3, 16))
    b = rng.uniform(0.1, 1.0, (n, n))
    return ((b + b.T) / 2).astype(F32)


def _power_iteration(a, num_iters, *, start_normalized=True, normalize_first=False):
    a64 = a.astype(np.float64)
    v = np.ones(len(a)) / (np.sqrt(len(a)) if start_normalized else 1.0)
    for _ in range(num_iters):
        if normalize_first:
            v = a64 @ (v / np.linalg.norm(v))
        else:
            v = a64 @ v
            v = v / np.linalg.norm(v)
    return v.astype(F32)


POWER_ITERATION_MISTAKES = (
    Mistake("03_control_flow.power_iteration.mistake.normalize_first",
            lambda a, num_iters: _power_iteration(a, num_iters, normalize_first=True)),
    Mistake("03_control_flow.power_iteration.mistake.unnormalized_start",
            lambda a, num_iters: _power_iteration(a, num_iters, start_normalized=False)),
    Mistake("03_control_flow.power_iteration.mistake.start_vector", lambda a, num_iters: _power_iteration(a, 0)),
)


@graded("power_iteration", "correct")
def test_power_iteration_correct(submission, rng, sizes):
    # Loop counts of plain calls are compile-time for a concrete fori_loop: drawn like sizes.
    for num_iters in (0, 1, 2, int(sizes.integers(3, 8)), int(sizes.integers(15, 40))):
        a = _symmetric_positive(rng, sizes)
        expect_output(submission, "power_iteration", (a, num_iters), _power_iteration(a, num_iters),
                      check_dtype=True, rtol=1e-4, atol=1e-5, mistakes=POWER_ITERATION_MISTAKES)


@graded("power_iteration", "compiles once for many num_iters")
def test_power_iteration_compiles_once(submission, rng, sizes):
    a = _symmetric_positive(rng, sizes)
    counts = [0, *(int(k) for k in rng.choice(np.arange(1, 30), 4, replace=False))]
    with _fix_on_error("03_control_flow.power_iteration.keep_traced"):
        expect_trace_count(submission, "power_iteration", [((a, k), {}) for k in counts],
                           [_power_iteration(a, k) for k in counts], 1, rtol=1e-4, atol=1e-5,
                           call_sequence=text("03_control_flow.power_iteration.calls", shape=f"f32[{len(a)}, {len(a)}]",
                                              counts=", ".join(map(str, counts))),
                           fix=text("03_control_flow.power_iteration.keep_traced"))


# --- collatz_steps -------------------------------------------------------------------

def _collatz(n):
    n, steps = int(n), 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return I32(steps)


def _always_halved(n):
    """The steps of a loop that halves n at every step, odd values too, until n <= 1; None where they are the
    right count (a power of 2), which names nothing."""
    steps = max(int(n).bit_length() - 1, 0)
    return None if steps == _collatz(n) else I32(steps)


COLLATZ_MISTAKES = (Mistake("03_control_flow.collatz_steps.mistake.always_halved", _always_halved),)


def _steps_dtype_hint(steps):
    """The int32 advice, only when the steps' dtype is what is wrong."""
    return None if np.asarray(steps).dtype == I32 else text("03_control_flow.collatz_steps.dtype")


def _starts(rng, count):
    return rng.integers(2, 5000, count).astype(I32)


@graded("collatz_steps", "correct")
def test_collatz_steps_correct(submission, rng):
    for n in (I32(1), I32(6), *_starts(rng, 5)):
        expect_output(submission, "collatz_steps", (n,), _collatz(n), exact=True, check_dtype=True,
                      hint=_steps_dtype_hint, mistakes=COLLATZ_MISTAKES)


@graded("collatz_steps", "jittable")
def test_collatz_steps_jittable(submission, rng):
    n = _starts(rng, 1)[0]
    expect_jittable(submission, "collatz_steps", (n,), _collatz(n))


@graded("collatz_steps", "works under vmap")
def test_collatz_steps_vmap(submission, rng, sizes):
    ns = np.concatenate([np.array([1, 6], I32), _starts(rng, int(sizes.integers(10, 30)))])
    rng.shuffle(ns)
    expect_output(submission, "collatz_steps", (ns,), np.array([_collatz(n) for n in ns]), exact=True, mode="vmap")


@graded("collatz_steps", "uses lax.while_loop")
def test_collatz_steps_uses_while_loop(submission, rng):
    n = _starts(rng, 1)[0]
    facts = expect_jittable(submission, "collatz_steps", (n,), _collatz(n), exact=True)
    assert_uses_primitive(facts, {"while"}, function="collatz_steps", construct="`lax.while_loop`",
                          why=text("03_control_flow.collatz_steps.use_while_loop"))
