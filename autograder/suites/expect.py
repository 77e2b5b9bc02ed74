"""Call-and-compare steps shared by the suites, so each test reads like the spec."""

from __future__ import annotations

from typing import Any, Sequence

from autograder import messages
from autograder.jaxcheck.compare import assert_close, assert_equal, assert_same_shapes
from autograder.submission import Submission, describe_call


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
):
    """`function` traces with the non-static arguments abstract, and jit(function) runs.

    Only the output's structure and shapes are compared: wrong values are the
    correctness checks' business, so a mistake loses its points once.
    """
    facts = submission.trace(function, args, kwargs, static_argnums=static_argnums, static_argnames=static_argnames)
    kwargs = dict(kwargs or {})
    actual = submission.call_with(function, args, kwargs, mode="jit",
                                  static_argnums=static_argnums, static_argnames=static_argnames)
    assert_same_shapes(actual, expected, call=f"jit({describe_call(function, args, kwargs)})")
    return facts
