"""Check cells: `check("histogram", globals())` inside a student's notebook.

Runs that exercise's checks in the notebook's own kernel (the in-process
backend), prints the table, and returns the points earned. The return value
is the cell's last value, which nbgrader reads as partial credit. Nothing is
written to stderr, because nbgrader scores a grade cell 0 if anything is.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings

from autograder import grading_config
from autograder.cell_execution import LoadReport
from autograder.grading import score_outcomes
from autograder.inprocess import InProcessTransport
from autograder.reports.terminal_table import render
from autograder.results import SubmissionResult
from autograder.runner import run_checks
from autograder.submission import Submission


def check(function: str, namespace: dict, *, seed: int | None = None) -> float:
    """Grade `function` as defined in `namespace` (pass `globals()`); returns the points earned."""
    config = grading_config.load()
    assignment = config.assignment_of(function)
    seed = config.resolve_seed("check", seed)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        transport = InProcessTransport(dict(namespace), LoadReport([], []),
                                       config.limits.call_seconds, config.limits.submission_seconds)
        outcomes = run_checks(assignment, Submission(transport), seed, {function})
    result = SubmissionResult(name=function, path="", assignment=assignment, seed=seed,
                              checks=score_outcomes(outcomes, assignment, config))
    print(render(result), file=sys.stdout)
    return result.score

