"""Every mistake loses exactly its points; every correct alternative scores full marks.

A mistake's feedback, at the default hint level, names its JAX idea (the
case's `feedback`) and quotes no line of a reference solution.
"""

from __future__ import annotations

import pytest
from corpus_cases import corrects, mistakes
from solution_lines import secret_lines

from autograder.catalog import messages
from autograder.grade.pipeline import GradingOptions, grade_submission

SOLUTION_CODE = secret_lines(expressions=True)


@pytest.mark.parametrize("case", mistakes(), ids=lambda c: c.id)
def test_mistake_fails_exactly_its_checks(case, config, seed):
    result = grade_submission(case.file, config,
                              GradingOptions(seed=seed, sandbox="inprocess", assignment=case.assignment,
                                             functions={case.function}))
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
        if not check.passed:
            assert case.feedback in check.feedback or pointer in check.feedback, (
                f"{case.id}: feedback of {check.name!r} should mention {case.feedback!r}:\n{check.feedback}")
            quoted = [line for line in SOLUTION_CODE if line in check.feedback]
            assert not quoted, f"{case.id}: the default feedback of {check.name!r} quotes the solution: {quoted}"


@pytest.mark.parametrize("case", corrects(), ids=lambda c: c.id)
def test_correct_alternative_scores_full_marks(case, config, seed):
    result = grade_submission(case.file, config,
                              GradingOptions(seed=seed, sandbox="inprocess", assignment=case.assignment,
                                             functions=set(case.functions)))
    assert {c.function for c in result.checks} == set(case.functions)
    assert result.score == result.max_score, (
        f"{case.id} ({case.why}) lost points:\n"
        + "\n".join(f"{c.name}: {c.feedback}" for c in result.checks if not c.passed))
