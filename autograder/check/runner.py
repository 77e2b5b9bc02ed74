"""Running an assignment's pytest suite against one submission."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import AbstractSet

import pytest

from autograder.check.function_claims import FunctionClaims
from autograder.check.pytest_plugin import CheckOutcome, GradingPlugin
from autograder.check.submission import Submission

SUITES = Path(__file__).resolve().parents[1] / "suites"


def suite_path(assignment: str) -> Path:
    """`assignment`'s suite: the kit's, else the course's own (course_suites); the kit's path when neither has one."""
    from autograder import course_suites

    for folder in course_suites.folders():
        if (folder / f"test_{assignment}.py").is_file():
            return folder / f"test_{assignment}.py"
    return SUITES / f"test_{assignment}.py"


def check_seconds_beside_suite(assignment: str) -> dict[str, float]:
    """What a check of each of `assignment`'s exercises alone costs, from the table beside its suite (the kit's or
    a course's: student.exercise_halves.SECONDS_TABLE). The student package, which has no suites, reads them from
    its index (recorded.Package.check_seconds)."""
    from autograder.student import exercise_halves

    return exercise_halves.seconds_in_table(suite_path(assignment).parent, assignment)


# The suites' own configuration only, and no plugin that could reorder or skip checks.
PYTEST_OPTIONS = (
    "-c", str(SUITES / "pytest.ini"), "--rootdir", str(SUITES),
    "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
    # Its teardown runs two full garbage collections (0.1 s) to report leaks nobody reads here.
    "-p", "no:unraisableexception",
    "--quiet", "--quiet", "--tb=no", "--no-header", "-W", "ignore",
    "--capture=sys",
)


def run_checks(assignment: str, submission: Submission, seed: int,
               functions: AbstractSet[str] | None = None, claims: FunctionClaims | None = None) -> list[CheckOutcome]:
    """Run the suite of `assignment`; one outcome per executed check, in suite order (with `claims`, the checks of
    the functions they take, in their order)."""
    suite = suite_path(assignment)
    if not suite.is_file():  # a course's assignment whose suite is not written (or was moved): say where we looked
        from autograder import course_suites

        looked = ", ".join(str(folder) for folder in course_suites.folders())
        raise RuntimeError(f"the {assignment} suite is missing: looked for test_{assignment}.py in {looked}")
    plugin = GradingPlugin(submission, seed, functions, claims)
    sink = io.StringIO()
    with no_plugin_autoload(), contextlib.redirect_stdout(sink):
        code = pytest.main([str(suite), *PYTEST_OPTIONS], plugins=[plugin])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise RuntimeError(f"the {assignment} suite could not run (pytest exit {code}):\n{sink.getvalue()[-3000:]}")
    return list(plugin.outcomes.values())


@contextlib.contextmanager
def no_plugin_autoload():
    """pytest without the plugins that happen to be installed, for the duration of the call."""
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous
