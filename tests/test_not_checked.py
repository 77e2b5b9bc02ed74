"""A property check that wrong values kept from its property says "not checked", everywhere a result is shown.

Property points need correct values, so a property check compares the values
first. When they are wrong, the function's first check that compared them
fails, and every later check that failed on the same comparison is not
checked: its status is "not_checked" and its feedback points up to the
values check. The points are the same: none. Which failures were wrong values
is a part of the failure (its kind), never read back from its text.
"""

from __future__ import annotations

from autograder.catalog import messages
from autograder.check.failure import Failure, FailureKind, render
from autograder.check.gated_checks import mark_not_checked
from autograder.check.results import CheckResult, SubmissionResult
from autograder.reports import result_json, terminal_table

MISMATCH = Failure("ema(f32[24], 0.72) returned wrong values: 24 of 24 entries differ.", FailureKind.WRONG_VALUES,
                   call="ema(f32[24], 0.72)")


def _failures():
    return [("ema", "correct", MISMATCH),
            ("ema", "uses lax.scan", MISMATCH.hinted("Use lax.scan.")),
            ("ema", "compiles once", Failure("traced 3 times, expected 1")),
            ("cumulative_sum", "uses lax.scan", Failure("no scan in the program"))]


def _checks():
    return mark_not_checked([CheckResult(function, prop, 0.0, 1.0, False, "").failing_with(failure)
                             for function, prop, failure in _failures()])


def test_the_first_values_failure_is_failed_and_the_gated_ones_after_it_are_not_checked():
    assert [c.status for c in _checks()] == ["failed", "not_checked", "failed", "failed"]


def test_a_check_not_checked_points_to_the_values_check_and_keeps_its_points_at_zero():
    gated = _checks()[1]
    assert gated.feedback == messages.text("check.not_checked", values_check="correct")
    assert gated.score == 0.0 and gated.max_score == 1.0


def test_a_property_that_failed_on_its_own_stays_failed():
    assert _checks()[2].feedback == "traced 3 times, expected 1" and not _checks()[2].not_checked


def test_not_checked_is_decided_by_the_failures_kind_whatever_its_text_says():
    """A suite that names the call otherwise, or adds advice, changes the text and not the decision."""
    renamed = Failure("something else entirely", FailureKind.WRONG_VALUES).advised("advice")
    checks = [CheckResult("ema", "correct", 0.0, 1.0, False, "").failing_with(MISMATCH),
              CheckResult("ema", "uses lax.scan", 0.0, 1.0, False, "").failing_with(renamed),
              CheckResult("ema", "jittable", 0.0, 1.0, False, "").failing_with(Failure(render(MISMATCH)))]
    assert [c.status for c in mark_not_checked(checks)] == ["failed", "not_checked", "failed"]


def _result():
    return SubmissionResult("s", "s.ipynb", "08_scan_purity", 1, _checks())


def test_results_json_keeps_gradescopes_status_and_says_not_checked_in_extra_data():
    tests = _result().to_gradescope()["tests"]
    assert [t["status"] for t in tests] == ["failed", "failed", "failed", "failed"]
    assert [t.get("extra_data", {}).get("outcome") for t in tests] == [None, "not_checked", None, None]
    assert [result_json.test_status(t) for t in tests] == ["failed", "not_checked", "failed", "failed"]


def test_the_terminal_table_says_not_checked():
    lines = terminal_table.render(_result()).splitlines()
    gated = next(line for line in lines if "uses lax.scan" in line and "ema" in line)
    assert gated.endswith(messages.text("report.not_checked")) and gated.startswith("–")


def test_the_pointer_names_the_values_check_as_the_table_above_shows_it_in_the_feedbacks_language():
    """A Korean table says "값이 맞음", so the pointer does too: never the English id `correct` (review K3)."""
    with messages.using("ko"):
        graded = _checks()[1].feedback
        name = messages.check_name("correct")
    assert name != "correct" and f"'{name}'" in graded and "correct" not in graded
