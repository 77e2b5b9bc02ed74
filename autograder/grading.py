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
from autograder.said_once import say_each_thing_once
from autograder.sandbox.limits import ChildLimits
from autograder.sandbox.parent import SandboxTransport
from autograder.submission import Submission
from autograder.submission_source import SubmissionError, read, resolve_assignment

# Where submission code runs; one name everywhere (`--sandbox os|process`, nbgrader's setting):
# "os": a sandbox child in the OS sandbox (sandbox.os_isolation); "process": a sandbox child
# without OS isolation (explicitly weaker); "inprocess": the student's own process (`check`).
BACKENDS = ("os", "process", "inprocess")


def grade_submission(
    path: Path | str,
    config: GradingConfig,
    *,
    seed: int,
    backend: str = "os",
    assignment: str | None = None,
    functions: set[str] | None = None,
    name: str | None = None,
    run_suite: Callable[..., list[CheckOutcome]] = run_checks,
    zygote=None,
    programs=None,
    write_programs_to: Path | None = None,
    usage: dict | None = None,
    hints: str | None = None,
) -> SubmissionResult:
    """Grade the file at `path`; never raises for anything the submission does.

    A batch worker passes its long-lived pytest session as `run_suite` (see
    suite_session), its zygote, which forks the sandbox child, and its batch's
    store of JAX's compiled programs (sandbox.shared_programs.SharedPrograms);
    to build that store, it grades the solution with `write_programs_to`, a
    directory that receives what the child compiled. `usage`, if given,
    receives the children's peak memory ("child_peak_rss_kb"). Hints are at
    level `hints`, default grading.toml's `grade_hints` ($AUTOGRADER_HINTS wins).
    """
    path = Path(path)
    name = name or path.stem
    override = assignment
    try:
        source = read(path)
        assignment = resolve_assignment(source, config.assignments, override)
    except SubmissionError as error:
        assignment = _guess_assignment(path, config, override)
        return unreadable_result(name, path, assignment, config, seed, str(error), functions)
    # A Korean notebook gets Korean feedback unless --lang says otherwise.
    with messages.using(source.language), messages.hints_at(hints or config.hint_level("grade")):
        return _grade_source(source, path, name, assignment, override, config, seed, backend, functions,
                             run_suite, zygote, programs, write_programs_to, usage)


def _grade_source(source, path: Path, name: str, assignment: str, override: str | None, config: GradingConfig,
                  seed: int, backend: str, functions, run_suite, zygote, programs, write_programs_to,
                  usage) -> SubmissionResult:
    mismatch = assignment_mismatch(source, assignment, override, config.assignments)
    skip = example_cells.cells_to_skip_in(assignment, source.cells, config)
    if backend in ("os", "process"):
        transport = SandboxTransport(path, config.limits, child_limits=ChildLimits.from_config(config.sandbox),
                                     mode=backend, zygote=zygote, skip_cells=skip,
                                     programs=programs.for_assignment(assignment) if programs else None,
                                     write_programs_to=write_programs_to)
        try:
            report = transport.start()
            outcomes = run_suite(assignment, Submission(transport, report.notes), seed, functions)
            printed = transport.captured_output()
            problem = transport.load_problem
        finally:
            transport.close()
            if usage is not None:
                usage["child_peak_rss_kb"] = transport.child_maxrss_kb
    elif backend == "inprocess":
        namespace, report = load_namespace(source, config.limits.load_seconds, skip)
        in_process = InProcessTransport(namespace, report, config.limits.call_seconds, config.limits.submission_seconds)
        outcomes = run_suite(assignment, Submission(in_process, report.notes), seed, functions)
        printed, problem = "", None
    else:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    return SubmissionResult(
        name=name, path=str(path), assignment=assignment, seed=seed,
        checks=score_outcomes(outcomes, assignment, config),
        notes=[mismatch, *report.notes] if mismatch else list(report.notes), printed_output=printed,
        problem=problem, assignment_mismatch=mismatch, language=messages.language(),
    )


def assignment_mismatch(source, assignment: str, override: str | None, known: list[str]) -> str | None:
    """A note naming the disagreement when --assignment, the metadata and the file name point to different
    assignments."""
    said = []
    if override in known:
        said.append((messages.text("load.source_option"), override))
    if source.assignment_hint in known:
        said.append((messages.text("load.source_metadata"), source.assignment_hint))
    by_name = _guess_assignment(source.path, None, None, known)
    if by_name is not None:
        said.append((messages.text("load.source_file_name"), by_name))
    if all(named == assignment for _, named in said):
        return None
    chosen_by = next(where for where, named in said if named == assignment)
    evidence = "; ".join(messages.text("load.source_says", source=where, assignment=named)
                         for where, named in said if named != assignment)
    return messages.text("load.assignment_mismatch", assignment=assignment, chosen_by=chosen_by, evidence=evidence)


def score_outcomes(outcomes: list[CheckOutcome], assignment: str, config: GradingConfig) -> list[CheckResult]:
    """Points from grading.toml: all of a check's points if it passed, else none; each hint said once."""
    checks = []
    for outcome in outcomes:
        points = config.points_for(assignment, outcome.function, outcome.prop)
        checks.append(CheckResult(outcome.function, outcome.prop, points if outcome.passed else 0.0,
                                  points, outcome.passed, outcome.feedback))
    return say_each_thing_once(checks)


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
    return SubmissionResult(name=name, path=str(path), assignment=assignment, seed=seed, checks=checks, notes=[detail],
                            problem="unreadable")


def crashed_result(name: str, path: Path, assignment: str | None, config: GradingConfig, seed: int,
                   detail: str) -> SubmissionResult:
    """The placeholder written before grading starts, and kept if grading dies."""
    result = unreadable_result(name, path, assignment, config, seed,
                               messages.text("report.grader_crashed", detail=detail))
    result.problem = "grader_error"
    return result


def _guess_assignment(path: Path, config: GradingConfig | None, override: str | None,
                      known: list[str] | None = None) -> str | None:
    known = known if known is not None else config.assignments if config is not None else []
    if override in known:
        return override
    matches = [a for a in sorted(known, key=len, reverse=True) if a in path.stem]
    return matches[0] if matches else None
