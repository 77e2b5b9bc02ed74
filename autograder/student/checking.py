"""Checking a student's functions against the recorded checks: shared by check cells and `autograder check`.

What checking needs (JAX among it) is imported where the checks run, not with this module: the process of
`autograder check` that starts one process per device count only merges and shows their results, without JAX.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from autograder.check.results import SubmissionResult
from autograder.reports.terminal_table import render
from autograder.student import jax_support
from autograder.student.strings import text

if TYPE_CHECKING:
    from autograder.check.function_claims import FunctionClaims
    from autograder.child.cell_execution import LoadReport
    from autograder.student import recorded


def check_namespace(package: recorded.Package, assignment: str, namespace: dict, load_report: LoadReport,
                    functions: set[str] | None, name: str, path: str = "",
                    claims: FunctionClaims | None = None) -> SubmissionResult:
    """Replay `assignment`'s recorded checks of `functions` (those `claims` takes, in a part of a check in two
    processes) against the functions in `namespace`."""
    jax_support.adapt()  # no-op where problem() already ran
    import jax

    from autograder.check.cause_first import lead_with_the_cause
    from autograder.check.said_once import say_each_thing_once
    from autograder.check.submission import Submission
    from autograder.sandbox.inprocess import InProcessTransport
    from autograder.student import recorded, replay

    record, arrays = recorded.read(assignment, package.directory, devices=jax.device_count())
    transport = InProcessTransport(namespace, load_report, package.call_seconds, package.submission_seconds)
    # One MLIR context for the whole replay: the exported programs parsed and run here are lowered in it too.
    with warnings.catch_warnings(record=True) as said, transport.one_mlir_context():
        warnings.simplefilter("always", DeprecationWarning)
        checks = say_each_thing_once(lead_with_the_cause(
            replay.replay(record, arrays, Submission(transport, load_report.notes), functions, claims)))
    notes = list(load_report.notes) + _apis_grading_lacks(package, [str(warning.message) for warning in said])
    return SubmissionResult(name=name, path=path, assignment=assignment, seed=int(record.get("seed", 0)),
                            checks=checks, notes=notes)


def _apis_grading_lacks(package: recorded.Package, said: list[str]) -> list[str]:
    """A note per API the checks saw the student's code use (JAX's deprecation warnings) that grading's JAX
    lacks: on this JAX the checks pass, in grading they will not (check.jax_api_versions)."""
    grader = package.index.get("grader_jax")
    if not isinstance(grader, str):
        return []
    from autograder.check import jax_api_versions

    return [text("student.api_missing_in_grading", api=change.api, grader=grader, replacement=change.replacement)
            for change in jax_api_versions.missing_in(grader, said)]


def render_result(result: SubmissionResult) -> str:
    """The grader's table, headed by what these checks ran on (the release's public inputs, not hidden ones)."""
    lines = render(result).splitlines()
    if lines:
        lines[0] = text("student.report_header", name=result.name, assignment=result.assignment)
    return "\n".join(lines)
