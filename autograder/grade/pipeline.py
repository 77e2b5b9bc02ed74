"""Grading one submission: a pipeline of named steps.

read the file -> resolve the assignment -> find the examples to skip ->
load it into a backend ->
run the assignment's suite -> score each check from grading.toml.
Every failure becomes feedback and zero points for what it affects.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, AbstractSet, Callable

from autograder.catalog import messages
from autograder.check.cause_first import lead_with_the_cause
from autograder.check.device_runs import DeviceRun, merged_outcomes
from autograder.check.function_claims import FunctionClaims
from autograder.check.gated_checks import mark_not_checked
from autograder.check.pytest_plugin import CheckOutcome
from autograder.check.results import CheckResult, SubmissionResult
from autograder.check.runner import run_checks
from autograder.check.said_once import say_each_thing_once
from autograder.check.submission import Submission
from autograder.grade.unfinished_results import unreadable_result
from autograder.grading_config import GradingConfig
from autograder.load import example_cells
from autograder.load.assignment_names import assignment_in_file_name
from autograder.load.submission_source import SubmissionError, guess_assignment, read, resolve_assignment
from autograder.protocol.limits import ChildLimits
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.sandbox.parent import SandboxTransport

if TYPE_CHECKING:
    from autograder.sandbox.program_runner import ConfinedProgramRunner
    from autograder.sandbox.shared_programs import SharedPrograms
    from autograder.sandbox.zygote_client import Zygote

# Where submission code runs; one name everywhere (`--sandbox os|process`, nbgrader's setting):
# "os": a sandbox child in the OS sandbox (sandbox.os_isolation); "process": a sandbox child
# without OS isolation (explicitly weaker); "inprocess": the student's own process (`check`).
SANDBOX_MODES = ("os", "process", "inprocess")


@dataclasses.dataclass(frozen=True)
class GradingOptions:
    """How to grade a submission: what the caller decides, not what the submission says."""

    seed: int  # the hidden inputs' seed
    sandbox: str = "os"  # one of SANDBOX_MODES
    assignment: str | None = None  # overrides the notebook's metadata and its file name
    functions: AbstractSet[str] | None = None  # grade only these functions (a check cell); None: all
    # In a part of a check in two processes (student.exercise_halves): of those, the ones this part takes.
    claims: FunctionClaims | None = None
    name: str | None = None  # the result's name; default: the file's stem
    hints: str | None = None  # hint level; default grading.toml's grade_hints ($AUTOGRADER_HINTS wins)
    # How the student's feedback names the file: its path inside what they handed in; default: its name.
    # Never the grading machine's path (an instructor's home directory, a CI runner's workspace).
    shown: str | None = None

    def __post_init__(self):
        if self.sandbox not in SANDBOX_MODES:
            raise ValueError(f"GradingOptions.sandbox is {self.sandbox!r}; expected one of {SANDBOX_MODES}")
        if self.functions is not None and not isinstance(self.functions, frozenset):
            object.__setattr__(self, "functions", frozenset(self.functions))


@dataclasses.dataclass
class WorkerResources:
    """What a long-lived batch worker lends to each submission it grades.

    `run_suite` is its long-lived pytest session (check.suite_session), `zygote`
    forks the sandbox children, `program_runner` is its clean-room runner
    (sandbox.program_runner; without one, each submission starts its own),
    `programs` is the batch's store of JAX's
    compiled programs (sandbox.shared_programs.SharedPrograms); to build that
    store the worker grades the solution with `write_programs_to`, a directory
    that receives what the child compiled. After grading, `child_peak_rss_kb`
    holds the children's peak memory.
    """

    run_suite: Callable[..., list[CheckOutcome]] = run_checks
    zygote: Zygote | None = None
    program_runner: ConfinedProgramRunner | None = None
    programs: SharedPrograms | None = None
    write_programs_to: Path | None = None
    child_peak_rss_kb: int = 0


def grade_submission(path: Path | str, config: GradingConfig, options: GradingOptions,
                     worker: WorkerResources | None = None) -> SubmissionResult:
    """Grade the file at `path`; never raises for anything the submission does."""
    path = Path(path)
    worker = worker or WorkerResources()
    name = options.name or path.stem
    try:
        source = read(path, options.shown or path.name)
        assignment = resolve_assignment(source, config.assignments, options.assignment)
    except SubmissionError as error:
        guessed = guess_assignment(path, config.assignments, options.assignment)
        return unreadable_result(name, path, guessed, config, options.seed, str(error),
                                 options.functions)
    # A Korean notebook gets Korean feedback unless --lang says otherwise.
    with messages.using(source.language), messages.hints_at(options.hints or config.hint_level("grade")):
        return _grade_source(source, path, name, assignment, config, options, worker)


def _grade_source(source, path: Path, name: str, assignment: str, config: GradingConfig, options: GradingOptions,
                  worker: WorkerResources) -> SubmissionResult:
    mismatch = assignment_mismatch(source, assignment, options.assignment, config.assignments)
    skip = example_cells.cells_to_skip_in(assignment, source.cells, config)
    if options.sandbox in ("os", "process"):
        runs, notes, printed, problem = [], [], "", None
        for devices in config.device_counts(assignment) or (0,):
            run, run_report, run_printed, run_problem = _grade_in_sandbox(path, assignment, config, options, worker,
                                                                          skip, devices)
            runs.append(run)
            # The first grading's output is the submission's; a later one adds only its new notes and problem.
            notes += [note for note in run_report.notes if note not in notes]
            printed, problem = printed or run_printed, problem or run_problem
        outcomes = merged_outcomes(runs)
    else:
        namespace, report = load_namespace(source, config.limits.load_seconds, skip, config.limits.busy_factor)
        in_process = InProcessTransport(namespace, report, config.limits.call_seconds, config.limits.submission_seconds,
                                        config.limits.busy_factor)
        submission = Submission(in_process, report.notes)
        if options.claims is None:
            outcomes = worker.run_suite(assignment, submission, options.seed, options.functions)
        else:  # a check's part: its own process, never a batch's worker with a session of its own
            outcomes = run_checks(assignment, submission, options.seed, options.functions, options.claims)
        notes, printed, problem = list(report.notes), "", None
    return SubmissionResult(
        name=name, path=str(path), assignment=assignment, seed=options.seed,
        checks=score_outcomes(outcomes, assignment, config),
        notes=[mismatch, *notes] if mismatch else notes, printed_output=printed,
        problem=problem, assignment_mismatch=mismatch, language=messages.language(),
    )


def _grade_in_sandbox(path: Path, assignment: str, config: GradingConfig, options: GradingOptions,
                      worker: WorkerResources, skip: frozenset[int], devices: int):
    """One grading in a sandbox child and the clean-room runner, both with `devices` CPU devices (0: JAX's
    default); its DeviceRun, load report, captured output and problem (None when there was none)."""
    transport = SandboxTransport(path, config.limits, child_limits=ChildLimits.from_config(config.sandbox),
                                 mode=options.sandbox, zygote=worker.zygote, skip_cells=skip,
                                 programs=worker.programs.for_assignment(assignment) if worker.programs else None,
                                 write_programs_to=worker.write_programs_to, cpu_devices=devices)
    runner = worker.program_runner or _own_runner(options.sandbox, config)
    runner.use_devices(max(devices, 1))
    runner.deadline = transport.wall_deadline  # the runner's time is the submission's too
    runner.budget = transport  # and so is its CPU time
    too_busy_before = runner.too_busy
    try:
        report = transport.start()
        if runner is not worker.program_runner:
            runner.zygote = transport.zygote  # fork the runner where the child came from
        outcomes = worker.run_suite(assignment, Submission(transport, report.notes, programs=runner,
                                                           devices=max(devices, 1)),
                                    options.seed, options.functions)
        printed = transport.captured_output()
        # The machine too busy twice for one of its programs: the grader's problem, and a look at it.
        problem = transport.load_problem or ("grader_error" if runner.too_busy > too_busy_before else None)
    finally:
        transport.close()
        runner.deadline = None
        runner.budget = None
        if runner is not worker.program_runner:
            runner.close()
        worker.child_peak_rss_kb = max(worker.child_peak_rss_kb, transport.child_maxrss_kb)
    return DeviceRun(max(devices, 1), outcomes), report, printed, problem


def _own_runner(sandbox: str, config: GradingConfig) -> ConfinedProgramRunner:
    """A clean-room runner for one submission graded outside a batch worker."""
    from autograder.sandbox.program_runner import ConfinedProgramRunner

    return ConfinedProgramRunner.for_config(sandbox, config)


def assignment_mismatch(source, assignment: str, override: str | None, known: list[str]) -> str | None:
    """A note naming the disagreement when --assignment, the metadata and the file name point to different
    assignments."""
    said = []
    if override in known:
        said.append((messages.text("load.source_option"), override))
    if source.assignment_hint in known:
        said.append((messages.text("load.source_metadata"), source.assignment_hint))
    by_name = assignment_in_file_name(source.path, known)
    if by_name is not None:
        said.append((messages.text("load.source_file_name"), by_name))
    if all(named == assignment for _, named in said):
        return None
    chosen_by = next(where for where, named in said if named == assignment)
    evidence = "; ".join(messages.text("load.source_says", source=where, assignment=named)
                         for where, named in said if named != assignment)
    return messages.text("load.assignment_mismatch", assignment=assignment, chosen_by=chosen_by, evidence=evidence)


def score_outcomes(outcomes: list[CheckOutcome], assignment: str, config: GradingConfig) -> list[CheckResult]:
    """Points from grading.toml: all of a check's points if it passed, else none; a property check that
    wrong values kept from its property marked not checked; the cause said first; each hint said once."""
    checks = []
    for outcome in outcomes:
        points = config.points_for(assignment, outcome.function, outcome.prop)
        check = CheckResult(outcome.function, outcome.prop, points if outcome.passed else 0.0, points,
                            outcome.passed, "")
        checks.append(check if outcome.failed_with is None else check.failing_with(outcome.failed_with))
    return say_each_thing_once(lead_with_the_cause(mark_not_checked(checks)))


