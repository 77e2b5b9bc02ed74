"""The `autograder` command: check (students), grade (CI and instructors), release (instructors)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder import grading_config
from autograder.catalog import messages
from autograder.reports.exit_status import parse_fail_under


def run() -> None:
    """The `autograder` command: main(), then exit at once.

    Everything is written by then (results atomically, JAX's cache entries as
    they compile); what interpreter shutdown would still do, mostly tearing
    down JAX's CPU backend, takes about 0.4 s, a fifth of a warm `check`.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.lang:
        # Through the environment, so grading workers and sandbox children speak it too.
        os.environ[messages.LANGUAGE_VARIABLE] = messages.normalize(args.lang) or "en"
    if args.hints:
        os.environ[messages.HINT_LEVEL_VARIABLE] = args.hints  # through the environment, like --lang
    try:
        config = grading_config.load(args.config)
    except grading_config.GradingConfigError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    return args.command(args, config)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description="Auto-graded JAX exercises.")
    parser.add_argument("--config", type=Path, default=grading_config.DEFAULT_PATH, help="grading.toml to use")
    parser.add_argument("--lang", metavar="LANG",
                        help="language of feedback: en or ko "
                             "(default: $AUTOGRADER_LANG, else the notebook's own, else en)")
    parser.add_argument("--hints", choices=messages.HINT_LEVELS,
                        help="how much a hint shows: idea, api (the API to read about) or recipe (worked code); "
                             "default: grading.toml's [feedback]")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    check = commands.add_parser("check", help="check one notebook or .py file and print a table of results")
    check.add_argument("path", type=Path)
    check.add_argument("--exercise", action="append", metavar="NAME", help="only this function (repeatable)")
    check.add_argument("--assignment", help="assignment name, if the file name does not say it")
    check.add_argument("--seed", type=int, help="seed for the hidden inputs (default: grading.toml's policy)")
    check.set_defaults(command=_check)

    grade = commands.add_parser("grade",
                                help="grade many submissions in sandboxes; "
                                     "write results.json per submission and grades.csv")
    grade.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="submission files or directories of them")
    grade.add_argument("--out", type=Path, required=True, metavar="DIR")
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="N")
    grade.add_argument("--seed", type=int)
    grade.add_argument("--assignment", help="grade every submission as this assignment")
    grade.add_argument("--resume", action="store_true", help="skip submissions that already have a finished result")
    grade.add_argument("--sandbox", choices=("os", "process"), default="os",
                       help="os (default): each submission in an OS sandbox of its own (Linux, root, bubblewrap); "
                            "process: a plain child process, weaker, for machines without those")
    grade.add_argument("--junit-xml", type=Path, metavar="FILE",
                       help="also write a JUnit XML report: one testsuite per submission, one testcase per check, "
                            "failures carry the feedback")
    grade.add_argument("--fail-under", type=parse_fail_under, metavar="SCORE",
                       help="exit 1 if any submission scores below SCORE percent (0-100) of its maximum, "
                            "or if nothing was graded")
    grade.set_defaults(command=_grade)

    gradescope = commands.add_parser("gradescope-zip",
                                     help="build Gradescope's autograder zip (setup.sh, run_autograder, the kit) "
                                          "for one assignment")
    gradescope.add_argument("assignment", metavar="ASSIGNMENT")
    gradescope.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.zip")
    gradescope.add_argument("--sandbox", choices=("os", "process"), default="os",
                            help="how run_autograder grades: os (bubblewrap; the container must allow namespaces) or "
                                 "process (weaker: a hostile submission could change its own grade)")
    visibilities = ("visible", "hidden", "after_due_date", "after_published")
    gradescope.add_argument("--visibility", choices=visibilities, default="visible",
                            help="Gradescope visibility of the results")
    gradescope.add_argument("--stdout-visibility", choices=visibilities, default="hidden",
                            help="Gradescope visibility of run_autograder's output")
    gradescope.set_defaults(command=_gradescope_zip)

    release = commands.add_parser("release",
                                  help="sync check-cell points from grading.toml "
                                       "and regenerate assignments/ with nbgrader")
    release.add_argument("assignments", nargs="*", metavar="ASSIGNMENT")
    release.add_argument("--student-dist", type=Path, metavar="DIR",
                         help="also write the student distribution to DIR: a wheel without the answer key and the "
                              "released notebooks, each with an install cell first")
    release.add_argument("--student-install-url", metavar="URL",
                         help="what the notebooks' install cell passes to pip "
                              "(default: the wheel's path relative to the notebook)")
    release.set_defaults(command=_release)
    return parser


def _check(args, config) -> int:
    from autograder.check.pytest_plugin import one_shape_set
    from autograder.grade.pipeline import GradingOptions, grade_submission
    from autograder.reports.terminal_table import render
    from autograder.sandbox import compilation_cache

    if args.exercise:
        unknown = [e for e in args.exercise if not any(e in config.points[a] for a in config.assignments)]
        if unknown:
            print(f"autograder: no exercise named {', '.join(unknown)}; known: "
                  f"{', '.join(f for a in config.assignments for f in config.points[a])}", file=sys.stderr)
            return 2
    seed = config.resolve_seed("check", args.seed)
    compilation_cache.enable("check")
    with one_shape_set():  # a student's repeated checks reuse JAX's compiled programs
        options = GradingOptions(seed=seed, sandbox="inprocess", assignment=args.assignment,
                                 functions=frozenset(args.exercise) if args.exercise else None,
                                 hints=config.hint_level("check"))
        result = grade_submission(args.path, config, options)
    with messages.using(result.language):
        print(render(result))
    return 0 if result.all_passed else 1


def _grade(args, config) -> int:
    from autograder.grade.batch import grade_batch
    from autograder.reports import exit_status, junit_xml
    from autograder.reports.out_dir import OutDirError

    if args.sandbox == "os":
        from autograder.sandbox import os_isolation

        try:
            os_isolation.check_available(sys.executable)
        except os_isolation.IsolationUnavailable as error:
            print(f"autograder: cannot grade: {error}", file=sys.stderr)
            return 2
    else:
        print("autograder: --sandbox process: submissions run as ordinary child processes without OS isolation; "
              "a hostile submission can change grades. Every result records this mode.", file=sys.stderr)
    seed = config.resolve_seed("grade", args.seed)
    try:
        results = grade_batch(args.paths, args.out, config, seed=seed, jobs=args.jobs,
                              assignment=args.assignment, resume=args.resume, sandbox=args.sandbox)
    except OutDirError as error:
        print(f"autograder: cannot grade: {error}", file=sys.stderr)
        return 2
    if args.junit_xml:
        try:
            junit_xml.write(results, args.junit_xml)
        except OSError as error:
            print(f"autograder: could not write {args.junit_xml}: {error}", file=sys.stderr)
            return 2
    line = exit_status.summary(results, args.fail_under)
    if line:
        print(f"autograder: {line}", file=sys.stderr)
    return exit_status.exit_code(results, args.fail_under)


def _gradescope_zip(args, config) -> int:
    from autograder.integrations.gradescope_zip import BuildError, build

    try:
        made = build(args.assignment, args.output, config, repo_root=grading_config.REPO_ROOT, sandbox=args.sandbox,
                     visibility=args.visibility, stdout_visibility=args.stdout_visibility)
    except BuildError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(made.summary())
    return 0


def _release(args, config) -> int:
    from autograder.integrations.release import release, student_dist

    if args.student_dist is not None:
        status = release(config, args.assignments or None)
        return status or student_dist(config, args.student_dist, args.assignments or None,
                                      install_url=args.student_install_url)

    return release(config, args.assignments or None)
