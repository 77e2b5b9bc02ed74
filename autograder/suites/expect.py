"""Call-and-compare steps shared by the suites, so each test reads like the spec.

Suites import these through `autograder.suites.api`, which also documents them
for `docs/writing-a-suite.md`.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Sequence

from autograder.catalog import messages
from autograder.check import compare
from autograder.check.calls_shown import describe_call, describe_grad_call, student_function
from autograder.check.compare import assert_close, assert_equal
from autograder.check.expectations import assert_no_host_callbacks, assert_trace_count, expected_error_feedback
from autograder.check.exported_program import ProgramFacts
from autograder.check.failure import fail, failure_of, rebuilt, with_advice, with_hint
from autograder.check.known_mistakes import Mistake, named_mistake
from autograder.check.placement_checks import assert_spread
from autograder.check.rounding_relation import rounding_hint
from autograder.check.submission import StudentCodeError, Submission
from autograder.check.value_relations import relation_hint
from autograder.protocol.errors import ErrorKind


@contextlib.contextmanager
def comparing_values(*, hint: str | None = None) -> Iterator[None]:
    """Inside the block, a failed comparison is the function's wrong values, with `hint` added.

    For a check that compares the function's values itself (`assert_close`)
    before it looks at its property: when the values are wrong there, the
    function's later property checks that fail on the same comparison are
    reported as not checked, as after `expect_output`.

    Args:
        hint: a catalog sentence naming the idea behind the usual mistake,
            said as "Hint: ..." after the failure; None: no hint.

    Raises:
        AssertionError: the failure raised inside, marked as wrong values.
    """
    try:
        yield
    except StudentCodeError:
        raise  # the student's code failed to answer: no values were compared
    except AssertionError as error:
        raise rebuilt(error, failure_of(error).as_wrong_values().hinted(hint)) from None


@contextlib.contextmanager
def advice_when_raised(*advice: str) -> Iterator[None]:
    """Inside the block, the exercise's `advice` is added when the student's code raises an exception.

    Not to a missing or unimplemented function, or a timeout: their own
    feedback already says what to do. The advice is said after what happened
    and before the JAX error's general hint.

    Args:
        *advice: the exercise's sentences for the exception.

    Raises:
        StudentCodeError: the one raised inside, with the advice.
    """
    try:
        yield
    except StudentCodeError as error:
        if error.error_type is None or error.not_implemented:
            raise
        raise with_advice(error, *advice) from None


def expect_output(
    submission: Submission,
    function: str,
    args: Sequence[Any],
    expected: Any,
    *,
    kwargs: dict[str, Any] | None = None,
    exact: bool = False,
    check_dtype: bool = False,
    rtol: float | None = None,
    atol: float | None = None,
    hint: str | Callable[[Any], str | None] | None = None,
    mistakes: Sequence[Mistake] = (),
    on_devices: bool = False,
    **call_options: Any,
) -> Any:
    """Call the student's `function` and compare what it returns with `expected`.

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        args: positional arguments (NumPy arrays, Python scalars, `TypedKey`s, and lists/tuples/str-keyed dicts).
        expected: the reference output, computed in the test (NumPy), same structure.
        kwargs: keyword arguments.
        exact: compare with `assert_equal` (integers, booleans) instead of `assert_close`.
        check_dtype: the dtypes must match too.
        rtol: relative tolerance; by default the dtype's (float32: 1e-5).
        atol: absolute tolerance; by default the dtype's (float32: 1e-6).
        hint: a catalog sentence naming the JAX idea behind the usual mistake, added as "Hint: ..."
            when the values are wrong; or a function of the output that returns the sentence only
            when the output shows its cause (a NaN where the cause makes one), else None.
        mistakes: the function's known mistakes (`Mistake`s, declared beside its reference): when the
            wrong values are exactly what one of them gives on these arguments, its sentence is the
            hint instead of `hint`.
        on_devices: the function spreads its work over the grader's devices (as with `rows_sharded`):
            a wrong value off by a factor of the device count is said to be that.
        **call_options: `Submission.call_with`'s options: `mode` ("plain", "jit", "vmap", "grad_sum"),
            `static_argnums`, `static_argnames`, `argnums`, `in_axes`, `key_reuse_check`.

    Returns:
        What the function returned, as NumPy arrays in the output's structure.

    Raises:
        AssertionError: the student reads the call (`mode(name(f32[17], 3))`), a wrong structure,
            shape or dtype, or how many values differ with the first difference and an excerpt of
            its row; then the hint.
        StudentCodeError: the function is missing or raised; the student reads the error, where it
            happened and the hint for a JAX error.
    """
    kwargs = dict(kwargs or {})
    actual = submission.call_with(function, args, kwargs, **call_options)
    call = _described_call(function, args, kwargs, call_options.get("mode", "plain"))
    try:
        _assert_values(actual, expected, call=call, exact=exact, check_dtype=check_dtype, rtol=rtol, atol=atol)
    except AssertionError as error:
        devices = submission.devices if on_devices or call_options.get("rows_sharded") else None
        raise rebuilt(error, failure_of(error).as_wrong_values().hinted(*_value_hints(
            actual, expected, args, kwargs, hint, mistakes, devices,
            _in_64_bits(submission, function, args, kwargs, expected, call_options)))) from None
    return actual


def _in_64_bits(submission: Submission, function: str, args: Sequence[Any], kwargs: dict[str, Any], expected: Any,
                call_options: dict[str, Any]) -> Callable[[], str | None] | None:
    """The question whether the code is right in 64 bits (check/rounding_relation.py), asked only when no other
    relation holds; None for a call whose rows are spread over the devices, which the 64-bit call would not be."""
    if call_options.get("rows_sharded"):
        return None
    return functools.partial(rounding_hint, submission, function, args, kwargs, expected, call_options)


def _value_hints(actual: Any, expected: Any, args: Sequence[Any], kwargs: dict[str, Any],
                 hint: str | Callable[[Any], str | None] | None, mistakes: Sequence[Mistake],
                 devices: int | None = None,
                 in_64_bits: Callable[[], str | None] | None = None) -> tuple[str | None, ...]:
    """The hints for wrong values, the most telling first: a declared known mistake alone (it names the exact
    mistake); else how the values relate to the expected ones (check/value_relations.py; with none, whether the
    code is right in 64 bits: `in_64_bits`, check/rounding_relation.py), then the suite's hint (the
    JAX idea, or the exercise's recipe restated, which never comes first when a relation is found)."""
    named = named_mistake(actual, expected, args, kwargs, mistakes)
    if named:
        return (messages.text(named.key),)
    said = hint(actual) if callable(hint) else hint
    related = relation_hint(actual, expected, args, devices)
    if related is None and in_64_bits is not None:
        related = in_64_bits()
    return related, said


def _described_call(function: str, args: Sequence[Any], kwargs: dict[str, Any], mode: str) -> str:
    """The call as the student reads it in feedback: `name(f32[17], 3)`, inside its mode unless plain."""
    call = describe_call(function, args, kwargs)
    return call if mode == "plain" else f"{mode}({call})"


def _assert_values(actual: Any, expected: Any, *, call: str, exact: bool, check_dtype: bool, rtol: float | None,
                   atol: float | None) -> None:
    """`assert_equal` when `exact`, else `assert_close` with the tolerances given (None: the dtype's)."""
    if exact:
        assert_equal(actual, expected, call=call, check_dtype=check_dtype)
    else:
        assert_close(actual, expected, call=call, check_dtype=check_dtype, rtol=rtol, atol=atol)


def expect_jittable(
    submission: Submission,
    function: str,
    args: Sequence[Any],
    expected: Any,
    *,
    kwargs: dict[str, Any] | None = None,
    static_argnums: Sequence[int] = (),
    static_argnames: Sequence[str] = (),
    exact: bool = False,
    rtol: float | None = None,
    atol: float | None = None,
    hint: str | None = None,
    mistakes: Sequence[Mistake] = (),
) -> ProgramFacts:
    """The function traces with its non-static arguments abstract, and `jax.jit` of it returns `expected`.

    Points for a property only come with correct values: a function that jits
    but returns a constant earns nothing here. Build structure checks ("no
    Python loop", "uses lax.cond") on the facts this returns, so they rest on a
    program that was just shown to compute the right thing.

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        args: positional arguments, as for `expect_output`.
        expected: the reference output.
        kwargs: keyword arguments.
        static_argnums: positions passed to `jax.jit` as static.
        static_argnames: names passed to `jax.jit` as static.
        exact: compare exactly instead of within tolerances.
        rtol: relative tolerance (default: the dtype's).
        atol: absolute tolerance (default: the dtype's).
        hint: a catalog sentence added when the values are wrong.
        mistakes: the function's known mistakes, as for `expect_output`.

    Returns:
        The exported program's `ProgramFacts` (operations, size, largest value).

    Raises:
        StudentCodeError: it cannot be traced; the student reads "cannot be
            traced by jax.jit with <static arguments>", the JAX error and its hint.
        AssertionError: it calls back into Python (pure_callback, debug.print...),
            or `jit(name(...))` returned wrong values (as in `expect_output`).
    """
    facts = submission.trace(function, args, kwargs, static_argnums=static_argnums, static_argnames=static_argnames)
    assert_no_host_callbacks(facts, function=student_function(function))
    expect_output(submission, function, args, expected, kwargs=kwargs, mode="jit", static_argnums=static_argnums,
                  static_argnames=static_argnames, exact=exact, rtol=rtol, atol=atol, hint=hint, mistakes=mistakes)
    return facts


def expect_placement(
    submission: Submission,
    function: str,
    args: Sequence[Any],
    expected: Any,
    *,
    spread: str,
    why: str,
    axis: str | None = None,
    kwargs: dict[str, Any] | None = None,
    rows_sharded: Sequence[int] = (),
    rtol: float | None = None,
    atol: float | None = None,
    hint: str | None = None,
) -> None:
    """The function, called as the student calls it (no `jax.jit` around it), returns `expected`, placed over
    every device as `spread` says.

    The call runs in the student's process on as many devices as the grader gave (`submission.devices`,
    grading.toml's [devices]); the kit reads where each output leaf lives from the arrays the call returned
    (`Submission.placed_call`). A spec that also asks for jittability is checked on its own
    (`expect_jittable_on_devices`), so an eager way to place an array (`jax.make_array_from_callback`, a
    mesh of `np.array(jax.devices())`) is judged as it runs. Points for the placement come only with
    correct values.

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        args: positional arguments, as for `expect_output`.
        expected: the reference output.
        spread: "rows": every output is split by rows, one equal block per device, over all devices
            (`NamedSharding(mesh, P("data"))`, or `pmap`'s one row per device); "replicated": every
            device holds every output whole (parameters after a data-parallel step).
        why: the exercise's sentence on why the placement matters, shown when it is wrong.
        axis: for "rows", the mesh axis the spec names (10_parallel: "data"); None: any split counts.
        kwargs: keyword arguments.
        rows_sharded: positional arguments the function receives already placed by rows over the mesh
            of all devices (`jax.make_mesh((d,), ("data",))`, `P("data")`).
        rtol: relative tolerance (default: the dtype's).
        atol: absolute tolerance (default: the dtype's).
        hint: a catalog sentence added when the values are wrong.

    Raises:
        StudentCodeError: the call raised (a device count written into the code fails here when the
            grader uses another); the student reads the JAX error.
        AssertionError: wrong values (as in `expect_output`), or "name(f32[8, 3]) returned output 0
            held by 1 of the 4 devices (device 0 holds all of it); expected it spread over all 4. <why>",
            or an output on the host (NumPy), or rows split over a mesh axis the spec does not name.
    """
    if spread not in ("rows", "replicated"):
        raise ValueError(f"spread is {spread!r}; expected 'rows' or 'replicated'")
    kwargs = dict(kwargs or {})
    actual, placements = submission.placed_call(function, args, kwargs, rows_sharded=rows_sharded)
    call = _described_call(function, args, kwargs, "plain")
    _assert_placed_values(actual, expected, args, kwargs, call=call, rtol=rtol, atol=atol, hint=hint,
                          devices=submission.devices)
    if len(placements) != _leaf_count(actual):
        raise StudentCodeError(messages.text("call.bad_output", call=call,
                                             detail=f"{len(placements)} placements for {_leaf_count(actual)} outputs"))
    assert_spread(placements, spread, devices=submission.devices, call=call, why=why, axis=axis)


def _assert_placed_values(actual: Any, expected: Any, args: Sequence[Any], kwargs: dict[str, Any], *, call: str,
                          rtol: float | None, atol: float | None, hint: str | None, devices: int) -> None:
    """The values of a call on several devices, judged first (a placement scores only with right values)."""
    try:
        _assert_values(actual, expected, call=call, exact=False, check_dtype=False, rtol=rtol, atol=atol)
    except AssertionError as error:
        raise rebuilt(error, failure_of(error).as_wrong_values().hinted(
            *_value_hints(actual, expected, args, kwargs, hint, (), devices))) from None


def _leaf_count(value: Any) -> int:
    """How many leaves a decoded output has (containers are dicts, lists and tuples; None is no leaf)."""
    if isinstance(value, dict):
        return sum(_leaf_count(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_leaf_count(item) for item in value)
    return 0 if value is None else 1


def expect_jittable_on_devices(
    submission: Submission,
    function: str,
    args: Sequence[Any],
    expected: Any,
    *,
    kwargs: dict[str, Any] | None = None,
    rows_sharded: Sequence[int] = (),
    rtol: float | None = None,
    atol: float | None = None,
    hint: str | None = None,
) -> ProgramFacts:
    """`jax.jit` of the function, with every argument traced, returns `expected` on all the grader's devices.

    For an exercise on several devices that the spec asks to be jittable: the student's process exports
    the function (with `rows_sharded` arguments traced as placed by rows); the clean-room runner runs the
    program on as many devices as the grader gave. Where outputs live is not judged here
    (`expect_placement` judges the function as called). Build "must use a collective" checks on the facts
    it returns (`assert_uses_collective`).

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        args: positional arguments, as for `expect_output`.
        expected: the reference output.
        kwargs: keyword arguments.
        rows_sharded: positional arguments the function receives already placed by rows over the mesh
            of all devices (`jax.make_mesh((d,), ("data",))`, `P("data")`).
        rtol: relative tolerance (default: the dtype's).
        atol: absolute tolerance (default: the dtype's).
        hint: a catalog sentence added when the values are wrong.

    Returns:
        The exported program's `ProgramFacts` (with `nr_devices` and `collectives`).

    Raises:
        StudentCodeError: it cannot be traced or exported for these devices; the student reads the JAX error.
        AssertionError: it calls back into Python, or `jit(name(...))` returned wrong values (as in
            `expect_output`).
    """
    kwargs = dict(kwargs or {})
    facts, actual, _ = submission.placed_run(function, args, kwargs, rows_sharded=rows_sharded)
    assert_no_host_callbacks(facts, function=student_function(function))
    call = _described_call(function, args, kwargs, "jit")
    _assert_placed_values(actual, expected, args, kwargs, call=call, rtol=rtol, atol=atol, hint=hint,
                          devices=submission.devices)
    return facts


def expect_gradient(
    submission: Submission,
    function: str,
    args: Sequence[Any],
    expected: Any,
    *,
    kwargs: dict[str, Any] | None = None,
    argnums: int | Sequence[int] = 0,
    arg_names: Sequence[str] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    hint: str | Callable[[Any], str | None] | None = None,
) -> Any:
    """`jax.grad` of the sum of the function's output is finite and equals `expected`.

    The gradient is taken in the student's process (`mode="grad_sum"`) and
    compared here. Put the point where the naive version's gradient is NaN
    (0 for a log, the masked-out branch of a `jnp.where`) among the inputs.

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        args: positional arguments.
        expected: the reference gradient: one array for an int `argnums`, a tuple
            of arrays for a tuple.
        kwargs: keyword arguments (held fixed).
        argnums: the arguments to differentiate with respect to, as for `jax.grad`.
        arg_names: the parameter names the feedback's lambda uses (see
            `describe_grad_call`).
        rtol: relative tolerance (default: the dtype's).
        atol: absolute tolerance (default: the dtype's).
        hint: a catalog sentence (e.g. the double-where idiom) added on any failure;
            or a function of the gradient that returns it only when the gradient
            shows its cause (NaN where the idiom is missing), else None.

    Returns:
        The gradient, as NumPy arrays.

    Raises:
        AssertionError: the student reads the call as
            `jax.grad(lambda x: safe_log(x).sum())(f32[17])` with how many values
            are NaN or inf, or the wrong values, then the hint.
        StudentCodeError: the function is missing, raised, or cannot be
            differentiated; the student reads the JAX error and its hint.
    """
    kwargs = dict(kwargs or {})
    gradient = submission.call_with(function, args, kwargs, mode="grad_sum", argnums=argnums)
    call = describe_grad_call(function, args, kwargs, argnums=argnums, arg_names=arg_names)
    try:
        # Through the module, so that a recorder that patches `compare.assert_all_finite` sees this check.
        compare.assert_all_finite(gradient, call=call)
        assert_close(gradient, expected, call=call, rtol=rtol, atol=atol)
    except AssertionError as error:
        raise with_hint(error, hint(gradient) if callable(hint) else hint) from None
    return gradient


def expect_trace_count(
    submission: Submission,
    function: str,
    calls: Sequence[tuple[Sequence[Any], dict[str, Any]]],
    expected_outputs: Sequence[Any],
    traces: int,
    *,
    call_sequence: str,
    fix: str = "",
    warmup: Sequence[tuple[Sequence[Any], dict[str, Any]]] = (),
    static_argnums: Sequence[int] = (),
    static_argnames: Sequence[str] = (),
    count_all: bool = False,
    exact: bool = False,
    check_dtype: bool = False,
    rtol: float | None = None,
    atol: float | None = None,
    hint: str | None = None,
) -> None:
    """Over a sequence of calls, the function returns the expected values and is traced exactly `traces` times.

    The values come first: "compiles once" is only worth points for a function
    that computes the right thing on every call of the sequence. A student's own
    `jax.jit` object is counted as it is; a plain function is wrapped in
    `jax.jit` with the static arguments given.

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        calls: the counted calls, each `(args, kwargs)`.
        expected_outputs: the reference output of each call.
        traces: how many traces the sequence should cost.
        call_sequence: the sequence in words, for feedback ("three calls with
            n = 3, 3 and 5").
        fix: the exercise's advice, said after a wrong count.
        warmup: calls made before counting starts.
        static_argnums: static positions, for a plain function.
        static_argnames: static names, for a plain function.
        count_all: count every trace of any function during the calls (a fresh
            `jax.jit(lambda ...)` per step).
        exact: compare exactly.
        check_dtype: the dtypes must match too.
        rtol: relative tolerance (default: the dtype's).
        atol: absolute tolerance (default: the dtype's).
        hint: a catalog sentence added when a value is wrong.

    Raises:
        AssertionError: a wrong value (as in `expect_output`, with the hint); or
            "<call_sequence> traced N times, expected M", then `fix` and, for
            extra traces, which argument changed and why that retraces.
    """
    report = submission.count_traces(function, calls, warmup=warmup, static_argnums=static_argnums,
                                     static_argnames=static_argnames, count_all=count_all)
    _assert_each_output(function, calls, report.outputs, expected_outputs, hint=hint, exact=exact,
                        check_dtype=check_dtype, rtol=rtol, atol=atol)
    assert_trace_count(report, traces, call_sequence=call_sequence, fix=fix)


def _assert_each_output(function: str, calls: Sequence[tuple[Sequence[Any], dict[str, Any]]], outputs: Sequence[Any],
                        expected_outputs: Sequence[Any], *, hint: str | None, exact: bool, check_dtype: bool,
                        rtol: float | None, atol: float | None) -> None:
    """Each call's output against its reference, in order; the first wrong one fails with the hint."""
    for (args, kwargs), actual, expected in zip(calls, outputs, expected_outputs, strict=True):
        try:
            _assert_values(actual, expected, call=describe_call(function, args, kwargs), exact=exact,
                           check_dtype=check_dtype, rtol=rtol, atol=atol)
        except AssertionError as error:
            raise with_hint(error, *_value_hints(actual, expected, args, kwargs, hint, ())) from None


def expect_jitted(submission: Submission, function: str, *, fix: str = "") -> None:
    """The student's function is itself a `jax.jit` object (they wrote the decorator).

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        fix: the exercise's advice, said after the feedback.

    Raises:
        AssertionError: the student reads "`name` is a plain function, not a
            jitted function. Decorate it with `@jax.jit` ...", then `fix`.
    """
    if not submission.is_jitted(function):
        type_name = submission.describe(function).get("type_name")
        feedback = messages.text("check.not_jitted", function=student_function(function), type_name=type_name)
        raise fail(feedback, advice=fix)


def expect_raises(
    submission: Submission,
    function: str,
    args: Sequence[Any],
    error_type: str,
    *,
    kwargs: dict[str, Any] | None = None,
    mentions: str | None = None,
    fix: str = "",
) -> None:
    """The call raises `error_type` (or a subclass of it), with `mentions` in its message.

    The decision is `check.expectations.expected_error_feedback`, shared with
    the student package's replay.

    Args:
        submission: the `submission` fixture.
        function: the student's function, by name.
        args: positional arguments.
        error_type: the exception's class name ("TypeError", "ValueError").
        kwargs: keyword arguments.
        mentions: text the error's message must contain, or None.
        fix: the exercise's advice, said after the feedback.

    Raises:
        AssertionError: the student reads "name(...) should raise TypeError, but
            it returned normally" (or "it raised X: ...", or "its message ... does
            not mention ..."), the hint for a JAX error, then `fix`.
        StudentCodeError: the function is missing or unimplemented, or failed in
            another way than raising (a timeout); its usual feedback.
    """
    kwargs = dict(kwargs or {})
    call = describe_call(function, args, kwargs)
    try:
        submission.call_with(function, args, kwargs)
    except StudentCodeError as failure:
        error = failure.error
        if error is None or error.kind is not ErrorKind.RAISED or error.is_not_implemented:
            raise  # a missing function, a timeout...: its own feedback says more than "should raise"
        feedback = expected_error_feedback(error, call=call, error_type=error_type, mentions=mentions)
    else:
        feedback = expected_error_feedback(None, call=call, error_type=error_type)
    if feedback is not None:
        raise fail(feedback, advice=fix)
