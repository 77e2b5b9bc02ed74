"""Every mistake loses exactly its points; every correct alternative scores full marks.

A mistake's feedback, at the default hint level, names its JAX idea (the
case's `feedback`) and quotes no line of a reference solution. A mistake
that declares its cause gets a first hint that names it, and no mistake's
feedback asserts a cause its code does not have, in English and in Korean
(tests/corpus_causes.py; scripts/corpus_hint_accuracy.py prints the figures).
No relation sentence (how wrong values relate to the expected ones) is said
of any correct alternative.
"""

from __future__ import annotations

import pytest
from corpus_cases import corrects, mistakes
from corpus_causes import cause_sentence, false_causes, first_failure, names_cause_first
from corpus_causes import said as said_in
from sandbox_children import SandboxChildren
from solution_lines import secret_lines

from autograder.catalog import messages
from autograder.grade.pipeline import GradingOptions

SOLUTION_CODE = secret_lines(expressions=True)


def _sandbox(config, assignment):
    """In this process, unless the assignment is graded with several device counts (grading.toml [devices]):
    this process's JAX has one, so those cases run in sandbox children that start with each count."""
    return "process" if config.device_counts(assignment) else "inprocess"


@pytest.fixture(scope="module")
def children(config):
    """The cases graded in sandbox children fork them from a zygote, as a batch worker does."""
    kept = SandboxChildren(config, "process")
    yield kept
    kept.close()


@pytest.mark.parametrize("case", mistakes(), ids=lambda c: c.id)
def test_mistake_fails_exactly_its_checks(case, config, seed, children):
    result = _graded_in(case, config, seed, "en", children)[0]
    failed = {c.prop for c in result.checks if not c.passed}
    assert result.checks, f"{case.id}: no checks ran for {case.function}"
    assert failed == set(case.fails), (
        f"{case.id} ({case.why}): expected to fail {sorted(case.fails)}, failed {sorted(failed)}.\n"
        + "\n".join(f"{c.name}: {c.feedback}" for c in result.checks if not c.passed))
    expected_loss = sum(config.points_for(case.assignment, case.function, p) for p in case.fails)
    assert result.max_score - result.score == expected_loss
    assert case.feedback, f"{case.id}: cases.toml must name the JAX idea its feedback teaches"
    pointer = messages.text("call.said_above")  # a hint already given for this function is not repeated
    for check in result.checks:
        if check.not_checked:  # its values check above failed: it says so, and points there
            assert check.feedback in {messages.text("check.not_checked", values_check=c.label) for c in result.checks}
        elif not check.passed:
            assert case.feedback in check.feedback or pointer in check.feedback, (
                f"{case.id}: feedback of {check.name!r} should mention {case.feedback!r}:\n{check.feedback}")
            quoted = [line for line in SOLUTION_CODE if line in check.feedback]
            assert not quoted, f"{case.id}: the default feedback of {check.name!r} quotes the solution: {quoted}"


@pytest.mark.parametrize("case", corrects(), ids=lambda c: c.id)
def test_correct_alternative_scores_full_marks(case, config, seed, children):
    result = children.grade(case.file, config, GradingOptions(seed=seed, sandbox=_sandbox(config, case.assignment),
                                                             assignment=case.assignment,
                                                             functions=set(case.functions)))
    assert {c.function for c in result.checks} == set(case.functions)
    assert result.score == result.max_score, (
        f"{case.id} ({case.why}) lost points:\n"
        + "\n".join(f"{c.name}: {c.feedback}" for c in result.checks if not c.passed))
    # No relation between wrong and expected values (check/value_relations.py) is said of a correct solution.
    relations = [key for key in messages.ENGLISH if key.startswith("relation.")]
    said = [(c.name, key) for c in result.checks for key in relations if said_in(key, c.feedback) >= 0]
    assert not said, f"{case.id}: a relation is said of a correct alternative: {said}"


LANGUAGES = ("en", "ko")


# One grading per case and language, read by every test of that case (the file runs in one worker: --dist loadfile).
_GRADED: dict[tuple[str, str], tuple] = {}


def _graded_in(case, config, seed, language, children):
    key = (case.id, case.function, language)  # one file can be a case of several functions
    if key not in _GRADED:
        _GRADED[key] = _grade_in(case, config, seed, language, children)
    return _GRADED[key]


def _grade_in(case, config, seed, language, children):
    messages.choose(language)
    try:
        result = children.grade(case.file, config, GradingOptions(seed=seed, sandbox=_sandbox(config, case.assignment),
                                                                 assignment=case.assignment,
                                                                 functions={case.function}))
        with messages.hints_at(config.hint_level("grade")):
            return result, cause_sentence(case), names_cause_first(result, case), false_causes(result, case)
    finally:
        messages.choose(None)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", [c for c in mistakes() if c.names_a_cause], ids=lambda c: c.id)
def test_first_hint_names_the_real_cause(case, language, config, seed, children):
    result, cause, named, _ = _graded_in(case, config, seed, language, children)
    check = first_failure(result)
    if case.cause_gap:  # a recorded miss: when the hint comes to name the cause, remove the gap from cases.toml
        assert not named, f"{case.id}, {language}: the first hint now names {cause!r}; remove its cause_gap"
        return
    assert named, (f"{case.id} ({case.why}), {language}: the first hint should name {cause!r}; "
                   f"first failed check {check.name if check else None!r} says:\n{check.feedback if check else ''}")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("case", [c for c in mistakes() if c.names_a_cause or c.not_causes], ids=lambda c: c.id)
def test_no_hint_asserts_a_false_cause(case, language, config, seed, children):
    result, _, _, wrong = _graded_in(case, config, seed, language, children)
    assert not wrong, (f"{case.id} ({case.why}), {language}: the feedback asserts causes this code does not have: "
                       f"{wrong}\n" + "\n".join(c.feedback for c in result.checks if not c.passed))
