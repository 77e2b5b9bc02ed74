"""Check cells: `check("histogram", globals())` inside a student's notebook.

Runs that exercise's checks in the notebook's own kernel (the in-process
backend) and shows the table (reports.check_cell): under nbgrader it ends
with the points earned, which nbgrader reads as partial credit; in a
student's kernel it ends with no value. Hints are at grading.toml's
`check_hints` level, or `grade_hints` under nbgrader's autograde. Nothing is
written to stderr, because nbgrader scores a grade cell 0 if anything is: not
Python's sys.stderr (warnings, a student's debug prints), and not file
descriptor 2 either, where XLA's C++ logging writes and which a Jupyter
kernel forwards to the cell's stderr.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path

from autograder import course, grading_config
from autograder.catalog import messages
from autograder.check.pytest_plugin import one_shape_set
from autograder.check.results import SubmissionResult
from autograder.check.runner import run_checks
from autograder.check.submission import Submission
from autograder.child.cell_execution import LoadReport
from autograder.grade.pipeline import score_outcomes
from autograder.reports import check_cell
from autograder.reports.terminal_table import render
from autograder.sandbox import compilation_cache
from autograder.sandbox.inprocess import InProcessTransport


def check(function: str, namespace: dict, *, seed: int | None = None) -> float | None:
    """Grade `function` as defined in `namespace` (pass `globals()`); the points earned, or None in Jupyter.

    Feedback is in the notebook's language: a Korean notebook's setup cell sets
    `AUTOGRADER_LANG = "ko"` (an explicit $AUTOGRADER_LANG still wins). This call is an entry point: the
    environment's language is read here, once, and held for the whole check (messages.entering).
    """
    with messages.entering(), messages.using(_notebook_language(namespace)):
        return _check(function, namespace, seed)


def _notebook_language(namespace: dict) -> str | None:
    language = namespace.get("AUTOGRADER_LANG")
    return language if isinstance(language, str) else None


def _grading_toml() -> Path:
    """The grading.toml of the course the notebook is in (the nearest folder from the kernel's up that holds
    one), else the kit's own in a checkout of its repository (a notebook opened elsewhere with the kit
    installed from a checkout), else the current directory's (which load() says is missing)."""
    found = course.around(Path.cwd())
    if found is not None:
        return found.grading_toml
    own = grading_config.REPO_ROOT / course.GRADING_TOML
    return own if own.is_file() else grading_config.DEFAULT_PATH


def _check(function: str, namespace: dict, seed: int | None) -> float | None:
    config = grading_config.load(_grading_toml())
    mode = "grade" if os.environ.get("NBGRADER_EXECUTION") == "autograde" else "check"
    assignment = config.assignment_of(function)
    seed = config.resolve_seed("check", seed)
    compilation_cache.enable_private()  # a student's kernel runs its check cells again and again
    stderr = io.StringIO()
    with _file_descriptor_2_discarded(), contextlib.redirect_stderr(stderr), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A stub whose whole `def` is a solution region leaves the name undefined:
        # the kernel cannot tell us which cell raised, so say what both causes mean.
        problems = [] if function in namespace else [messages.text("notebook.missing_function")]
        transport = InProcessTransport(dict(namespace), LoadReport([], [], problems),
                                       config.limits.call_seconds, config.limits.submission_seconds)
        shapes = one_shape_set() if mode == "check" else contextlib.nullcontext()
        with messages.hints_at(config.hint_level(mode)), shapes:
            outcomes = run_checks(assignment, Submission(transport), seed, {function})
            result = SubmissionResult(name=function, path="", assignment=assignment, seed=seed,
                                      checks=score_outcomes(outcomes, assignment, config))
    return check_cell.show(result, render(result))


@contextlib.contextmanager
def _file_descriptor_2_discarded():
    """Point file descriptor 2 at the null device while the checks run (C-level writes bypass sys.stderr)."""
    try:
        saved = os.dup(2)
    except OSError:  # no descriptor 2: nothing can reach a cell's stderr through it
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
