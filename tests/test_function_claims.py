"""The two processes of a check take each function once (check/function_claims.py): the first to come to it
checks it, the other leaves it, and each checks what it takes in its own order of functions, whole, with the
suite's fixtures set up and torn down as pytest does for the checks that run."""

from __future__ import annotations

import textwrap

import pytest

from autograder.check.function_claims import FunctionClaims, taken_by
from autograder.check.pytest_plugin import GradingPlugin
from autograder.student import replay


def test_each_function_is_taken_by_the_first_part_to_ask_and_asking_again_gives_the_same_answer(tmp_path):
    forward = FunctionClaims(tmp_path, ("a", "b", "c"), "1")
    backward = FunctionClaims(tmp_path, ("c", "b", "a"), "2")
    assert (forward.take("a"), backward.take("c"), backward.take("b"), forward.take("b")) == (True, True, True, False)
    assert forward.take("a") and not forward.take("b") and backward.take("b")
    assert taken_by(tmp_path, "1") == {"a"} and taken_by(tmp_path, "2") == {"c", "b"}
    assert [backward.rank(name) for name in ("c", "b", "a", "unknown")] == [0, 1, 2, 3]


SUITE = '''
import pytest
from autograder.check.pytest_plugin import graded

LOG = []


@pytest.fixture(scope="class")
def shared(request):
    LOG.append(f"set up {request.cls.__name__}")
    yield
    LOG.append(f"tear down {request.cls.__name__}")


class TestFirst:
    @graded("first", "one")
    def test_one(self, shared):
        LOG.append("first one")

    @graded("first", "two")
    def test_two(self, shared):
        LOG.append("first two")


class TestSecond:
    @graded("second", "one")
    def test_one(self, shared):
        LOG.append("second one")


class TestThird:
    @graded("third", "one")
    def test_one(self, shared):
        LOG.append("third one")

    @graded("third", "two")
    def test_two(self, shared):
        LOG.append("third two")
'''


def _run_suite(folder, claims):
    """The suite above, through the grading plugin with `claims`, as a check's part runs its suite; the outcomes'
    (function, prop) in the order they ran, and what the checks and their fixtures logged."""
    import sys

    suite = folder / "test_claimed_suite.py"
    suite.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    plugin = GradingPlugin(None, 1, None, claims)
    code = pytest.main([str(suite), "-q", "-p", "no:cacheprovider", "--rootdir", str(folder)], plugins=[plugin])
    log = sys.modules["test_claimed_suite"].LOG
    del sys.modules["test_claimed_suite"]
    return code, [(outcome.function, outcome.prop) for outcome in plugin.outcomes.values()], log


def test_a_part_runs_the_checks_of_the_functions_it_takes_in_its_order_with_fixtures_set_up_and_torn_down(tmp_path):
    claims_folder = tmp_path / "claims"
    claims_folder.mkdir()
    other = FunctionClaims(claims_folder, ("first", "second", "third"), "1")
    assert other.take("second")  # the other part is checking it already
    backward = FunctionClaims(claims_folder, ("third", "second", "first"), "2")
    code, ran, log = _run_suite(tmp_path, backward)
    assert code == pytest.ExitCode.OK
    assert ran == [("third", "one"), ("third", "two"), ("first", "one"), ("first", "two")]
    assert log == ["set up TestThird", "third one", "third two", "tear down TestThird",
                   "set up TestFirst", "first one", "first two", "tear down TestFirst"]
    assert taken_by(claims_folder, "2") == {"third", "first"}


def test_without_claims_every_check_runs_in_the_suites_order(tmp_path):
    code, ran, _ = _run_suite(tmp_path, None)
    assert code == pytest.ExitCode.OK
    assert ran == [("first", "one"), ("first", "two"), ("second", "one"), ("third", "one"), ("third", "two")]


def test_the_student_packages_replay_checks_the_functions_its_part_takes_in_its_order(tmp_path):
    record = {"assignment": "99_made_up", "checks": [
        {"function": function, "prop": prop, "points": 1, "steps": []}
        for function, prop in (("first", "one"), ("first", "two"), ("second", "one"), ("third", "one"))]}
    assert FunctionClaims(tmp_path, ("first", "second", "third"), "1").take("second")
    backward = FunctionClaims(tmp_path, ("third", "second", "first"), "2")
    checked = replay.replay(record, [], None, None, backward)  # type: ignore[arg-type]  # no step asks it
    assert [(check.function, check.prop, check.passed) for check in checked] == [
        ("third", "one", True), ("first", "one", True), ("first", "two", True)]
