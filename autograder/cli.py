"""The `autograder` command: check (students), grade (CI and instructors), release, new-assignment and
i18n sync (instructors and authors)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from autograder import course, grading_config
from autograder.catalog import messages
from autograder.reports.exit_status import parse_fail_under


def run() -> None:
    """The `autograder` command: main(), then exit at once.

    Everything is written by then (results atomically, JAX's cache entries as
    they compile); what interpreter shutdown would still do, mostly tearing
    down JAX's CPU backend, takes about 0.4 s, a fifth of a warm `check`.
    """
    from autograder.warm_start import client, ending

    ending.end_process(client.run_check("kit", sys.argv[1:], main))  # a check may run in a warm server's fork


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    # The language and the hint level are the run's: read here once (--lang, else $AUTOGRADER_LANG; --hints),
    # before the parser so that its --help is in that language, and carried as values from here on.
    with messages.speaking(messages.asked_for(arguments)):
        args = _parser().parse_args(arguments)
        with messages.hinting(args.hints or messages.hint_level_override()):
            return _run_command(args)


def _run_command(args) -> int:
    """The command `args` names, with the course's grading.toml read (for those that need a course)."""
    config = None
    try:
        if args.needs_course:  # merge reads only the out dirs it is given; init-course makes a course;
            # new-assignment and i18n sync take --root instead. The course: --config's folder, else the current one.
            args.config = course.locate(args.config).grading_toml if args.config is None else args.config
            config = grading_config.load(args.config)
        return args.command(args, config)
    except (course.CourseNotFound, grading_config.GradingConfigError) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a file missing, unreadable or unwritable below a command: one sentence naming it
        where = f" ({error.filename})" if error.filename else ""
        print(f"autograder: {error.strerror or error}{where}; nothing after this was done.", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="autograder", description=messages.text("cli.help_description"))
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    _add_common_options(parser, default=None)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for add in (_add_check, _add_grade, _add_merge, _add_gradescope_zip, _add_release, _add_new_assignment,
                _add_init_course, _add_i18n):
        add(commands)
    parser.set_defaults(needs_course=True)
    for command in commands.choices.values():  # every command, including any added above this line
        _add_common_options(command, default=argparse.SUPPRESS)
    messages.translate_help(parser)
    return parser


def _add_check(commands) -> None:
    check = commands.add_parser("check", help=messages.text("cli.help_check"))
    check.add_argument("path", type=Path, help=messages.text("cli.help_check_path"))
    check.add_argument("--exercise", action="append", metavar="NAME", help=messages.text("cli.help_exercise"))
    check.add_argument("--assignment", help=messages.text("cli.help_assignment"))
    check.add_argument("--seed", type=int, help=messages.text("cli.help_seed"))
    check.set_defaults(command=_check)


def _add_grade(commands) -> None:
    grade = commands.add_parser("grade",
                                help="grade many submissions in sandboxes; "
                                     "write results.json per submission and grades.csv")
    grade.add_argument("paths", type=Path, nargs="+", metavar="PATH", help="submission files or directories of them")
    grade.add_argument("--out", type=Path, required=True, metavar="DIR",
                       help="where results go: <submission>/results.json, grades.csv and report.html")
    grade.add_argument("--jobs", type=int, metavar="N",
                       help="grading workers running at once (default: one per core this process may use, "
                            "and at most one per 3 submissions)")
    grade.add_argument("--seed", type=int,
                       help="seed for the hidden inputs (default: grading.toml's policy); recorded in each result")
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
    grade.add_argument("--shard", type=_shard, metavar="K/N",
                       help="grade only shard K (0 to N-1) of N, chosen by a hash of the student; needs the same "
                            "--seed for every shard. Combine the shards' out dirs with `autograder merge`")
    grade.set_defaults(command=_grade)


def _add_merge(commands) -> None:
    merge = commands.add_parser("merge", help="combine the out dirs of `grade --shard K/N` into one run's "
                                              "results.json files, grades.csv, report.html and JUnit file")
    merge.add_argument("shards", type=Path, nargs="+", metavar="DIR", help="the out dir of every shard")
    merge.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the merged results go")
    merge.add_argument("--junit-xml", type=Path, metavar="FILE", help="also write the JUnit XML report, as grade does")
    merge.add_argument("--fail-under", type=parse_fail_under, metavar="SCORE", help="as for grade")
    merge.set_defaults(command=lambda args, _config: _merge(args), needs_course=False)


def _add_gradescope_zip(commands) -> None:
    gradescope = commands.add_parser("gradescope-zip",
                                     help="build Gradescope's autograder zip (setup.sh, run_autograder, the kit) "
                                          "for one assignment")
    gradescope.add_argument("assignment", metavar="ASSIGNMENT", help="the assignment to build the zip for")
    gradescope.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.zip", help="the zip to write")
    gradescope.add_argument("--sandbox", choices=("os", "process"), default="os",
                            help="how run_autograder grades: os (bubblewrap; the container must allow namespaces) or "
                                 "process (weaker: a hostile submission could change its own grade)")
    visibilities = ("visible", "hidden", "after_due_date", "after_published")
    gradescope.add_argument("--visibility", choices=visibilities, default="visible",
                            help="Gradescope visibility of the results")
    gradescope.add_argument("--stdout-visibility", choices=visibilities, default="hidden",
                            help="Gradescope visibility of run_autograder's output")
    gradescope.set_defaults(command=_gradescope_zip)


def _add_release(commands) -> None:
    release = commands.add_parser("release",
                                  help="sync check-cell points from grading.toml "
                                       "and regenerate assignments/ with nbgrader")
    release.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                         help="the assignments to release (default: every one)")
    release.add_argument("--student-dist", type=Path, metavar="DIR",
                         help="also write the student distribution to DIR: a wheel without the answer key and the "
                              "released notebooks, each with an install cell first")
    release.add_argument("--student-install-url", metavar="URL",
                         help="what the notebooks' install cell passes to pip "
                              "(default: the wheel's path relative to the notebook)")
    release.add_argument("--force", action="store_true",
                         help="release even the assignments whose solutions, points and release code are unchanged "
                              "since their last release (assignments/release-manifest.json)")
    release.set_defaults(command=_release)


def _add_new_assignment(commands) -> None:
    scaffold = commands.add_parser("new-assignment",
                                   help="write the skeletons of a new assignment: grading.toml tables, suite, "
                                        "catalog, English and Korean notebooks, corpus, curriculum section")
    scaffold.add_argument("name", metavar="NAME", help="the assignment, two digits and a name: 09_autodiff")
    scaffold.add_argument("--functions", required=True, type=_function_list, metavar="F,G",
                          help="the graded functions, comma-separated, each a name or a signature: f,g(x, w) "
                               "(a name alone takes one array x); one check and one exercise each")
    scaffold.add_argument("--root", type=Path, metavar="DIR",
                          help="the course directory (or copy of the kit's repository) to write into "
                               "(default: the course's, --config's folder or the current directory)")
    scaffold.set_defaults(command=lambda args, _config: _new_assignment(args), needs_course=False)


def _add_init_course(commands) -> None:
    init = commands.add_parser("init-course",
                               help="lay out a new course directory: grading.toml, nbgrader_config.py and "
                                    "solutions/, with the kit's assignments or none")
    init.add_argument("directory", type=Path, metavar="DIR", help="the course directory to create (new or empty)")
    init.add_argument("--assignments", choices=("kit", "none"), default="kit",
                      help="kit (default): the kit's assignments, their points and solution notebooks; "
                           "none: an empty course, for `autograder new-assignment`")
    init.set_defaults(command=lambda args, _config: _init_course(args), needs_course=False)


def _add_i18n(commands) -> None:
    i18n = commands.add_parser("i18n", help="keep the translation catalogs (autograder/catalog/locale/*.po, and "
                                            "each assignment's suites/messages_<assignment>.<language>.po) in "
                                            "line with the English sentences")
    actions = i18n.add_subparsers(required=True, metavar="ACTION")
    sync = actions.add_parser("sync", help="add every new English key to each .po file, untranslated, at its "
                                           "place in the English order; no existing line changes")
    sync.add_argument("--root", type=Path, metavar="DIR",
                      help="the copy of the kit's repository whose catalogs to sync "
                           "(default: the course directory, --config's folder or the current directory)")
    sync.set_defaults(command=lambda args, _config: _i18n_sync(args), needs_course=False)


def _add_common_options(parser: argparse.ArgumentParser, default) -> None:
    """--config, --lang and --hints, accepted before the command and after it (`grade ... --lang ko`).

    A command's copies default to SUPPRESS, so they set a value only when given
    there and never hide one given before the command.
    """
    parser.add_argument("--config", type=Path, default=default, help=messages.text("cli.help_config"))
    parser.add_argument("--lang", metavar="LANG", default=default, help=messages.text("cli.help_lang"))
    parser.add_argument("--hints", choices=messages.HINT_LEVELS, default=default, help=messages.text("cli.help_hints"))


def _version() -> str:
    """The installed kit's version (pyproject.toml's), or "unknown" when run from a tree never installed."""
    from importlib import metadata

    try:
        return metadata.version("autograder")
    except metadata.PackageNotFoundError:
        return "unknown"


def _check(args, config) -> int:
    from autograder.reports.terminal_table import render
    from autograder.student import check_processes

    missing = None if os.path.lexists(args.path) else messages.text("load.file_missing", path=args.path)
    if missing is None:
        args.assignment = args.assignment or _assignment_of_exercises(args, config)
    refused = (_unknown_assignment(args.assignment, config) or missing or _unknown_exercise(args, config)
               or _missing_suite(args, config))
    if refused:  # one line, before anything is loaded: not "could not be read as a notebook" for a missing file
        print(f"autograder: {refused}", file=sys.stderr)
        return 2
    seed = config.resolve_seed("check", args.seed)
    try:
        result = None if check_processes.in_a_part() else _checked_in_parts(args, config, seed)
    except check_processes.CheckProcessFailed as error:
        print(error.ended_by(str(args.path)) or f"autograder: {error}", file=sys.stderr)
        return 2
    if result is None:
        result = _checked_here(args, config, seed)
    if check_processes.in_a_part():  # one part's process: the result as data
        print(check_processes.result_to_json(result))
        return 0
    with messages.using(result.language):
        print(render(result))
    return 0 if result.all_passed else 1


def _checked_in_parts(args, config, seed: int):
    """The result of the check in several fresh processes, as the student package checks (student.cli._parts):
    one per device count grading uses, else half the exercises each where two cores can run them; None where
    it runs in this process (one part, or halves that used more CPU time than the budget)."""
    from autograder.check.runner import check_seconds_beside_suite
    from autograder.student import check_processes, device_checks, exercise_halves

    assignment = _assignment_guessed(args, config)
    counts = config.device_counts(assignment) if assignment else ()
    if counts:  # one fresh process per device count, as grading checks this assignment (check.device_runs)
        return device_checks.check_with_each_count(_part_arguments(args, seed), counts)
    functions = config.functions(assignment) if assignment else []
    seconds = check_seconds_beside_suite(assignment) if assignment else {}
    halves = exercise_halves.parts([function for function in functions
                                    if not args.exercise or function in args.exercise], seconds)
    if halves is None:
        return None
    started = check_processes.start(_part_arguments(args, seed, exercises=False), halves)
    return exercise_halves.joined(check_processes.results(started), functions, config.limits.submission_seconds)


def _checked_here(args, config, seed: int):
    """The result of the check in this process."""
    from autograder.check.pytest_plugin import one_shape_set
    from autograder.grade.pipeline import GradingOptions, grade_submission
    from autograder.sandbox import compilation_cache, compile_speed
    from autograder.student import check_processes

    compile_speed.add_to_environment(os.environ)  # before JAX's backend starts, as the student package does
    compilation_cache.enable("check")
    with one_shape_set():  # a student's repeated checks reuse JAX's compiled programs
        options = GradingOptions(seed=seed, sandbox="inprocess", assignment=args.assignment,
                                 functions=frozenset(args.exercise) if args.exercise else None,
                                 claims=check_processes.claims_of_this_process(args.exercise),
                                 hints=config.hint_level("check"))
        return grade_submission(args.path, config, options)


def _assignment_guessed(args, config) -> str | None:
    """The notebook's assignment as grading will find it (--assignment, its metadata, its file name); None
    for a file that says none, or cannot be read (grade_submission says why, in one process)."""
    from autograder.load.submission_source import guess_assignment

    try:
        return guess_assignment(args.path, config.assignments, args.assignment)
    except Exception:
        return None


def _part_arguments(args, seed: int, exercises: bool = True) -> list[str]:
    """The command line of one part's process: this check, with its seed, settings, language and (unless its
    part names its own) exercises."""
    arguments = ["--config", str(args.config), "--lang", messages.language(), "check", str(args.path), "--seed",
                 str(seed)]
    if args.assignment:
        arguments += ["--assignment", args.assignment]
    if args.hints:
        arguments += ["--hints", args.hints]
    for exercise in (args.exercise or ()) if exercises else ():
        arguments += ["--exercise", exercise]
    return arguments


def _missing_suite(args, config) -> str | None:
    """Why `check` cannot grade the notebook's assignment: its suite is missing; None if it is there."""
    return _suite_missing(_assignment_guessed(args, config))


def _suite_missing(assignment: str | None) -> str | None:
    """The sentence for an `assignment` whose suite is missing (a course's own assignment whose suite was never
    written, or was moved), with where it was looked for; None if it is there, or no assignment is named."""
    from autograder import course_suites
    from autograder.check.runner import suite_path

    if not assignment or suite_path(assignment).is_file():
        return None
    looked = ", ".join(str(folder) for folder in course_suites.folders())
    return messages.text("cli.missing_suite", assignment=assignment, looked=looked)


def _unknown_assignment(given: str | None, config) -> str | None:
    """Why --assignment is refused (it names no assignment of grading.toml), with the closest name; None if fine."""
    if given is None or given in config.assignments:
        return None
    return _refusal(messages.text("cli.unknown_assignment", given=given), given, list(config.assignments))


def _assignment_of_exercises(args, config) -> str | None:
    """The one assignment whose functions include every --exercise, when neither --assignment nor the file names
    one (`check scratch.py --exercise newton_minimize`); None when the file says, or the names fit none or several."""
    from autograder.load.submission_source import guess_assignment

    if not args.exercise:
        return None
    try:
        if guess_assignment(args.path, config.assignments, None):
            return None
    except Exception:  # an unreadable file: grade_submission says why
        return None
    fitting = [a for a in config.assignments if set(args.exercise) <= set(config.points[a])]
    return fitting[0] if len(fitting) == 1 else None


def _unknown_exercise(args, config) -> str | None:
    """Why an --exercise of `check` is refused: it is no function of the notebook's assignment; None if fine.

    The assignment is --assignment, else the notebook's metadata or file name
    (guess_assignment); only if none says, every assignment's functions count.
    """
    if not args.exercise:
        return None
    from autograder.load.submission_source import guess_assignment

    assignment = guess_assignment(args.path, config.assignments, args.assignment)
    functions = list(config.points[assignment]) if assignment else \
        list(dict.fromkeys(f for a in config.assignments for f in config.points[a]))
    for given in args.exercise:
        if given not in functions:
            first = (messages.text("cli.unknown_exercise", assignment=assignment, given=given) if assignment
                     else messages.text("cli.unknown_exercise_any", given=given))
            return _refusal(first, given, functions)
    return None


def _refusal(first: str, given: str, known: list[str]) -> str:
    """`first`, then the closest known name (difflib) if one is close, then every known name."""
    import difflib

    close = difflib.get_close_matches(given, known, n=1)
    suggestion = [messages.text("cli.did_you_mean", suggestion=close[0])] if close else []
    return " ".join([first, *suggestion, messages.text("cli.known", known=", ".join(known))])


def _grading_seed(args, config) -> int | None:
    """The hidden inputs' seed for `grade`; None, having said why, when there is none to grade with."""
    from autograder.grade import shards

    try:  # every shard must draw the same hidden inputs: --shard needs a fixed seed (shards.fixed_seed)
        seed = shards.fixed_seed(config, args.seed) if args.shard else config.resolve_seed("grade", args.seed)
    except shards.ShardError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return None
    if seed == grading_config.PUBLIC_SEED:  # every student has its inputs and the reference's outputs
        print(f"autograder: {messages.text('cli.public_seed', seed=seed)}", file=sys.stderr)
        return None
    return seed


def _grade(args, config) -> int:
    from autograder.grade import shards
    from autograder.grade.batch import Interrupted, NothingToGrade, grade_batch
    from autograder.grade.run_options import RunOptions
    from autograder.reports import exit_status, junit_xml
    from autograder.reports.out_dir import OutDirError

    refused = (_unknown_assignment(args.assignment, config) or _suite_missing(args.assignment)
               or _junit_xml_among_submissions(args.junit_xml, args.out))
    if refused:
        print(f"autograder: {refused}", file=sys.stderr)
        return 2
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
    seed = _grading_seed(args, config)
    if seed is None:
        return 2
    # Everything the run decides, as one value the batch passes down and sends to each worker once.
    run = RunOptions(config, seed, args.sandbox, args.assignment, language=messages.run_language(),
                     hints=args.hints or messages.hint_level_override())
    selection = shards.Selection(args.shard) if args.shard else None
    try:
        results = grade_batch(args.paths, args.out, run, jobs=args.jobs, resume=args.resume, select=selection)
        if selection is not None and shards.finish(selection, args.out, run):
            return 2
    except Interrupted as interrupted:
        # The out dir's reports are written and mark what was not graded; JUnit too. One sentence, no traceback.
        if args.junit_xml:
            try:
                junit_xml.write(interrupted.results, args.junit_xml)
            except OSError as error:
                print(f"autograder: could not write {args.junit_xml}: {error}", file=sys.stderr)
        print(f"autograder: {interrupted}", file=sys.stderr)
        return interrupted.exit_status
    except (OutDirError, NothingToGrade) as error:
        print(f"autograder: cannot grade: {error}", file=sys.stderr)
        return 2
    except PermissionError as error:  # e.g. a non-root user and files root left in --out: one line, not a traceback
        print(f"autograder: cannot grade: {error.strerror}: {error.filename or args.out}; grade as a user who can "
              "write --out and read the submissions, or pass a new directory as --out", file=sys.stderr)
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


def _shard(text: str):
    from autograder.grade import shards

    try:
        return shards.parse(text)
    except shards.ShardError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _junit_xml_among_submissions(junit: Path | None, out: Path) -> str | None:
    """Why `--junit-xml` may not be written where it is asked: inside --out under a name a submission's directory
    could take (only the reserved `junit.xml` is kept free there); None where it may."""
    from autograder.reports.out_dir import RESERVED_NAMES

    if junit is None:
        return None
    try:
        inside = Path(os.path.abspath(junit)).relative_to(os.path.abspath(out)).parts
    except ValueError:
        return None
    if len(inside) == 1 and inside[0].casefold() in RESERVED_NAMES:
        return None
    return messages.text("cli.junit_xml_among_submissions", junit=junit, out=out)


def _merge(args) -> int:
    from autograder.grade import merge

    refused = _junit_xml_among_submissions(args.junit_xml, args.out)
    if refused:
        print(f"autograder: {refused}", file=sys.stderr)
        return 2
    return merge.run(args.shards, args.out, junit_xml=args.junit_xml, fail_under=args.fail_under)


def _gradescope_zip(args, config) -> int:
    from autograder.integrations.gradescope_zip import BuildError, build

    try:
        made = build(args.assignment, args.output, config, sandbox=args.sandbox, visibility=args.visibility,
                     stdout_visibility=args.stdout_visibility)
    except BuildError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(made.summary())
    return 0


def _release(args, config) -> int:
    from autograder.integrations.release import release, student_dist

    if args.student_dist is not None:
        status = release(config, args.assignments or None, force=args.force)
        return status or student_dist(config, args.student_dist, args.assignments or None,
                                      install_url=args.student_install_url)

    return release(config, args.assignments or None, force=args.force)


def _function_list(text: str) -> list[str]:
    """`f,g(x, w)` -> ["f", "g(x, w)"]: commas inside a signature's parentheses do not separate functions."""
    parts, depth, current = [], 0, ""
    for character in text:
        depth += {"(": 1, ")": -1}.get(character, 0)
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    return [part.strip() for part in [*parts, current] if part.strip()]


def _new_assignment(args) -> int:
    from autograder.authoring.plan import ScaffoldError
    from autograder.authoring.scaffold import new_assignment

    try:
        made = new_assignment(_root(args), args.name, args.functions)
    except ScaffoldError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(made.summary())
    return 0


def _init_course(args) -> int:
    from autograder.authoring.course_layout import CourseLayoutError, init_course

    try:
        made = init_course(args.directory, with_kit_assignments=args.assignments == "kit")
    except CourseLayoutError as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(made.summary())
    return 0


def _i18n_sync(args) -> int:
    """The kit's catalogs in a copy of its repository, or a course's own (suites/messages_*.py, suites/locale/)."""
    from autograder.authoring.english_catalog import CatalogUnreadable, course_english, kit_translations
    from autograder.authoring.po_sync import sync_file

    root = _root(args)
    kit_catalogs, course_suites = root / "autograder" / "catalog", root / "suites"
    in_kit = (kit_catalogs / "messages.py").is_file()
    if not in_kit and not list(course_suites.glob("messages_*.py")):
        print(f"autograder: there are no catalogs to sync in {root}: looked for the kit's "
              f"({kit_catalogs / 'messages.py'}) and the course's own ({course_suites}/messages_*.py, which "
              "`autograder new-assignment` writes). Pass --root the folder that holds them.", file=sys.stderr)
        return 2
    languages = [language for language in messages.LANGUAGES if language != "en"]
    try:
        if in_kit:  # the kit's common sentences in catalog/locale/, each assignment's beside its catalog
            files = [file for language in languages for file in kit_translations(root, language)]
        else:
            sentences = course_english(course_suites)
            files = [(_course_po(course_suites / "locale", language), sentences) for language in languages]
    except CatalogUnreadable as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    for path, english in files:
        try:
            print(sync_file(path, english).summary())
        except ValueError as error:
            print(f"autograder: {path}: {error}", file=sys.stderr)
            return 2
    return 0


def _root(args) -> Path:
    """--root, else the course directory (course.locate: its CourseNotFound is said by _run_command)."""
    return Path(args.root) if args.root is not None else course.locate(args.config).root


def _course_po(locale: Path, language: str) -> Path:
    """A course's <language>.po beside its catalogs, begun with a header when it is not there yet."""
    path = locale / f"{language}.po"
    if not path.is_file():
        locale.mkdir(parents=True, exist_ok=True)
        header = ['msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"', f'"Language: {language}\\n"']
        path.write_text("\n".join(header) + "\n", encoding="utf-8")
    return path
