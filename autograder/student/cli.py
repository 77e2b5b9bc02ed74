"""The student package's `autograder` command: `autograder check NOTEBOOK`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from autograder.catalog import messages


def run() -> None:
    from autograder.warm_start import client, ending

    ending.end_process(client.run_check("student", sys.argv[1:], main))  # skips tearing down JAX's backend


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    # The run's language (--lang, else $AUTOGRADER_LANG, else each notebook's own) and hint level
    # ($AUTOGRADER_HINTS): read here once, before the parser so that its --help is in it too, and held from here on.
    with messages.speaking(messages.asked_for(arguments)), messages.hinting(messages.hint_level_override()):
        args = _parsed(arguments)
        return args.command(args)


def _parsed(arguments: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="autograder", description=messages.text("cli.help_student_description"))
    parser.add_argument("--lang", metavar="LANG", help=messages.text("cli.help_lang"))
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    check = commands.add_parser("check", help=messages.text("cli.help_check"))
    check.add_argument("path", type=Path, help=messages.text("cli.help_check_path"))
    check.add_argument("--exercise", action="append", metavar="NAME", help=messages.text("cli.help_exercise"))
    check.add_argument("--assignment", help=messages.text("cli.help_assignment"))
    check.add_argument("--seed", type=int, help=argparse.SUPPRESS)  # accepted; the inputs are the recorded ones
    check.set_defaults(command=_check)
    messages.translate_help(parser)
    return parser.parse_args(arguments)


def _check(args) -> int:
    try:
        return _checked(args)
    except Exception as error:  # the checks' own failure: one sentence for course staff, no traceback
        from autograder.student import jax_support

        print(messages.text("student.kit_failed", error=f"{type(error).__name__}: {error}"[:300],
                            versions=jax_support.versions()), file=sys.stderr)
        return 2


def _checked(args) -> int:
    from autograder.sandbox import compile_speed

    # As grading's sandbox children compile: the same values, and a first check sooner. Before JAX's backend starts.
    compile_speed.add_to_environment(os.environ)
    from autograder.student import jax_support

    language, declared = _notebook_metadata(args.path)
    with messages.using(language):
        # JAX itself is imported where the checks run: in this process, or only in those of the device counts.
        problem = jax_support.version_problem()
        if problem is not None:
            print(problem.sentence(in_notebook=False), file=sys.stderr)
            return 2
    from autograder.student import recorded
    from autograder.student.recorded import Package
    from autograder.student.strings import text

    try:
        package = Package()
    except recorded.RecordError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    if args.exercise:
        unknown = [e for e in args.exercise if package.assignment_of(e) is None]
        if unknown:
            print(text("student.unknown_function", function=", ".join(unknown), known=", ".join(package.functions())),
                  file=sys.stderr)
            return 2
    with messages.using(language):
        # The processes of an assignment checked with several device counts start before this one reads the
        # notebook; they are stopped if it turns out to be unreadable or of another assignment.
        early = _started_early(args, package, declared)
        from autograder.load.submission_source import SubmissionError, read

        try:
            try:
                source = read(args.path)
            except SubmissionError as error:
                print(error)
                return 1
            assignment = _assignment(source, package, args.assignment)
            if assignment is None:
                print(messages.text("load.unknown_assignment", path=args.path, known=", ".join(package.assignments)))
                return 1
            result = _result(args, package, source, assignment, early)
        finally:
            if early is not None:
                from autograder.student import check_processes

                check_processes.stop(early)  # nothing left running once the checks have ended
        if isinstance(result, int):
            return result
        from autograder.student.checking import render_result

        print(render_result(result))
    return 0 if result.all_passed else 1


def _started_early(args, package, declared: str | None):
    """check_processes.Started for the assignment the command line, the notebook's metadata or its file name
    names (as `_assignment` will find it from the notebook), where it is checked in several processes; else
    None."""
    from autograder.student import check_processes

    if check_processes.in_a_part():
        return None
    assignment = next((name for name in (args.assignment, declared) if name in package.assignments), None)
    if assignment is None:
        assignment = next((name for name in sorted(package.assignments, key=len, reverse=True)
                           if name in args.path.stem), None)
    planned = _parts(args, package, assignment) if assignment is not None else None
    try:
        return check_processes.start(*planned) if planned is not None else None
    except check_processes.CheckProcessFailed:
        return None  # `_result` starts them again, and says why it cannot


def _parts(args, package, assignment: str):
    """The command line and the parts of `assignment`'s check in several processes: one per device count grading
    uses, else half the exercises each where two cores can run them (exercise_halves); None for one process."""
    from autograder.student import exercise_halves
    from autograder.student.check_processes import Part

    counts = package.device_counts(assignment)
    if counts:
        return _child_arguments(args, assignment), [Part(devices=count) for count in counts]
    exercises = [function for function in package.functions_in_order(assignment)
                 if not args.exercise or function in args.exercise]
    halves = exercise_halves.parts(exercises, package.check_seconds(assignment))
    return (_child_arguments(args, assignment, exercises=False), halves) if halves else None


def _result(args, package, source, assignment: str, early=None):
    """The checks' result for `assignment`, or the exit status when there is none to show. `early`: the
    processes `_started_early` started, used if they check this assignment as `_parts` would."""
    from autograder.student import check_processes, device_checks, exercise_halves, jax_support

    planned = None if check_processes.in_a_part() else _parts(args, package, assignment)
    if planned is not None:
        arguments, parts = planned  # the same arguments (they name the assignment): the same parts
        try:
            started = early if early is not None and early.arguments == arguments else check_processes.start(
                arguments, parts)
            if package.device_counts(assignment):  # as grading checks this assignment
                return device_checks.merged(started)
            joined = exercise_halves.joined(check_processes.results(started),
                                            package.functions_in_order(assignment), package.submission_seconds)
            if joined is not None:
                return joined
        except check_processes.CheckProcessFailed as error:
            problem = jax_support.problem()  # a JAX that fails to import fails there first: say that, not this
            said = (problem.sentence(in_notebook=False) if problem is not None else error.ended_by(str(args.path))
                    or messages.text("student.kit_failed", error=error, versions=jax_support.versions()))
            print(said, file=sys.stderr)
            return 2
        # The halves used more CPU time than the submission's budget: one process tells which checks it stops.
    problem = jax_support.problem()
    if problem is not None:
        print(problem.sentence(in_notebook=False), file=sys.stderr)
        return 2
    # Imported only here, where the checks run: they import JAX, which a process that only starts the parts'
    # processes and shows their results does not need.
    from autograder.load import example_cells
    from autograder.sandbox import compilation_cache
    from autograder.sandbox.inprocess import load_namespace
    from autograder.student import recorded
    from autograder.student.checking import check_namespace
    from autograder.student.strings import text

    compilation_cache.enable("check")
    # The notebook's unchanged examples that nothing graded uses are not run, as grading does not.
    released = recorded.released_cells(assignment, [cell.source for cell in source.cells], package.directory)
    skip = example_cells.cells_to_skip(source.cells, released, frozenset(package.functions_of(assignment)))
    namespace, report = load_namespace(source, package.load_seconds, skip)
    try:
        result = check_namespace(package, assignment, namespace, report, set(args.exercise) if args.exercise else None,
                                 name=args.path.stem, path=str(args.path),
                                 claims=check_processes.claims_of_this_process(args.exercise))
    except recorded.RecordError as error:
        print(text("student.data_missing", assignment=assignment, detail=error))
        return 1
    if check_processes.in_a_part():  # one part's process: the result as data
        print(check_processes.result_to_json(result))
        return 0
    return result


def _child_arguments(args, assignment: str, exercises: bool = True) -> list[str]:
    """The command line of one part's process: this check, its language and (unless its part names its own)
    exercises."""
    arguments = ["--lang", messages.language(), "check", str(args.path), "--assignment", assignment]
    for exercise in (args.exercise or ()) if exercises else ():
        arguments += ["--exercise", exercise]
    return arguments


def _assignment(source, package, override: str | None) -> str | None:
    for candidate in (override, source.assignment_hint):
        if candidate in package.assignments:
            return candidate
    for name in sorted(package.assignments, key=len, reverse=True):
        if name in source.path.stem:
            return name
    return None


def _notebook_metadata(path: Path) -> tuple[str | None, str | None]:
    """The notebook's own language and assignment (metadata autograder.language and .assignment), where it
    says them."""
    if path.suffix != ".ipynb":
        return None, None
    try:
        section = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("autograder", {})
        language, assignment = section.get("language"), section.get("assignment")
    except (OSError, ValueError, AttributeError):
        return None, None
    return (language if isinstance(language, str) else None, assignment if isinstance(assignment, str) else None)
