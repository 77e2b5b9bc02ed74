"""Running an assignment's pytest suite against one submission."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from autograder.pytest_plugin import CheckOutcome, GradingPlugin
from autograder.submission import Submission

SUITES = Path(__file__).resolve().parent / "suites"


def suite_path(assignment: str) -> Path:
    return SUITES / f"test_{assignment}.py"


def run_checks(assignment: str, submission: Submission, seed: int, functions: set[str] | None = None) -> list[CheckOutcome]:
    """Run the suite of `assignment`; one outcome per executed check, in suite order."""
    plugin = GradingPlugin(submission, seed, functions)
    args = [
        str(suite_path(assignment)),
        "-c", str(SUITES / "pytest.ini"), "--rootdir", str(SUITES),
        "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
        "--quiet", "--quiet", "--tb=no", "--no-header", "-W", "ignore",
        "--capture=sys",
    ]
    sink = io.StringIO()
    previous = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with contextlib.redirect_stdout(sink):
            code = pytest.main(args, plugins=[plugin])
    finally:
        if previous is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = previous
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise RuntimeError(f"the {assignment} suite could not run (pytest exit {code}):\n{sink.getvalue()[-3000:]}")
    return list(plugin.outcomes.values())
