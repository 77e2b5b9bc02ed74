"""A function's first failed check leads with the most causal hint that any of its failed checks found."""

from __future__ import annotations

from autograder.catalog import messages
from autograder.check.cause_first import lead_with_the_cause
from autograder.check.failure import Failure, FailureKind
from autograder.check.results import CheckResult
from autograder.check.said_once import say_each_thing_once


def _failed(function: str, prop: str, detail: str, *hints: str) -> CheckResult:
    check = CheckResult(function, prop, 0.0, 1.0, False, "")
    return check.failing_with(Failure(detail, FailureKind.STUDENT_CODE, hints=hints))


def test_a_tracing_error_found_under_jit_is_the_first_hint_of_the_values_check():
    numpy_used = messages.text("hint.TracerArrayConversionError")
    values = _failed("power_iteration", "correct", "power_iteration(f32[5, 5], 3) returned dtype float64.",
                     "The exercise's recipe.")
    jitted = _failed("power_iteration", "jittable", "jit(power_iteration(...)) raised TracerArrayConversionError.",
                     numpy_used)
    first, second = say_each_thing_once(lead_with_the_cause([values, jitted]))
    assert first.failure.hints == (numpy_used, "The exercise's recipe.")
    assert first.feedback.index(numpy_used) < first.feedback.index("The exercise's recipe.")
    assert numpy_used not in second.feedback and messages.text("call.said_above") in second.feedback


def test_the_most_causal_hint_wins_and_a_first_hint_as_causal_is_kept():
    bool_hint, numpy_hint = messages.text("hint.TracerBoolConversionError"), messages.text(
        "hint.TracerArrayConversionError")
    checks = [_failed("f", "correct", "d1", "recipe"), _failed("f", "jit", "d2", bool_hint),
              _failed("f", "once", "d3", numpy_hint)]
    assert lead_with_the_cause(checks)[0].failure.hints == (numpy_hint, "recipe")
    already = [_failed("f", "correct", "d1", numpy_hint), _failed("f", "jit", "d2", bool_hint)]
    assert lead_with_the_cause(already) == already


def test_hints_that_name_no_cause_and_other_functions_are_left_where_they_are():
    checks = [_failed("f", "correct", "d1", "recipe"), _failed("f", "jit", "d2", "another idea"),
              _failed("g", "correct", "d3", messages.text("hint.TracerBoolConversionError"))]
    assert lead_with_the_cause(checks) == checks
