"""04_static_args: `static_argnums` / `static_argnames` on the student's own `jax.jit`.

Here the student writes the decorator, so every call goes to their own
jitted object as it is: the checks call it plainly and count its traces.
"""

import contextlib

import numpy as np

from autograder.suites.api import (
    ErrorKind,
    Mistake,
    StudentCodeError,
    expect_jitted,
    expect_output,
    expect_raises,
    expect_trace_count,
    graded,
    text,
    with_advice,
)

F32 = np.float32


def _shape(sizes, ndim):
    return tuple(int(n) for n in sizes.integers(2, 7, ndim))


def _values(rng, shape, low=-1.5, high=1.5):
    return rng.uniform(low, high, shape).astype(F32)


@contextlib.contextmanager
def _advice(key):
    """Add the exercise's advice (a messages.py key) to a wrong result or an exception inside the block.

    Not to a missing or unimplemented function, or a timeout: their own feedback says it all.
    """
    try:
        yield
    except StudentCodeError as failure:
        error = failure.error
        if error is None or error.kind is not ErrorKind.RAISED or error.is_not_implemented:
            raise
        raise with_advice(failure, text(key)) from None
    except AssertionError as failure:
        raise with_advice(failure, text(key)) from None


# --- power ----------------------------------------------------------------------

def _power(x, n):
    result = np.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


POWER_MISTAKES = (
    Mistake("04_static_args.power.mistake.starts_from_x", lambda x, n: _power(x, n + 1)),
    Mistake("04_static_args.power.mistake.times_n", lambda x, n: x * F32(n) if n > 1 else None),  # n = 0, 1: no tell
)


@graded("power", "jitted object")
def test_power_jitted(submission, rng, sizes):
    expect_jitted(submission, "power", fix=text("04_static_args.power.decorate"))
    n = int(sizes.integers(2, 6))  # n = 1 would let x * n pass for x ** n
    x = _values(rng, _shape(sizes, 2))
    expect_output(submission, "power", (x, n), _power(x, n), mistakes=POWER_MISTAKES)


@graded("power", "correct")
def test_power_correct(submission, rng, sizes):
    for n in [*(int(n) for n in rng.choice(np.arange(1, 7), 3, replace=False)), 0]:
        x = _values(rng, _shape(sizes, int(sizes.integers(1, 3))))
        expect_output(submission, "power", (x, n), _power(x, n), check_dtype=True, mistakes=POWER_MISTAKES)


@graded("power", "traces once per distinct n")
def test_power_traces_once_per_n(submission, rng, sizes):
    a, b = (int(n) for n in rng.choice(np.arange(1, 6), 2, replace=False))
    ns = [a, a, b, b, a]
    shape = _shape(sizes, 2)
    calls = [((_values(rng, shape), n), {}) for n in ns]
    expect_trace_count(submission, "power", calls, [_power(*args) for args, _ in calls], 2, static_argnums=(1,),
                       call_sequence=text("04_static_args.power.call_sequence",
                                                   ns=", ".join(map(str, ns)), shape=shape),
                       fix=text("04_static_args.power.trace_fix"))


# --- normalize ------------------------------------------------------------------

def _normalize(x, axis):
    x64 = x.astype(np.float64)
    return (x64 / x64.sum(axis=axis, keepdims=True)).astype(F32)


NORMALIZE_MISTAKES = (
    Mistake("04_static_args.normalize.mistake.no_keepdims",
            lambda x, axis=0: (x.astype(np.float64) / x.astype(np.float64).sum(axis=axis)).astype(F32)),
    Mistake("04_static_args.normalize.mistake.whole_array",
            lambda x, axis=0: (x.astype(np.float64) / x.astype(np.float64).sum()).astype(F32)),
    Mistake("04_static_args.normalize.mistake.max",
            lambda x, axis=0: (x.astype(np.float64) / x.astype(np.float64).max(axis=axis, keepdims=True)).astype(F32)),
    Mistake("04_static_args.normalize.mistake.length", lambda x, axis=0: (x / F32(x.shape[axis])).astype(F32)),
)


def _positive(rng, shape):
    """Positive entries: no slice sums to (nearly) zero, so float32 results are well conditioned."""
    return _values(rng, shape, 0.5, 2.0)


def _axis(sizes, ndim):
    return int(sizes.integers(-ndim, ndim))


def _trailing_axis(sizes):
    """The last axis of a matrix: without keepdims the sum no longer lines up with x (axis 0 would)."""
    return int(sizes.choice([1, -1]))


@graded("normalize", "jitted object")
def test_normalize_jitted(submission, rng, sizes):
    expect_jitted(submission, "normalize", fix=text("04_static_args.normalize.decorate"))
    axis = _trailing_axis(sizes)
    x = _positive(rng, _shape(sizes, 2))
    expect_output(submission, "normalize", (x,), _normalize(x, axis), kwargs={"axis": axis},
                  mistakes=NORMALIZE_MISTAKES)


@graded("normalize", "axis static by name")
def test_normalize_axis_static_by_name(submission, rng, sizes):
    # Square input, so that both axes give results of x's shape: a wrong keepdims
    # shows in "correct", and a non-static axis fails here with the static advice.
    n = int(sizes.integers(2, 7))
    with _advice("04_static_args.normalize.static_fix"):
        for axis in rng.permutation([0, 1]):
            x = _positive(rng, (n, n))
            expect_output(submission, "normalize", (x,), _normalize(x, int(axis)), kwargs={"axis": int(axis)},
                          mistakes=NORMALIZE_MISTAKES)


@graded("normalize", "correct")
def test_normalize_correct(submission, rng, sizes):
    for ndim, axis in [(1, _axis(sizes, 1)), (2, _trailing_axis(sizes)), (3, _axis(sizes, 3))]:
        x = _positive(rng, _shape(sizes, ndim))
        expect_output(submission, "normalize", (x,), _normalize(x, axis), kwargs={"axis": axis},
                      mistakes=NORMALIZE_MISTAKES)


@graded("normalize", "correct with axis by position")
def test_normalize_axis_by_position(submission, rng, sizes):
    for ndim, axis in [(2, _trailing_axis(sizes)), (3, _axis(sizes, 3))]:
        x = _positive(rng, _shape(sizes, ndim))
        expect_output(submission, "normalize", (x, axis), _normalize(x, axis),
                      mistakes=NORMALIZE_MISTAKES)


@graded("normalize", "retraces only when axis changes")
def test_normalize_retraces_only_when_axis_changes(submission, rng, sizes):
    a, b = (int(axis) for axis in rng.permutation([0, 1]))
    axes = [a, a, b, b, a]
    n = int(sizes.integers(2, 7))
    calls = [((_positive(rng, (n, n)),), {"axis": axis}) for axis in axes]
    expect_trace_count(submission, "normalize", calls, [_normalize(args[0], kwargs["axis"]) for args, kwargs in calls],
                       2,
                       static_argnames=("axis",),
                       call_sequence=text("04_static_args.normalize.call_sequence",
                                                   axes=", ".join(map(str, axes)), shape=(n, n)),
                       fix=text("04_static_args.normalize.trace_fix"))


# --- activation -----------------------------------------------------------------

ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
}
OTHER_NAMES = ["gelu", "softplus", "swish", "elu", "leaky_relu", "softmax", "identity", "linear"]


def _activation(x, name):
    return ACTIVATIONS[name](x.astype(np.float64)).astype(F32)


def _mixed(rng, sizes):
    return _values(rng, _shape(sizes, int(sizes.integers(1, 3))), -4.0, 4.0)


@graded("activation", "jitted object")
def test_activation_jitted(submission, rng, sizes):
    expect_jitted(submission, "activation", fix=text("04_static_args.activation.decorate"))
    name, x = str(rng.choice(sorted(ACTIVATIONS))), _mixed(rng, sizes)
    expect_output(submission, "activation", (x, name), _activation(x, name))


@graded("activation", "name static")
def test_activation_name_static(submission, rng, sizes):
    name = str(rng.choice(sorted(ACTIVATIONS)))
    with _advice("04_static_args.activation.static_fix"):
        for args, kwargs in [((_mixed(rng, sizes), name), {}), ((_mixed(rng, sizes),), {"name": name})]:
            expect_output(submission, "activation", args, _activation(args[0], name), kwargs=kwargs)


@graded("activation", "correct")
def test_activation_correct(submission, rng, sizes):
    for name in rng.permutation(sorted(ACTIVATIONS)):
        x = _mixed(rng, sizes)
        expect_output(submission, "activation", (x, str(name)), _activation(x, str(name)))


@graded("activation", "ValueError for unknown names")
def test_activation_unknown_name(submission, rng, sizes):
    valid = str(rng.choice(sorted(ACTIVATIONS)))
    other_case = valid.upper() if rng.random() < 0.5 else valid.capitalize()  # names are compared exactly
    for name in [str(rng.choice(OTHER_NAMES)), other_case]:
        expect_raises(submission, "activation", (_mixed(rng, sizes), name), "ValueError", mentions=name,
                      fix=text("04_static_args.activation.unknown_fix"))


# --- run_steps ------------------------------------------------------------------

def _run_steps(x, num_steps, step=lambda x: F32(0.5) * x + F32(1.0)):
    for _ in range(num_steps):
        x = step(x)
    return x


RUN_STEPS_MISTAKES = (
    Mistake("04_static_args.run_steps.mistake.halved_sum",
            lambda x, num_steps: _run_steps(x, num_steps, lambda x: F32(0.5) * (x + F32(1.0)))),
    Mistake("04_static_args.run_steps.mistake.one_step", lambda x, num_steps: _run_steps(x, min(num_steps, 1))),
    Mistake("04_static_args.run_steps.mistake.no_step", lambda x, num_steps: x),
)


@graded("run_steps", "correct")
def test_run_steps_correct(submission, rng, sizes):
    for num_steps in [int(rng.integers(1, 5)), int(rng.integers(5, 15)), 0]:
        x = _values(rng, _shape(sizes, int(sizes.integers(1, 3))), -10.0, 10.0)
        expect_output(submission, "run_steps", (x, num_steps), _run_steps(x, num_steps), check_dtype=True,
                      mistakes=RUN_STEPS_MISTAKES)


@graded("run_steps", "no new traces after warm-up")
def test_run_steps_no_new_traces(submission, rng, sizes):
    shape = _shape(sizes, int(sizes.integers(1, 3)))
    first, second = 20, 30
    warmup = [((_values(rng, shape), int(rng.integers(1, 4))), {})]
    calls = [((_values(rng, shape), first), {}), ((_values(rng, shape), second), {})]
    expect_trace_count(submission, "run_steps", calls, [_run_steps(*args) for args, _ in calls], 0,
                       warmup=warmup, count_all=True,
                       call_sequence=text("04_static_args.run_steps.call_sequence",
                                                   first=first, second=second, shape=shape),
                       fix=text("04_static_args.run_steps.trace_fix"))
