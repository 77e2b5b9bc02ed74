"""Every solution notebook scores full marks and every released stub scores 0, through both backends.

In the OS sandbox each child forks from a zygote, as in `autograder grade`'s
workers (tests/sandbox_children.py); a child started on its own is what
nbgrader's sandboxed check cells use (tests/test_nbgrader_sandboxed_grades.py).
"""

from __future__ import annotations

import pytest
from conftest import REPO
from sandbox_children import SandboxChildren

from autograder import grading_config
from autograder.grade.pipeline import GradingOptions

ASSIGNMENTS = grading_config.load().assignments
BACKENDS = ["inprocess", "os"]


def _solution(assignment):
    return REPO / "solutions" / assignment / f"{assignment}.ipynb"


def _stub(assignment):
    return REPO / "assignments" / assignment / f"{assignment}.ipynb"


@pytest.fixture(scope="module")
def children(config):
    kept = SandboxChildren(config, "os")
    yield kept
    kept.close()


def _graded(path, backend, config, seed, children):
    return children.grade(path, config, GradingOptions(seed=seed, sandbox=backend))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_notebook_scores_full_marks(assignment, backend, config, seed, children):
    result = _graded(_solution(assignment), backend, config, seed, children)
    assert result.assignment == assignment
    assert result.max_score == config.assignment_total(assignment)
    assert result.score == result.max_score, "\n".join(f"{c.name}: {c.feedback}" for c in result.checks if not c.passed)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_stub_scores_zero_with_not_implemented_feedback(assignment, backend, config, seed, children):
    result = _graded(_stub(assignment), backend, config, seed, children)
    assert result.max_score == config.assignment_total(assignment)
    assert result.score == 0
    for check in result.checks:
        assert "not implemented yet" in check.feedback, f"{check.name}: {check.feedback}"
