"""The student package gives the exercise's advice where the grader gives it, decided on public inputs.

Beside the hints for a wrong value, a suite adds its advice after a judgement
(`fix=` on a trace count, an unrolled loop, an expected error; `why=` on a
missing construct), and to an exception the student's code raises (a check's
own wrapper); some hints only for a wrong dtype or a value that is not
finite; and a property check that failed on wrong values is "not checked".
The release records each as data on the public inputs; replay says it in the
notebook's language. Here in this process, for one corpus mistake of
each kind: the grader's and the replay's feedback name the same exercise
hints, and the same checks are not checked.
"""

from __future__ import annotations

import pytest
from conftest import REPO
from corpus_cases import MistakeCase, mistakes

from autograder.catalog import hint_ideas, messages
from autograder.check.submission import Submission
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.integrations.release import STUDENT_SEED, solution_notebook
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.student import recording, replay

CASES = {
    "01_immutable_updates/diagonal_python_loop": "an unrolled loop's fix",
    "03_control_flow/sum_init_static_num": "a trace count's fix",
    "03_control_flow/square_python_if": "advice added to a raised error",
    "04_static_args/activation_no_static": "an expected error's fix",
    "03_control_flow/sum_init_inclusive_bound": "later checks not checked after wrong values",
    "01_immutable_updates/where_promotes_dtype": "a hint given only for a wrong dtype",
    "02_where/safe_log_single_where": "a hint given only for a gradient that is not finite",
    "02_where/masked_mean_divide_by_count": "a hint given only for a value that is not finite",
}


def _cases() -> list[MistakeCase]:
    found = {case.id: case for case in mistakes() if case.id in CASES}
    assert set(found) == set(CASES), f"corpus cases missing: {sorted(set(CASES) - set(found))}"
    return [found[name] for name in CASES]


def _exercise_hints(feedbacks: list[str], assignment: str) -> set[str]:
    """The exercise hints of `assignment` (and its known mistakes) whose sentence the feedback says."""
    keys = [key for key in messages.ENGLISH
            if key.startswith(f"{assignment}.") and (key in hint_ideas.IDEAS or ".mistake." in key)]
    said = set()
    for key in keys:
        try:
            sentence = messages.text(key)
        except (KeyError, IndexError):  # a sentence with {fields}: not told apart here
            continue
        if any(sentence in feedback for feedback in feedbacks):
            said.add(key)
    return said


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c.id} ({CASES[c.id]})")
def test_replay_gives_the_graders_advice(case, language, config):
    record, arrays = recording.record_assignment(case.assignment, config, solution_notebook(case.assignment, REPO),
                                                 STUDENT_SEED, {case.function})
    namespace, report = load_namespace(read(case.file), 60)
    with messages.using(language):
        graded = grade_submission(case.file, config, GradingOptions(seed=STUDENT_SEED, sandbox="inprocess",
                                                                     assignment=case.assignment,
                                                                     functions={case.function})).checks
        replayed = replay.replay(record, arrays, Submission(InProcessTransport(namespace, report, 30, 240),
                                                            report.notes), {case.function})
        from_grader = _exercise_hints([c.feedback for c in graded if not c.passed], case.assignment)
        from_replay = _exercise_hints([c.feedback for c in replayed if not c.passed], case.assignment)
    assert from_grader, f"{case.id}: the grader gives no exercise advice in {language}"
    assert from_replay == from_grader, (f"{case.id} in {language}: the replay says {sorted(from_replay)}, "
                                        f"the grader {sorted(from_grader)}")
    assert {c.prop for c in replayed if c.not_checked} == {c.prop for c in graded if c.not_checked}
