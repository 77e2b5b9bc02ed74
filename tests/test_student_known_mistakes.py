"""The student package names a known mistake from its value as the grader does, on public inputs.

At release, the variants of each known mistake a check declares are computed
on the check's public inputs and recorded (variant output, catalog key), never
the reference or code; replay compares the student's output with them at the
grader's tolerance and says the same catalog sentence, in the notebook's
language. Here in this process: one corpus mistake per assignment that
declares its cause as a known mistake, graded and replayed on the same inputs,
in English and Korean.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import REPO
from corpus_cases import MistakeCase, mistakes

from autograder.catalog import messages
from autograder.check.known_mistakes import Mistake
from autograder.check.submission import Submission
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.integrations.release import STUDENT_SEED, solution_notebook
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.student import mistake_recording, recording, replay, replayed_mistakes

_MISTAKE_KEY = re.compile(r"^\d\d_\w+\.\w+\.mistake\.\w+$")


def _named_cases() -> list[MistakeCase]:
    """The first corpus mistake of each assignment whose cause is a known mistake (graded in this process)."""
    from autograder import grading_config

    config = grading_config.load()
    first: dict[str, MistakeCase] = {}
    for case in mistakes():
        if _MISTAKE_KEY.match(case.cause) and not config.device_counts(case.assignment):
            first.setdefault(case.assignment, case)
    return list(first.values())


def _said_mistakes(feedbacks: list[str], assignment: str) -> set[str]:
    """The known-mistake keys of `assignment` whose sentence (in the current language) the feedback says."""
    keys = [key for key in messages.ENGLISH if key.startswith(f"{assignment}.") and _MISTAKE_KEY.match(key)]
    return {key for key in keys if any(messages.text(key) in feedback for feedback in feedbacks)}


def _replayed(record: dict, arrays: list, case: MistakeCase) -> list[str]:
    namespace, report = load_namespace(read(case.file), 60)
    submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
    return [c.feedback for c in replay.replay(record, arrays, submission, {case.function}) if not c.passed]


@pytest.fixture(scope="module")
def records(config):
    """The release's record of each case's function, made once."""
    made: dict[tuple[str, str], tuple[dict, list]] = {}

    def record_of(case: MistakeCase) -> tuple[dict, list]:
        key = (case.assignment, case.function)
        if key not in made:
            made[key] = recording.record_assignment(case.assignment, config, solution_notebook(case.assignment, REPO),
                                                    STUDENT_SEED, {case.function})
        return made[key]

    return record_of


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("case", _named_cases(), ids=lambda c: c.id)
def test_replay_names_the_known_mistake_the_grader_names(case, language, records, config):
    record, arrays = records(case)
    with messages.using(language):
        graded = grade_submission(case.file, config, GradingOptions(seed=STUDENT_SEED, sandbox="inprocess",
                                                                     assignment=case.assignment,
                                                                     functions={case.function}))
        from_grader = _said_mistakes([c.feedback for c in graded.checks if not c.passed], case.assignment)
        from_replay = _said_mistakes(_replayed(record, arrays, case), case.assignment)
    assert case.cause in from_grader, f"{case.id}: the grader does not name {case.cause} in {language}"
    assert from_replay == from_grader, (f"{case.id} in {language}: the replay names {sorted(from_replay)}, "
                                        f"the grader {sorted(from_grader)}")


def test_recorded_mistakes_hold_no_variant_equal_to_the_reference():
    x = np.arange(4, dtype=np.float32)
    declared = [Mistake("a.f.mistake.same", lambda x: x * 1), Mistake("a.f.mistake.doubled", lambda x: x * 2),
                Mistake("a.f.mistake.undefined", lambda x: x[10])]
    arrays: list = []
    found = mistake_recording.variants(x, (x,), {}, declared, arrays)
    assert [variant["key"] for variant in found] == ["a.f.mistake.doubled"]
    assert len(arrays) == 1 and np.array_equal(arrays[0], x * 2)


def test_replay_names_the_first_recorded_variant_the_value_equals():
    arrays = [np.array([2.0, 4.0], np.float32), np.array([2.0, 4.0], np.float32)]
    mistakes_at_step = {"rtol": 1e-4, "atol": 1e-5, "variants": [{"key": "a.f.mistake.one", "value": {"__array__": 0}},
                                                                 {"key": "a.f.mistake.two", "value": {"__array__": 1}}]}
    assert replayed_mistakes.named(np.array([2.0, 4.00001], np.float32), mistakes_at_step, arrays) == "a.f.mistake.one"
    assert replayed_mistakes.named(np.array([2.0, 5.0], np.float32), mistakes_at_step, arrays) is None


def _relation_cases() -> list[MistakeCase]:
    """The corpus mistakes whose first hint must say how their values relate to the expected ones (graded in
    this process: one device)."""
    from autograder import grading_config

    config = grading_config.load()
    return [case for case in mistakes()
            if case.cause.startswith("relation.") and not config.device_counts(case.assignment)]


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("case", _relation_cases(), ids=lambda c: c.id)
def test_replay_says_first_how_the_values_relate_as_the_grader_does(case, language, records):
    """The student package finds the relation on the public inputs and leads with it, as grading does."""
    import types

    from corpus_causes import names_cause_first

    from autograder.check.cause_first import lead_with_the_cause
    from autograder.check.said_once import say_each_thing_once

    record, arrays = records(case)
    with messages.using(language):
        namespace, report = load_namespace(read(case.file), 60)
        submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
        checks = say_each_thing_once(lead_with_the_cause(replay.replay(record, arrays, submission, {case.function})))
        replayed = types.SimpleNamespace(checks=checks)
        assert names_cause_first(replayed, case), (
            f"{case.id} in {language}: the replay's first failure does not lead with {case.cause}:\n"
            + next((c.feedback for c in checks if c.status == "failed"), "(no check failed)"))
