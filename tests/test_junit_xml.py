"""CI formats: `--junit-xml` (reports.junit_xml) and `--fail-under` (reports.exit_status)."""

from __future__ import annotations

import argparse
import os
import xml.etree.ElementTree as ET

import pytest

from autograder.reports import exit_status, junit_xml


def _result(name, tests, *, assignment="02_where", output="", problem=None, seconds=None, max_score=None):
    extra = {"submission": name, "path": f"submissions/{name}.ipynb", "assignment": assignment, "seed": 7,
             "max_score": sum(t["max_score"] for t in tests) if max_score is None else max_score,
             "problem": problem, "finished": True, "sandbox": "os", "student": name}
    if seconds is not None:
        extra["grading"] = {"seconds": seconds}
    return {"score": float(sum(t["score"] for t in tests)), "output": output, "tests": tests, "extra_data": extra}


def _check(name, points, passed, feedback=""):
    return {"name": name, "score": points if passed else 0.0, "max_score": points,
            "status": "passed" if passed else "failed", "output": feedback}


PERFECT = _result("perfect", [_check("selu: correct", 2, True), _check("selu: jittable", 1, True)], seconds=1.5)
PARTIAL = _result("partial", [
    _check("selu: correct", 2, True),
    _check("selu: jittable", 1, False,
           "selu(f32[10]) cannot be traced by jax.jit\nHint: use `jnp.where(x > 0, x, 0)` & co."),
], seconds=2.25)
CRASHED = _result("crashed", [
    _check("selu: correct", 2, False, "Grading did not finish for this submission (worker died); it scores 0."),
    _check("selu: jittable", 1, False, "Grading did not finish for this submission (worker died); it scores 0."),
], output="Grading did not finish for this submission (worker died); it scores 0.", problem="grader_error")
UNKNOWN = _result("mystery", [], assignment=None, output="Could not tell which assignment this is.",
                  problem="unreadable", max_score=0.0)


def _parse(results):
    data = junit_xml.render(results)
    assert data.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    return ET.fromstring(data)


def test_one_suite_per_submission_one_case_per_check():
    root = _parse([PERFECT, PARTIAL])
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["perfect", "partial"]
    cases = suites[1].findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("02_where.partial", "selu: correct"), ("02_where.partial", "selu: jittable")]
    properties = {p.get("name"): p.get("value") for p in suites[1].find("properties")}
    assert properties["assignment"] == "02_where"
    assert properties["score"] == "2.0" and properties["max_score"] == "3.0"
    assert properties["seed"] == "7"


def test_a_failed_check_carries_its_feedback():
    case = _parse([PARTIAL]).find("testsuite").findall("testcase")[1]
    failure = case.find("failure")
    assert failure.get("message") == "selu(f32[10]) cannot be traced by jax.jit"
    assert failure.text == PARTIAL["tests"][1]["output"]
    assert _parse([PARTIAL]).find("testsuite").findall("testcase")[0].find("failure") is None


def test_counts_and_times_add_up():
    root = _parse([PERFECT, PARTIAL, CRASHED, UNKNOWN])
    suites = root.findall("testsuite")
    for suite in suites:  # the common JUnit schema's required attributes, and their consistency
        for attribute in ("name", "tests", "failures", "errors", "skipped", "time"):
            assert suite.get(attribute) is not None, attribute
        assert int(suite.get("tests")) == len(suite.findall("testcase"))
        assert int(suite.get("failures")) == len(suite.findall("testcase/failure"))
        assert int(suite.get("errors")) == len(suite.findall("testcase/error"))
        for case in suite.findall("testcase"):
            assert case.get("name") and case.get("classname")
            failure = case.find("failure")
            if failure is not None:
                assert failure.get("message") is not None and failure.get("type")
    assert [s.get("failures") for s in suites] == ["0", "1", "0", "1"]
    assert [s.get("errors") for s in suites] == ["0", "0", "2", "0"]
    assert root.get("tests") == str(2 + 2 + 2 + 1) and root.get("failures") == "2" and root.get("errors") == "2"
    assert suites[0].get("time") == "1.500" and suites[2].get("time") == "0.000"
    assert root.get("time") == "3.750"


NOT_CHECKED = "Not checked: the values are wrong (see `correct` above); fix them first."
GATED = _result("gated", [
    _check("ema: correct", 2, False, "ema(f32[24], 0.72) returned wrong values: 24 of 24 entries differ."),
    {**_check("ema: uses lax.scan", 1, False, NOT_CHECKED), "extra_data": {"outcome": "not_checked"}},
])


def test_a_check_not_checked_is_skipped_with_its_reason_and_its_values_check_is_the_failure():
    suite = _parse([GATED]).find("testsuite")
    values, gated = suite.findall("testcase")
    assert values.find("failure") is not None and values.find("skipped") is None
    assert gated.find("failure") is None
    assert gated.find("skipped").get("message") == NOT_CHECKED
    assert (suite.get("failures"), suite.get("skipped")) == ("1", "1")
    assert _parse([GATED, PARTIAL]).get("skipped") == "1"


def test_a_submission_not_graded_lists_its_checks_as_errors_not_failures():
    # Its zeros are no failure of the student's (reports.grade_status): CI goes red, no check counts as failed.
    suite = _parse([CRASHED]).find("testsuite")
    assert suite.findall("testcase/failure") == []
    errors = suite.findall("testcase/error")
    assert len(errors) == 2
    assert all("worker died" in e.get("message") and e.get("type") == "not graded: machine too busy" for e in errors)
    assert {p.get("name"): p.get("value") for p in suite.find("properties")}["status"] == "not graded"
    assert {p.get("name"): p.get("value") for p in suite.find("properties")}["problem"] == "grader_error"
    assert "worker died" in suite.find("system-out").text


def test_a_submission_without_checks_is_one_failing_case_not_an_empty_suite():
    suite = _parse([UNKNOWN]).find("testsuite")
    (case,) = suite.findall("testcase")
    assert case.get("name") == "grading" and case.get("classname") == "mystery"
    assert case.find("failure").text == "Could not tell which assignment this is."


def test_any_string_becomes_valid_xml():
    nasty = "nul\x00 bell\x07 esc\x1b lone\ud800surrogate \ufffe <tag attr=\"x\"> & ]]> 'q' \U0001F600 한국어\r\nend"
    result = _result(nasty, [_check(nasty, 1, False, nasty), _check("ok", 1, True)], output=nasty)
    result["extra_data"]["assignment"] = nasty
    data = junit_xml.render([result])
    root = ET.fromstring(data)  # parses: nothing XML 1.0 forbids is left
    data.decode("utf-8")  # and it is valid UTF-8 (no lone surrogate was encoded)
    suite = root.find("testsuite")
    text = suite.find("testcase/failure").text
    for forbidden in ("\x00", "\x07", "\x1b", "\ud800", "\ufffe"):
        assert forbidden not in text and forbidden not in suite.get("name")
    assert "<tag attr=\"x\"> & ]]>" in text and "\U0001F600 한국어" in text
    assert suite.find("testcase").get("name").startswith("nul\ufffd bell\ufffd")


def test_odd_values_do_not_break_rendering():
    odd = {"score": "NaN", "tests": [{"name": None, "score": None, "max_score": "x", "output": 5}, "not a dict"],
           "extra_data": {"submission": 12, "grading": {"seconds": float("inf")}}}
    suite = _parse([odd, {}]).findall("testsuite")
    assert suite[0].get("name") == "12" and suite[0].get("tests") == "1"
    assert suite[1].findall("testcase")[0].get("name") == "grading"


def test_write_is_atomic_and_replaces_a_link_without_following_it(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    path = tmp_path / "reports" / "junit.xml"
    path.parent.mkdir()
    os.symlink(target, path)
    junit_xml.write([PERFECT], path)
    assert not path.is_symlink() and ET.parse(path).getroot().tag == "testsuites"
    assert target.read_text() == "keep me"
    junit_xml.write([PARTIAL], tmp_path / "new" / "dir" / "junit.xml")  # parents made
    assert ET.parse(tmp_path / "new" / "dir" / "junit.xml").getroot().find("testsuite").get("name") == "partial"
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_real_grading_results_render(tmp_path, seed):
    """The shape `autograder grade` writes (via grade.unfinished_results, no sandbox needed)."""
    from autograder import grading_config
    from autograder.grade.unfinished_results import crashed_result

    config = grading_config.load()
    result = crashed_result("alice", tmp_path / "alice.ipynb", "02_where", config, seed, "worker died").to_gradescope()
    suite = _parse([result]).find("testsuite")
    assert int(suite.get("tests")) == sum(len(p) for p in config.points["02_where"].values())
    assert int(suite.get("errors")) == int(suite.get("tests")) and suite.get("failures") == "0"


# --- --fail-under (reports.exit_status) ----------------------------------------------------------

def test_without_fail_under_the_status_is_zero():
    assert exit_status.exit_code([PARTIAL, CRASHED], None) == 0
    assert exit_status.exit_code([], None) == 0


@pytest.mark.parametrize("fail_under, expected", [(0, 0), (66, 0), (66.7, 1), (100, 1)])
def test_fail_under_is_a_percentage_of_each_submissions_maximum(fail_under, expected):
    assert exit_status.percent(PARTIAL) == pytest.approx(200 / 3)
    assert exit_status.exit_code([PERFECT, PARTIAL], fail_under) == expected


def test_every_submission_must_reach_it():
    assert exit_status.exit_code([PERFECT], 100) == 0
    assert exit_status.exit_code([PERFECT, CRASHED], 50) == 1
    assert exit_status.below([PERFECT, CRASHED, PARTIAL], 50) == [CRASHED]
    line = exit_status.summary([PERFECT, CRASHED, PARTIAL], 50)
    assert line.startswith("--fail-under 50: 1 of 3 submission(s) below 50%: crashed (0%)")
    assert exit_status.summary([PERFECT], 50) is None


def test_nothing_graded_fails_and_an_unknown_assignment_counts_as_zero():
    assert exit_status.exit_code([], 0) == 1
    assert exit_status.summary([], 0) == "--fail-under 0: no submission was graded."
    assert exit_status.exit_code([UNKNOWN], 1) == 1
    assert exit_status.exit_code([UNKNOWN], 0) == 0


def test_rounding_in_sums_does_not_fail_a_full_score():
    almost = _result("almost", [_check("a", 0.1, True), _check("b", 0.2, True)], max_score=0.1 + 0.2)
    almost["score"] = 0.3  # the maximum summed the other way: 0.30000000000000004
    assert almost["score"] < almost["extra_data"]["max_score"]
    assert exit_status.exit_code([almost], 100) == 0


def test_fail_under_argument_is_checked():
    assert exit_status.parse_fail_under("87.5") == 87.5
    for bad in ("-1", "101", "nan", "inf", "half"):
        with pytest.raises(argparse.ArgumentTypeError):
            exit_status.parse_fail_under(bad)
    with pytest.raises(ValueError):
        exit_status.exit_code([PERFECT], 120)


def test_a_failures_kind_is_its_type_and_the_kits_own_failure_is_an_error_not_the_students():
    """results.json records each failed check's kind (check/failure.FailureKind): a check in which the kit itself
    failed is an <error> (no failed check of the student's), the others <failure>s typed by their kind."""
    from autograder.check.failure import Failure, FailureKind
    from autograder.check.results import CheckResult, SubmissionResult

    checks = [CheckResult("selu", "correct", 0.0, 2.0, False, "").failing_with(
                  Failure("selu(f32[10]) returned wrong values.", FailureKind.WRONG_VALUES)),
              CheckResult("selu", "jittable", 0.0, 1.0, False, "").failing_with(
                  Failure("Internal grader error in this check (KeyError: 'x').", FailureKind.INTERNAL))]
    suite = _parse([SubmissionResult("kit_fault", "kit_fault.ipynb", "02_where", 7, checks).to_gradescope()])[0]
    correct, jittable = suite.findall("testcase")
    assert correct.find("failure").get("type") == "wrong values" and correct.find("error") is None
    assert jittable.find("failure") is None and "kit failed" in jittable.find("error").get("type")
    assert (suite.get("failures"), suite.get("errors")) == ("1", "1")
