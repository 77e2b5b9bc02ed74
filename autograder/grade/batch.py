"""Grading many submissions in parallel, with a result for every one.

`jobs` trusted worker processes (autograder.grade.batch_worker) each grade one
submission at a time, running the student's code in a fresh sandbox child
per submission, and live for the whole batch, so that start-up costs are
paid once per worker rather than once per submission. A worker that crashes
or hangs costs only the submission it was grading: that one is recorded as
failed and a fresh worker takes the next. Before any work starts, every
submission gets a placeholder results.json that scores 0; a worker replaces
it atomically when it finishes, so a crash anywhere leaves a zero, never
nothing.

The out dir is written by this parent and its workers alone, through
reports.out_dir: never through a symbolic link, never by opening what is
already there. Each submission's directory has a name that is one safe file
name, unique (ignoring case) and stable (see `discover`); grades.csv is
written at the end whatever happened to the results.json files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import queue
import shutil
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from autograder.catalog import messages
from autograder.check.results import SubmissionResult
from autograder.grade.batch_env import IMAGE_WITHOUT_SOLUTIONS
from autograder.grade.batch_progress import Progress, finished_from, summary
from autograder.grade.result_provenance import changed_settings, content_digest, grading_settings
from autograder.grade.run_options import RunOptions
from autograder.grade.unfinished_results import crashed_result, unreadable_result
from autograder.grade.worker_handle import WorkerFailed, WorkerHandle, WorkerStopped, worker_command
from autograder.grading_config import GradingConfig
from autograder.load import bounded_walk, submission_choice
from autograder.load.assignment_names import assignment_in_file_name
from autograder.load.submission_choice import FileChoice, Found
from autograder.load.submission_identity import (
    EMPTY_FOLDER_STAND_IN,
    GRADESCOPE_METADATA,
    Identity,
    RootLayout,
    empty_entries,
    entry_folders,
    identify_all,
    layout_of,
)
from autograder.reports import class_report, grade_status, grades_csv, gradescope_json, junit_xml
from autograder.reports.out_dir import OutDir, safe_component
from autograder.sandbox import shared_programs
from autograder.sandbox.zygote_client import ZygoteTemplate

SUBMISSION_SUFFIXES = (".ipynb", ".py")
# Time for the worker's own grading steps (pytest, comparisons), on top of the student's budget.
WORKER_MARGIN_SECONDS = 60
# By default a worker is started for every this many submissions (and no more than the cores):
# with fewer, a second worker's start (imports, pytest session, zygote) costs more than it saves.
AUTO_SUBMISSIONS_PER_WORKER = 3


@dataclasses.dataclass(frozen=True)
class BatchItem:
    name: str  # the submission's directory in the out dir: `<out>/<name>/results.json`
    path: Path
    student: str = ""  # who handed it in, from where it sits (submission_identity)
    layout: str = "file"
    notes: tuple[str, ...] = ()  # why who handed it in needs a look (submission_identity.Identity.notes)
    assignment: str | None = None  # the assignment its layout files it under (nbgrader's folder), if any
    # The files of the student's entry not graded (submission_choice); with `found_instead`, the entry
    # holds no notebook at all: it scores 0 with the choice's note, without a worker.
    choice: FileChoice | None = None
    # Its path relative to the path given that it was found under (a file given: its name): what grades.csv
    # shows, never the grading machine's absolute path.
    relative_path: str = ""

    @property
    def no_notebook(self) -> bool:
        return self.choice is not None and bool(self.choice.found_instead)


class NothingToGrade(Exception):
    """A path named on the command line does not exist or holds nothing to grade: nothing is graded or written."""


class Interrupted(Exception):
    """Ctrl-C or SIGTERM ended the batch; every report is written, and marks what was not graded as such.

    `graded`: the submissions with a result (graded, needing a look, or no notebook), of `total`; the
    `exit_status` is the shell's for the signal (130 for SIGINT, 143 for SIGTERM).
    """

    def __init__(self, results: list[dict], exit_status: int) -> None:
        self.results = results  # as the reports read them, for JUnit
        self.graded = sum(1 for result in results if grade_status.of(result).graded)
        self.total, self.exit_status = len(results), exit_status
        super().__init__(messages.text("batch.interrupted_summary", graded=self.graded, total=self.total,
                                       not_graded=self.total - self.graded))


def discover(paths: list[Path], assignments: list[str] | tuple[str, ...] = (),
             assignment: str | None = None) -> list[BatchItem]:
    """Submissions named on the command line or found in named directories, each with its out dir name.

    Paths that do not exist are kept, so they get a result that says so.
    The student comes from the layout of the path it was found under, decided
    once from that path's top (submission_identity: nbgrader's
    `<student>/<assignment>/`, Gradescope's export, GitHub Classroom's
    repositories, else the file name; `assignments` are the known names).
    One file per student and assignment is graded (submission_choice: the
    others are named in its notes; `assignment` is --assignment), and a
    student's entry with no notebook gets an item that scores 0 and says why.
    A name is the readable part (see `readable_name`) made one safe file
    name (out_dir.safe_component). It
    stays exactly that when that needed no change and no other submission's
    name is the same ignoring case; otherwise it gets `__` and a short hash
    of the submission's path relative to the directory given (or its own
    file name, for a file given). So a name never depends on the order of
    the submissions, a hashed name never changes, a plain one changes only
    when a submission with the same name is added (then both are hashed),
    and no name ever passes from one submission to another.
    """
    found: list[tuple[Path, Path]] = []  # (submission, the root its hash is relative to)
    others: list[tuple[Path, Path]] = []  # other files in named folders: what an entry with no notebook holds
    seen: set[str] = set()
    layouts: dict[Path, RootLayout] = {}  # each root's, decided once from its top, before its walk
    cut: list[Path] = []  # student folders only partly listed (bounded_walk)
    for path in paths:
        if _is_dir(path):
            listing = _listing(path, assignments, layouts)
            cut.extend(listing.cut)
            found.extend((file, path) for file in listing.files
                         if file.suffix in SUBMISSION_SUFFIXES and _is_file(file))
            others.extend((file, path) for file in listing.files if _is_handed_in(file, path) and _is_file(file))
        else:
            found.append((path, path.parent))
    # A student entry holding nothing at all still gets a row (a zero that says the folder is empty).
    others.extend((folder / EMPTY_FOLDER_STAND_IN, root) for folder, root in
                  empty_entries([p for p in paths if _is_dir(p)], [f for f, _ in found + others], assignments,
                                layouts))
    unique = []
    for file, root in found:  # the same file given twice is graded once
        key = os.path.abspath(file)
        if key not in seen:
            seen.add(key)
            unique.append((file, root))
    identities = identify_all(unique + others, assignments, layouts)  # each root's layout decided once
    chosen = submission_choice.choose([Found(f, r, i) for (f, r), i in zip(unique, identities, strict=False)],
                                      [Found(f, r, i) for (f, r), i in zip(others, identities[len(unique):],
                                                                            strict=True)],
                                      assignments, assignment)
    kept = [(c.path, c.root) for c in chosen]
    readable = readable_names(kept, [c.identity for c in chosen])
    folders = {path for path in paths if _is_dir(path)}
    return [BatchItem(name, c.path, c.identity.student, c.identity.layout, c.identity.notes + _cut_notes(c.path, cut),
                      c.identity.assignment, c.choice, _relative(c.path, c.root, c.root in folders))
            for name, c in zip(_unique_names(kept, readable), chosen, strict=True)]


def _listing(root: Path, assignments: list[str] | tuple[str, ...],
             layouts: dict[Path, RootLayout]) -> bounded_walk.Listing:
    """The files under `root`, each student entry of its layout (decided here, from its top) listed on a budget."""
    layouts[root] = layout = layout_of(root, frozenset(assignments))
    try:
        entries = entry_folders(layout)
    except OSError:  # the top cannot be listed: nothing under it is a student's entry
        entries = []
    return bounded_walk.walk(root, entries, single_entry=layout.single_entry)


def _cut_notes(path: Path, cut: list[Path]) -> tuple[str, ...]:
    """The note for a submission in a folder whose listing ran out of its budget, if it is in one."""
    inside = os.path.abspath(path)
    folders = [folder for folder in cut if inside.startswith(os.path.abspath(folder) + os.sep)]
    return tuple(messages.text("batch.folder_cut", folder=folder, names=bounded_walk.NAMES_PER_STUDENT,
                               depth=bounded_walk.FOLDERS_DEEP_PER_STUDENT) for folder in folders[:1])


def _relative(path: Path, root: Path, named_folder: bool) -> str:
    """`path` as grades.csv shows it: under a folder named on the command line, that folder's name and the path
    inside it (`submitted/kim/02_where/02_where.ipynb`: several folders graded at once stay apart); a file named
    on the command line, or anything not under its root, its name alone. Never an absolute path."""
    try:
        relative = path.relative_to(root).as_posix()
    except ValueError:
        return path.name
    if relative in ("", ".") or not named_folder:
        return path.name
    folder = root.name or Path(os.path.abspath(root)).name
    return f"{folder}/{relative}" if folder else relative


# Files a layout itself leaves in a student's entry (nbgrader's timestamp), not handed in by the student.
NOT_HANDED_IN = frozenset({"timestamp.txt", GRADESCOPE_METADATA})


def _is_handed_in(file: Path, root: Path) -> bool:
    """A file other than a notebook that a student may have handed in instead of one (`frank.txt`, a PDF).

    Hidden files and folders (`.git/`, macOS's `._` files) and `__MACOSX/` are not a student's hand-in.
    """
    parts = file.relative_to(root).parts if file.is_relative_to(root) else (file.name,)
    return (file.suffix not in SUBMISSION_SUFFIXES and file.name not in NOT_HANDED_IN
            and not any(part.startswith(".") or part == "__MACOSX" for part in parts))


def readable_names(found: list[tuple[Path, Path]], identities: list[Identity]) -> list[str]:
    """The student, and what else tells their submissions apart.

    nbgrader: `<student>__<assignment>`, so one batch can hold several
    assignments of a class. Gradescope, GitHub Classroom: the student, with
    the file name added where one student handed in several files. A flat
    folder: the file name.
    """
    per_group: dict[tuple[str, str], int] = {}
    for identity in identities:
        per_group[(identity.layout, identity.group)] = per_group.get((identity.layout, identity.group), 0) + 1
    names = []
    for (file, _), identity in zip(found, identities, strict=True):
        if identity.layout == "file":
            name = file.stem
        elif identity.layout == "nbgrader" and identity.assignment:
            name = f"{identity.student}__{identity.assignment}"
        else:
            name = identity.student
        if identity.layout != "file" and per_group[(identity.layout, identity.group)] > 1:
            name = f"{name}__{file.stem}"
        names.append(name)
    return names


def _unique_names(found: list[tuple[Path, Path]], readable_names: list[str]) -> list[str]:
    bases, levels = [], []  # level -1: the plain name; 0, 1, 2: hashed ever more widely (see _digest)
    for readable in readable_names:
        base = safe_component(readable)
        bases.append(base)
        levels.append(-1 if base == readable else 0)

    def name(i: int) -> str:
        return bases[i] if levels[i] < 0 else f"{bases[i]}__{_digest(*found[i], levels[i])}"

    names = [name(i) for i in range(len(found))]
    for _ in range(5):
        groups: dict[str, list[int]] = {}
        for i, text in enumerate(names):
            groups.setdefault(text.casefold(), []).append(i)
        clashes = [group for group in groups.values() if len(group) > 1]
        if not clashes:
            return names
        for group in clashes:
            lowest = min(levels[i] for i in group)
            for i in group:
                if levels[i] == lowest:  # plain names give way first; hashed ones only to each other
                    levels[i] += 1
                    names[i] = name(i)
    raise RuntimeError(f"could not give these submissions distinct names: {sorted(names)}")


def _digest(file: Path, root: Path, level: int) -> str:
    """Level 0: 8 hex digits of the path relative to `root`; then of the absolute path, 12 and 64 digits."""
    try:
        relative = file.relative_to(root).as_posix()
    except ValueError:
        relative = file.as_posix()
    text = relative if level == 0 else os.path.abspath(file)
    digest = hashlib.sha256(os.fsencode(text)).hexdigest()
    return digest[:8] if level == 0 else digest[:12] if level == 1 else digest


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long, say: not a directory of submissions
        return False


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def grade_batch(
    paths: list[Path], out_dir: Path, run: RunOptions, *, jobs: int | None = 1, resume: bool = False,
    progress_stream=None, select: Callable[[list[BatchItem]], list[BatchItem]] | None = None,
) -> list[dict]:
    """Grade every submission under `paths` into `out_dir` as `run` says; returns the results.json contents.

    `jobs`: grading workers at most (None: as many as worker_count decides).
    Progress goes to `progress_stream` (default stderr), the closing summary to stdout.
    `select`, given the whole class's submissions, returns those to grade (`--shard`).
    Raises out_dir.OutDirError, before grading anything, if `out_dir` cannot be
    opened as a real directory, and NothingToGrade, before `out_dir` is even
    created, if a path does not exist or holds nothing to grade (a mistyped
    path must not look like a class that handed in nothing).
    """
    items = discover(paths, run.config.assignments, run.assignment)
    _refuse_nothing_to_grade(paths, items)
    if select is not None:  # one shard of the class (grade/shards.py): named as in the whole class, then chosen
        items = select(items)
    stream = progress_stream or sys.stderr
    # `ending` ends the workers after the reports are written: they exit while the reports are made.
    with OutDir(out_dir) as out, contextlib.ExitStack() as ending:
        failure = None
        try:
            _grade_all(items, out, run, jobs, resume, stream, ending)
        except BaseException as error:  # Ctrl-C and SIGTERM too: grades.csv is written even so, then it is raised
            failure = error
        interrupted = isinstance(failure, (KeyboardInterrupt, SystemExit))
        with _no_second_interrupt(interrupted):  # the reports of an interrupted batch are written whole
            results = [_read_back(item, out, run, interrupted) for item in items]
            grades_csv.write([grades_csv.row(r) for r in results], out)
            report = _class_report(results, out)
    if interrupted:  # Ctrl-C, SIGTERM: one sentence (cli), no traceback
        status = failure.code if isinstance(failure, SystemExit) and isinstance(failure.code, int) else 130
        raise Interrupted(results, status) from None
    if failure is not None:
        raise failure
    if not items and select is not None:
        return results  # a shard none of the class hashes to: the shard's own sentence says so (shards.finish)
    outcomes = [finished_from(item.name, item.student, r) for item, r in zip(items, results, strict=True)]
    print(summary(outcomes, seed=run.seed, out=str(out_dir)), flush=True)
    print(class_report.render_terminal(report), flush=True)
    return results


@contextlib.contextmanager
def _no_second_interrupt(interrupted: bool):
    """After Ctrl-C or SIGTERM, hold off another while the reports are written (a second or so), so that
    every report marks what was not graded, and no traceback comes of an impatient second Ctrl-C."""
    if not interrupted or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _refuse_nothing_to_grade(paths: list[Path], items: list[BatchItem]) -> None:
    """NothingToGrade naming the first path that does not exist or under which nothing was found."""
    for path in paths:
        if not os.path.lexists(path):
            raise NothingToGrade(f"{path} does not exist")
        if not any(item.path == path or item.path.is_relative_to(path) for item in items):
            raise NothingToGrade(f"{path} holds no notebook (.ipynb) or Python file (.py) to grade, "
                                 "and no student's folder")
    # Several paths may name the same file: it is graded once, and each path above found it.


def _class_report(results: list[dict], out: OutDir) -> class_report.ClassReport:
    """report.html beside grades.csv; a report that cannot be written costs only itself."""
    try:
        return class_report.write(results, out)
    except OSError as error:
        print(f"autograder: could not write {class_report.FILENAME} ({error})", file=sys.stderr)
        return class_report.build(results)


def _to_grade(items: list[BatchItem], out: OutDir, run: RunOptions, resume: bool,
              stream) -> list[tuple[BatchItem, str | None]]:
    """The submissions a worker must grade, with their content digests; the rest get their result here
    (an entry with no notebook) or keep it (`resume`: a finished result of the same file and settings)."""
    todo, reused = [], 0
    for item in items:
        if item.no_notebook:  # nothing to grade: its zero is written here, never by a worker
            _write_quietly(_no_notebook_result(item, run), item, out)
            continue
        digest = content_digest(item.path)
        if resume:
            reason = _why_not_reusable(item, digest, out, run)
            if reason is None:
                reused += 1
                continue
            if reason != messages.text("batch.resume_reason.no_result"):
                print(messages.text("batch.resume_regraded", name=item.name, reason=reason), file=stream)
        todo.append((item, digest))
    if resume:
        print(messages.text("batch.resume_reused", count=reused), file=stream)
    return todo


def worker_count(jobs: int | None, submissions: int) -> int:
    """How many grading workers a batch of `submissions` starts: `jobs` if given (at most one per
    submission); by default one per core this process may run on, and at most one per
    AUTO_SUBMISSIONS_PER_WORKER submissions, since a worker's start costs about as much as grading two."""
    if jobs is not None:
        return max(1, min(jobs, submissions))
    return max(1, min(usable_cores(), submissions // AUTO_SUBMISSIONS_PER_WORKER))


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (a Slurm allocation, a container's cpuset)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # no affinity on this platform
        return os.cpu_count() or 1


def _grade_all(items: list[BatchItem], out: OutDir, run: RunOptions, jobs: int | None, resume: bool, stream,
               ending: contextlib.ExitStack) -> None:
    """Grade `items` with worker processes; `ending` gets what ends them (their exit, awaited; the store)."""
    todo = _to_grade(items, out, run, resume, stream)
    if not todo:
        return
    config = run.config
    programs, own_store = shared_programs.batch_store(config, run.seed, run.sandbox)  # the workers' shared programs
    if not config.solutions_directory.is_dir():
        # A Gradescope image must hold no solutions: there, say what it costs, not to add them.
        key = "batch.no_solutions_in_image" if os.environ.get(IMAGE_WITHOUT_SOLUTIONS) else \
            "batch.no_solutions_beside_config"
        print(messages.text(key, config=config.source), file=stream)
    handles: list[WorkerHandle] = []
    progress = None
    workers = worker_count(jobs, len(todo))
    pool = ThreadPoolExecutor(max_workers=workers)
    # Started here, by the main thread, which outlives every worker: it dies with this process.
    template = _zygote_template(run.sandbox, programs)
    ending.push(_Ending(handles, pool, programs if own_store else None, template).end)
    restore_sigterm = _interrupt_on_sigterm()
    try:
        # The workers start first: their imports, pytest session and zygote (seconds) overlap the
        # placeholders below; none gets a job before every placeholder is written.
        collect = _likely_assignments([item for item, _ in todo], config, run.assignment)
        for index in range(workers):
            handles.append(WorkerHandle(worker_command(programs, index=index, workers=workers, collect=collect),
                                        template.channel_for_worker if template is not None else None,
                                        run=run.to_json()))
            handles[-1].spawn()
        for item, _digest in todo:
            _write_quietly(_not_graded_yet(item, run), item, out)
        _prepare_report()  # the report's imports, while the workers import theirs
        pending: queue.SimpleQueue[tuple[BatchItem, str | None]] = queue.SimpleQueue()
        for entry in todo:
            pending.put(entry)
        progress = Progress(len(todo), stream)
        regraded: set[str] = set()
        for done in [pool.submit(_drain, pending, handle, out, run, progress, regraded) for handle in handles]:
            done.result()
    except BaseException:
        # Ctrl-C, SIGTERM, a failure: kill every worker now (each drain then returns at once) rather
        # than let them finish the batch; the submissions not finished keep their placeholders.
        for handle in handles:
            handle.stop()
        raise
    finally:
        restore_sigterm()
        if progress is not None:
            progress.close()


@dataclasses.dataclass
class _Ending:
    """What ends a batch's workers, once its reports are written (an ExitStack's exit callback)."""

    handles: list[WorkerHandle]
    pool: ThreadPoolExecutor
    own_store: Path | None  # the store of shared programs made for this batch alone, deleted last
    zygote_template: ZygoteTemplate | None  # ended after the workers, whose zygotes are its clones

    def end(self, error_type, _error, _traceback) -> bool:
        try:
            if error_type is not None:  # the reports failed, or Ctrl-C came while they were written
                self._stop()
            for handle in self.handles:
                handle.close()  # waits for a worker that is exiting, kills what is left of its group
        except BaseException:  # Ctrl-C while waiting: end them all now
            self._stop()
            raise
        finally:
            # After the workers: a worker started by a drain's thread dies when that thread ends.
            self.pool.shutdown()
            if self.zygote_template is not None:
                self.zygote_template.close()
            if self.own_store is not None:
                shutil.rmtree(self.own_store, ignore_errors=True)
        return False

    def _stop(self) -> None:
        for handle in self.handles:
            handle.stop()


def _zygote_template(sandbox: str, programs: Path) -> ZygoteTemplate | None:
    """The zygote whose clones the workers use, or None if it cannot start (each worker then starts its own,
    and says why if that fails too)."""
    try:
        return ZygoteTemplate(mode=sandbox, programs=programs)
    except Exception:
        return None


def _likely_assignments(items: list[BatchItem], config: GradingConfig, assignment: str | None) -> list[str] | None:
    """The assignments the workers' sessions collect at start: --assignment, else those the layout or the
    file names name, else (a file that names none) None, every one. Only a guess about what to prepare:
    a submission of another assignment is graded all the same (suite_session.serve), a little slower."""
    if assignment:
        return [assignment]
    found = set()
    for item in items:
        named = item.assignment or assignment_in_file_name(item.path, config.assignments)
        if named is None:
            return None
        found.add(named)
    return sorted(found)


def _no_notebook_result(item: BatchItem, run: RunOptions) -> SubmissionResult:
    """The zero of a student whose entry holds no notebook, under the assignment its layout or --assignment names."""
    under = run.assignment or item.assignment or _guess_assignment(item, run)
    result = unreadable_result(item.name, item.path, under, run.config, run.seed,
                               item.choice.note if item.choice else "")
    result.problem = "no_notebook"
    return result


def _drain(pending: queue.SimpleQueue, worker: WorkerHandle, out: OutDir, run: RunOptions, progress: Progress,
           regraded: set[str]) -> None:
    """One worker's share: grade submissions from `pending` until none is left (`regraded`: see _regrade_later)."""
    try:
        while True:
            try:
                item, digest = pending.get_nowait()
            except queue.Empty:
                return
            # The worker writes <out>/<name>/results.json itself, into the directory this parent opened.
            job = {"path": str(item.path), "name": item.name, "out": str(out.path), "out_identity": list(out.identity),
                   "student": item.student, "content_sha256": digest}
            try:
                # Wall-clock: only a backstop for a hung worker; the submission's limits are CPU time (sandbox.parent).
                worker.grade(job, run.limits.backstop(run.limits.submission_seconds + WORKER_MARGIN_SECONDS))
            except WorkerStopped:
                return  # the batch is ending: this submission keeps its placeholder
            except WorkerFailed as failure:
                _write_quietly(_crashed(item, run, str(failure)), item, out)
            result = _read_back(item, out, run)
            if _regrade_later(result, item, regraded):
                pending.put((item, digest))  # behind every other submission: the machine may be less busy then
                continue
            progress.finished(finished_from(item.name, item.student, result))
    finally:
        # No job left: the worker exits while the batch writes its reports (_Ending waits for it). The pool's
        # threads, one of which may have started it (worker_handle.die_with_parent), end after that.
        worker.finish()


def _regrade_later(result: dict, item: BatchItem, regraded: set[str]) -> bool:
    """Whether to grade `item` once more at the end of the batch: the machine was too busy for it
    ("grader_error": a wall-clock backstop ran out twice with CPU time left), and it was not regraded yet.
    A second such result stands, under "needs a look"; `--resume` grades it again."""
    if result.get("extra_data", {}).get("problem") != "grader_error" or item.name in regraded:
        return False
    regraded.add(item.name)  # one thread per worker: a set's add is atomic under the GIL
    return True


def _interrupt_on_sigterm() -> Callable[[], None]:
    """Make SIGTERM (a CI job's timeout, `timeout`, `kill`) end the batch as Ctrl-C does; returns what undoes it.

    The SystemExit it raises stops every worker and leaves the results written
    so far, and grades.csv. A second SIGTERM ends this process at once (its
    workers die with it). Only in the main thread, and only where nothing else
    handles or ignores SIGTERM.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        return lambda: None

    def interrupt(signum, _frame) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise SystemExit(128 + signum)

    def restore() -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)

    signal.signal(signal.SIGTERM, interrupt)
    return restore


_report_prepared = threading.Event()


def _prepare_report() -> None:
    """Import the class report's plotting (matplotlib, about half a second of CPU) in a thread, now.

    Called once the workers are started: while they and the zygote template import, the batch
    parent has nothing else to do, and the report then costs only its drawing at the end (at the
    end, nothing else runs beside it).
    """
    if _report_prepared.is_set():
        return
    _report_prepared.set()

    def load() -> None:
        try:
            from matplotlib import figure, textpath  # noqa: F401
            from matplotlib.backends import backend_svg  # noqa: F401
        except Exception:
            pass  # class_report says what went wrong, when it needs them

    threading.Thread(target=load, name="autograder-report-imports", daemon=True).start()


def _write_quietly(result: SubmissionResult, item: BatchItem, out: OutDir) -> dict:
    """Write a result the parent made, with who handed it in (see `_with_identity`); returns what it wrote."""
    data = result.to_gradescope()
    _with_identity(data, item)
    _write_data_quietly(data, item, out)
    return data


def _write_data_quietly(data: dict, item: BatchItem, out: OutDir) -> None:
    """Write a results.json; if the out dir refuses it, say so and go on (grades.csv still has its row)."""
    try:
        gradescope_json.write_data(data, out, item.name)
    except OSError as error:
        print(f"autograder: could not write the result of {item.path} ({error})", file=sys.stderr)


def _why_not_reusable(item: BatchItem, digest: str | None, out: OutDir, run: RunOptions) -> str | None:
    """None if `--resume` may keep the result in place: finished, of this student, this content, these settings.

    Anything odd in its place (not a regular file, not a result) counts as no result.
    """
    try:
        extra = gradescope_json.read(out, item.name).get("extra_data", {})
    except (OSError, ValueError):
        extra = {}
    recorded_status = grade_status.of({"extra_data": extra})
    if extra and recorded_status.status == grade_status.NOT_GRADED:  # why, from what the last run recorded
        if recorded_status.reason == grade_status.INTERRUPTED:
            return messages.text("batch.resume_reason.interrupted")
        if recorded_status.reason == grade_status.TOO_BUSY:
            return messages.text("batch.resume_reason.too_busy")
        if recorded_status.reason == grade_status.KIT_ERROR:
            return messages.text("batch.resume_reason.kit_error")
        return messages.text("batch.resume_reason.grader_error")
    if extra.get("finished") is not True:
        return messages.text("batch.resume_reason.no_result")
    if extra.get("student") != item.student:
        return messages.text("batch.resume_reason.other_student", recorded=str(extra.get("student"))[:100])
    if digest is None or extra.get("content_sha256") != digest:
        return messages.text("batch.resume_reason.content_changed")
    recorded = extra.get("settings")
    assignment = recorded.get("assignment") if isinstance(recorded, dict) else None
    current = grading_settings(run.config, run.seed, assignment if assignment in run.config.assignments else None,
                               run.sandbox, run.hints)
    changed = changed_settings(recorded, current)
    if changed:
        return messages.text("batch.resume_reason.settings_changed", what=", ".join(changed))
    return None


def _read_back(item: BatchItem, out: OutDir, run: RunOptions, interrupted: bool = False) -> dict:
    """The submission's results.json, with who handed it in from the layout, as every report will read it.

    If it cannot be read back, or one of the reports could not use it, a
    zero that says why takes its place: one result never stops the batch's
    grades.csv, class report or JUnit file. A result this changes is written
    back (the layout's notes belong in results.json too). In a batch that was `interrupted` before its
    placeholder was written, a submission with no result gets the placeholder: not graded, interrupted.
    """
    try:
        data = gradescope_json.read(out, item.name)  # bounded: bounded_json's limits are ValueErrors
    except (OSError, ValueError) as error:
        if interrupted and isinstance(error, FileNotFoundError):
            return _write_quietly(_not_graded_yet(item, run), item, out)
        return _zero_instead(item, out, run, messages.text("batch.read_back_failed", error=error))
    changed = _with_identity(data, item)
    unusable = _unusable_by_reports(data)
    if unusable is not None:
        return _zero_instead(item, out, run, messages.text("batch.report_failed", error=unusable))
    if changed:
        _write_data_quietly(data, item, out)
    return data


def _zero_instead(item: BatchItem, out: OutDir, run: RunOptions, detail: str) -> dict:
    return _write_quietly(_crashed(item, run, detail), item, out)


def _with_identity(data: dict, item: BatchItem) -> bool:
    """Record the student (from the layout, never from the file) and the layout's notes; True if that changed it.

    The notes go to the end of the result's output, where the instructor reads
    them, and to extra_data.identity_notes, which the class report lists under
    "needs a look".
    """
    extra = data.setdefault("extra_data", {})
    before = (extra.get("student"), extra.get("identity_notes"), data.get("output"), extra.get("ignored_files"),
              extra.get("relative_path"), extra.get("status"))
    extra["student"] = item.student
    if item.relative_path:
        extra["relative_path"] = item.relative_path
    if item.notes:
        extra["identity_notes"] = list(item.notes)
    if item.choice is not None:  # which files were not graded: the student reads the note, the report the lists
        extra["ignored_files"] = list(item.choice.ignored)
        extra["found_instead"] = list(item.choice.found_instead)
    notes = [*item.notes, *([item.choice.note] if item.choice else [])]
    if notes:
        output = data.get("output")
        output = output if isinstance(output, str) else ""
        missing = [note for note in notes if note not in output.splitlines()]
        data["output"] = "\n".join([output, *missing] if output else missing)
    extra["status"] = grade_status.of(data).status  # what every report says of it: a grade, or not graded
    return before != (extra.get("student"), extra.get("identity_notes"), data.get("output"),
                      extra.get("ignored_files"), extra.get("relative_path"), extra.get("status"))


def _unusable_by_reports(data: dict) -> str | None:
    """None if grades.csv, the class report, JUnit and the progress line can all use this result; else why not.

    Tried on this result alone, so that a result they cannot use costs only its own submission.
    """
    try:
        grades_csv.render([grades_csv.row(data)])
        class_report.build([data])
        junit_xml.render([data])
        finished_from("", "", data)
    except Exception as error:  # whatever it is, it is this result's: it is replaced by a zero that says so
        return f"{type(error).__name__}: {str(error)[:200]}"
    return None


def _not_graded_yet(item: BatchItem, run: RunOptions) -> SubmissionResult:
    """The placeholder a worker's result replaces; kept, it says the batch was interrupted before grading it."""
    result = unreadable_result(item.name, item.path, _guess_assignment(item, run), run.config, run.seed,
                               messages.text("batch.not_graded_note"))
    result.problem = grade_status.INTERRUPTED
    return result


def _crashed(item: BatchItem, run: RunOptions, detail: str) -> SubmissionResult:
    """The result of a submission whose grading did not finish: zero for every check, under its assignment."""
    return crashed_result(item.name, item.path, _guess_assignment(item, run), run.config, run.seed, detail)


def _guess_assignment(item: BatchItem, run: RunOptions) -> str | None:
    """The assignment a result made without grading goes under; None (no checks listed) if reading fails."""
    from autograder.load.submission_source import guess_assignment  # reads notebooks: not before workers start

    try:
        return guess_assignment(item.path, run.config.assignments, run.assignment)  # bounded: see bounded_json
    except Exception:  # the file is the student's: a guess that fails costs only this submission's guess
        return None
