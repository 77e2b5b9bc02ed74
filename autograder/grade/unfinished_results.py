"""Results of a submission that was not graded: unreadable, or its grading did not finish.

Its own module, with light imports, so that the batch parent writes its
placeholders before (and without) importing the grading machinery (pytest,
nbformat, numpy, JAX).
"""

from __future__ import annotations

from pathlib import Path
from typing import AbstractSet

from autograder.check.results import CheckResult, SubmissionResult
from autograder.grading_config import GradingConfig


def unreadable_result(name: str, path: Path, assignment: str | None, config: GradingConfig, seed: int,
                      detail: str, functions: AbstractSet[str] | None = None) -> SubmissionResult:
    """Every check of the assignment at zero, each with the same feedback."""
    checks = []
    if assignment is not None:
        for function, props in config.points[assignment].items():
            if functions is not None and function not in functions:
                continue
            for prop, points in props.items():
                checks.append(CheckResult(function, prop, 0.0, points, False, detail))
    return SubmissionResult(name=name, path=str(path), assignment=assignment, seed=seed, checks=checks, notes=[detail],
                            problem="unreadable")


def crashed_result(name: str, path: Path, assignment: str | None, config: GradingConfig, seed: int,
                   detail: str) -> SubmissionResult:
    """The placeholder written before grading starts, and kept if grading dies."""
    from autograder.catalog import messages

    result = unreadable_result(name, path, assignment, config, seed,
                               messages.text("report.grader_crashed", detail=detail))
    result.problem = "grader_error"
    return result
