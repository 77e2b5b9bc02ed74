"""Call-and-compare steps shared by the suites, so each test reads like the spec."""

from __future__ import annotations

from typing import Any, Sequence

from autograder.catalog import messages
from autograder.check.compare import assert_close, assert_equal
from autograder.check.expectations import assert_no_host_callbacks, assert_trace_count
from autograder.check.jax_error_hints import hint_for
from autograder.check.submission import StudentCodeError, Submission, describe_call
from autograder.protocol.errors import ErrorKind


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
    hint: str | None = None,
    **call_options: Any,
) -> Any:
    """Call `function` (see Submission.call_with for options) and compare with `expected`.

    `hint` (a sentence from messages.py) is added to the feedback when the
    values are wrong, to name the JAX idea behind the usual cause.
    """
    kwargs = dict(kwargs or {})
    actual = submission.call_with(function, args, kwargs, **call_options)
    call = describe_call(function, args, kwargs)
    if call_options.get("mode", "plain") != "plain":
        call = f"{call_options['mode']}({call})"
    try:
        if exact:
            assert_equal(actual, expected, call=call, check_dtype=check_dtype)
        else:
            assert_close(actual, expected, call=call, check_dtype=check_dtype, rtol=rtol, atol=atol)
    except AssertionError as error:
        if hint is None:
            raise
        raise AssertionError(f"{error}\n{messages.text('call.hint', hint=hint)}") from None
    return actual


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
):
    """`function` traces with the non-static arguments abstract, and jit(function) gives `expected`.

    Points for a property only come with correct values: a function that
    jits but returns a constant earns nothing here. Returns the program's
    facts, so structure checks ("no Python loop", "uses lax.cond") rest on a
    program that was just shown to compute the right thing.
    """
    facts = submission.trace(function, args, kwargs, static_argnums=static_argnums, static_argnames=static_argnames)
    assert_no_host_callbacks(facts, function=function)
    expect_output(submission, function, args, expected, kwargs=kwargs, mode="jit", static_argnums=static_argnums,
                  static_argnames=static_argnames, exact=exact, rtol=rtol, atol=atol, hint=hint)
    return facts


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
    """Over `calls`, `function` returns `expected_outputs` and is traced exactly `traces` times.

    The values come first: "compiles once" is only worth points for a
    function that computes the right thing on every call of the sequence.
    """
    report = submission.count_traces(function, calls, warmup=warmup, static_argnums=static_argnums,
                                     static_argnames=static_argnames, count_all=count_all)
    compare = assert_equal if exact else assert_close
    options = {} if exact else {"rtol": rtol, "atol": atol}
    for (args, kwargs), actual, expected in zip(calls, report.outputs, expected_outputs, strict=True):
        try:
            compare(actual, expected, call=describe_call(function, args, kwargs), check_dtype=check_dtype, **options)
        except AssertionError as error:
            if hint is None:
                raise
            raise AssertionError(f"{error}\n{messages.text('call.hint', hint=hint)}") from None
    assert_trace_count(report, traces, call_sequence=call_sequence, fix=fix)


def expect_jitted(submission: Submission, function: str, *, fix: str = "") -> None:
    """The student's `function` is itself a `jax.jit` object (they wrote the decorator)."""
    if not submission.is_jitted(function):
        type_name = submission.describe(function).get("type_name")
        feedback = messages.text("check.not_jitted", function=function, type_name=type_name)
        raise AssertionError(f"{feedback} {fix}" if fix else feedback)


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
    """`function(*args, **kwargs)` raises `error_type` (or a subclass), whose message contains `mentions`.

    Returning normally or raising another error fails with what happened,
    the hint for a JAX error, and then `fix` (the exercise's own advice).
    A missing or unimplemented function keeps its usual feedback.
    """
    kwargs = dict(kwargs or {})
    call = describe_call(function, args, kwargs)
    try:
        submission.call_with(function, args, kwargs)
    except StudentCodeError as failure:
        error = failure.error
        if error is None or error.kind is not ErrorKind.RAISED or error.is_not_implemented:
            raise
        type_names = list(error.mro or (error.type,))
        message = error.message
        first = message.splitlines()[0] if message else ""
        if error_type not in type_names:
            actual = messages.text("check.raised_instead", error_type=error.type, error=first.rstrip("."))
            feedback = messages.text("check.expected_error", call=call, expected=error_type, actual=actual)
        elif mentions is not None and mentions not in message:
            feedback = messages.text("check.error_message", call=call, error_type=error.type,
                                     message=first[:200], needle=mentions)
        else:
            return
        hint = hint_for(type_names, message)
        if hint:
            feedback += "\n" + messages.text("call.hint", hint=hint)
    else:
        actual = messages.text("check.returned_instead")
        feedback = messages.text("check.expected_error", call=call, expected=error_type, actual=actual)
    raise AssertionError(f"{feedback}\n{fix}" if fix else feedback)
