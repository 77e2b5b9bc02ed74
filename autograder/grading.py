"""Grading one submission: a pipeline of named steps.

read the file -> resolve the assignment -> find the examples to skip ->
load it into a backend ->
run the assignment's suite -> score each check from grading.toml.
Every failure becomes feedback and zero points for what it affects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from autograder import example_cells, messages
from autograder.grading_config import GradingConfig
from autograder.inprocess import InProcessTransport, load_namespace
from autograder.pytest_plugin import CheckOutcome
from autograder.results import CheckResult, SubmissionResult
from autograder.runner import run_checks
from autograder.sandbox.limits import ChildLimits
from autograder.sandbox.parent import SandboxTransport
from autograder.submission import Submission
from autograder.submission_source import SubmissionError, read, resolve_assignment

# "sandbox": the OS sandbox (sandbox.os_isolation); "process": a sandbox child without
# OS isolation (explicitly weaker); "inprocess": the student's own process (`check`).
BACKENDS = ("sandbox", "process", "inprocess")


def grade_submission(
    path: Path | str,
    config: GradingConfig,
    *,
    seed: int,
    backend: str = "sandbox",
    assignment: str | None = None,
    functions: set[str] | None = None,
    name: str | None = None,
    run_suite: Callable[..., list[CheckOutcome]] = run_checks,
    zygote=None,
    programs=None,
    write_programs_to: Path | None = None,
    usage: dict | None = None,
) -> SubmissionResult:
    """Grade the file at `path`; never raises for anything the submission does.

    A batch worker passes its long-lived pytest session as `run_suite` (see
    suite_session), its zygote, which forks the sandbox child, and its batch's
    store of JAX's compiled programs (sandbox.shared_programs.SharedPrograms);
    to build that store, it grades the solution with `write_programs_to`, a
    directory that receives what the child compiled. `usage`, if given,
    receives the children's peak memory ("child_peak_rss_kb").
    """
    path = Path(path)
    name = name or path.stem
    try:
        source = read(path)
        assignment = resolve_assignment(source, config.assignments, assignment)
    except SubmissionError as error:
        assignment = _guess_assignment(path, config, assignment)
        return unreadable_result(name, path, assignment, config, seed, str(error), functions)
    skip = example_cells.cells_to_skip_in(assignment, source.cells, config)
    if backend in ("sandbox", "process"):
        transport = SandboxTransport(path, config.limits, child_limits=ChildLimits.from_config(config.sandbox),
                                     mode="os" if backend == "sandbox" else "process", zygote=zygote, skip_cells=skip,
                                     programs=programs.for_assignment(assignment) if programs else None,
                                     write_programs_to=write_programs_to)
        try:
            report = transport.start()
            outcomes = run_suite(assignment, Submission(transport, report.notes), seed, functions)
            printed = transport.captured_output()
        finally:
            transport.close()
            if usage is not None:
                usage["child_peak_rss_kb"] = transport.child_maxrss_kb
    elif backend == "inprocess":
        namespace, report = load_namespace(source, config.limits.load_seconds, skip)
        transport = InProcessTransport(namespace, report, config.limits.call_seconds, config.limits.submission_seconds)
        outcomes = run_suite(assignment, Submission(transport, report.notes), seed, functions)
        printed = ""
    else:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return SubmissionResult(
        name=name, path=str(path), assignment=assignment, seed=seed,
        checks=score_outcomes(outcomes, assignment, config),
        notes=list(report.notes), printed_output=printed,
    )


def score_outcomes(outcomes: list[CheckOutcome], assignment: str, config: GradingConfig) -> list[CheckResult]:
    """Points from grading.toml: all of a check's points if it passed, else none."""
    checks = []
    for outcome in outcomes:
        points = config.points_for(assignment, outcome.function, outcome.prop)
        checks.append(CheckResult(outcome.function, outcome.prop, points if outcome.passed else 0.0,
                                  points, outcome.passed, outcome.feedback))
    return checks


def unreadable_result(name: str, path: Path, assignment: str | None, config: GradingConfig, seed: int,
                      detail: str, functions: set[str] | None = None) -> SubmissionResult:
    """Every check of the assignment at zero, each with the same feedback."""
    checks = []
    if assignment is not None:
        for function, props in config.points[assignment].items():
            if functions is not None and function not in functions:
                continue
            for prop, points in props.items():
                checks.append(CheckResult(function, prop, 0.0, points, False, detail))
    return SubmissionResult(name=name, path=str(path), assignment=assignment, seed=seed, checks=checks, notes=[detail])


def crashed_result(name: str, path: Path, assignment: str | None, config: GradingConfig, seed: int, detail: str) -> SubmissionResult:
    """The placeholder written before grading starts, and kept if grading dies."""
    return unreadable_result(name, path, assignment, config, seed,
                             messages.text("report.grader_crashed", detail=detail))


def _guess_assignment(path: Path, config: GradingConfig, override: str | None) -> str | None:
    if override in config.assignments:
        return override
    matches = [a for a in sorted(config.assignments, key=len, reverse=True) if a in path.stem]
    return matches[0] if matches else None
