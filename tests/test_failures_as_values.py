"""A check's failure is a value, rendered once: nothing edits feedback text after it is built.

The failure keeps its parts (check/failure.py): the call as the student would
write it, its kind, the detail, the exercise's advice and the hints. Suites
add to it by building a new value; "not checked" is decided from its kind; a
call through one of the kit's harnesses is shown as the harness declares.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from autograder.catalog import messages
from autograder.check.calls_shown import describe_call
from autograder.check.failure import CheckFailed, Failure, FailureKind, failure_of, render, with_advice, with_hint
from autograder.check.submission import StudentCodeError
from autograder.child.harnesses import HARNESSES
from autograder.suites.expect import advice_when_raised, comparing_values

PACKAGE = Path(__file__).resolve().parents[1] / "autograder"

# The ways feedback used to be edited as text after it was built (issue 42): a harness's call renamed
# by string replacement, advice slipped in before the localized "Hint:" line, "not checked" decided by
# a prefix of the feedback, a caught failure's text glued to more text, a call description sliced.
REWRITES = {
    "a rendered failure's text replaced": re.compile(r"str\((error|failure)\)\.replace\("),
    "a rendered failure's text glued to more text": re.compile(r"(Error|Mismatch)\(f\"\{(error|failure)\}"),
    "advice placed by scanning for the 'Hint:' line": re.compile(r"advice_before_hints|line\.startswith\(hint\)"),
    "'not checked' decided by a prefix of the feedback": re.compile(r"feedback\.startswith\("),
    "a harness's call renamed in the feedback": re.compile(r"_through_harness|_as_written|_hint_on_mismatch"),
    "wrong values noted by their text": re.compile(r"note_wrong_values|wrong_values\.note"),
    "a call description sliced": re.compile(r"describe_call\([^)]*\)\[\d*:"),
}


def _sources():
    return [(path, path.read_text(encoding="utf-8")) for path in sorted(PACKAGE.rglob("*.py"))]


@pytest.mark.parametrize("what", sorted(REWRITES))
def test_no_code_in_the_kit_rewrites_rendered_feedback(what):
    found = [f"{path.relative_to(PACKAGE.parent)}:{text.count(chr(10), 0, match.start()) + 1}"
             for path, text in _sources() for match in REWRITES[what].finditer(text)]
    assert not found, f"{what}: {found}"


def test_the_patterns_find_what_they_are_for():
    """Each pattern matches the code it was written against, so an empty search above means something."""
    samples = {
        "a rendered failure's text replaced": "str(error).replace(describe_call(HARNESS, args, {}), shown)",
        "a rendered failure's text glued to more text": 'raise AssertionError(f"{failure}\\n{text(key)}")',
        "advice placed by scanning for the 'Hint:' line": "advice_before_hints(str(error), fix)",
        "'not checked' decided by a prefix of the feedback": "return feedback.startswith(noted)",
        "a harness's call renamed in the feedback": "with _through_harness(submission, args):",
        "wrong values noted by their text": "note_wrong_values(str(error))",
        "a call description sliced": "describe_call('f', args, {})[2:-1]",
    }
    assert sorted(samples) == sorted(REWRITES)
    for what, sample in samples.items():
        assert REWRITES[what].search(sample), what


def test_the_renderer_says_detail_then_advice_then_hints():
    failure = Failure("f(f32[3]) returned wrong values.", FailureKind.WRONG_VALUES, call="f(f32[3])")
    failure = failure.hinted("Use jnp.where.").advised("Keep the shape.")
    assert render(failure).splitlines() == ["f(f32[3]) returned wrong values.", "Keep the shape.",
                                            messages.text("call.hint", hint="Use jnp.where.")]


def test_advice_and_hints_keep_the_kind_and_the_class_of_the_error():
    error = StudentCodeError(Failure("f raised ValueError.", FailureKind.STUDENT_CODE, hints=("JAX idea.",)),
                             "ValueError")
    advised = with_hint(with_advice(error, "The exercise's fix."), "Another idea.")
    assert isinstance(advised, StudentCodeError) and advised.error_type == "ValueError"
    assert advised.failure.kind is FailureKind.STUDENT_CODE
    lines = str(advised).splitlines()
    assert lines.index("The exercise's fix.") < lines.index(messages.text("call.hint", hint="JAX idea."))


def test_a_comparison_inside_comparing_values_is_wrong_values_with_its_hint():
    with pytest.raises(CheckFailed) as raised:
        with comparing_values(hint="The idea."):
            raise AssertionError("f(f32[3]) returned the structure tuple(), expected dict().")
    assert raised.value.failure.on_wrong_values and raised.value.failure.hints == ("The idea.",)


def test_advice_when_raised_leaves_a_missing_function_as_it_is():
    missing = StudentCodeError("`f` is not defined.")
    with pytest.raises(StudentCodeError) as raised:
        with advice_when_raised("The exercise's fix."):
            raise missing
    assert raised.value is missing


def test_a_plain_assert_in_a_suite_is_a_failure_of_the_property_without_pytests_explanation():
    failure = failure_of(AssertionError("the loss must decrease\nassert 3 < 2"))
    assert failure == Failure("the loss must decrease") and failure.kind is FailureKind.PROPERTY


def test_a_failure_crosses_as_json_and_back_unchanged():
    failure = Failure("d", FailureKind.WRONG_VALUES, call="c", context=("x",), advice=("a",), hints=("h",),
                      devices=2, not_checked_because="correct", said_above=True)
    assert Failure.from_json(failure.to_json()) == failure


@pytest.mark.parametrize("harness", sorted(HARNESSES))
def test_a_call_through_a_harness_is_shown_as_the_student_would_write_it(harness):
    declared = HARNESSES[harness]
    function = sorted(declared.wraps)[0]
    args = ("rosenbrock", np.zeros((7,), np.float32)) if "{named}" in declared.shown else (np.zeros(7, np.float32),)
    shown = describe_call(f"{function}@{harness}", args, {})
    assert "@" not in shown and harness not in shown and shown.count(function) == 1 and "f32[7]" in shown


def test_the_harness_calls_read_as_the_exercises_show_them():
    x = np.zeros((7,), np.float32)
    assert describe_call("hessian@returned_function", ("rosenbrock", x), {}) == "hessian(rosenbrock)(f32[7])"
    assert describe_call("newton_minimize@with_f", ("quartic", np.float32(1.5), np.int32(3)), {}) == \
        "newton_minimize(quartic, 1.5, 3)"
    assert describe_call("per_example_grads@with_loss", ("logistic", x), {}) == \
        "per_example_grads(logistic_loss, f32[7])"
