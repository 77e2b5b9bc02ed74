"""Grading many submissions in parallel, with a result for every one.

`jobs` trusted worker processes (autograder.batch_worker) each grade one
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

import dataclasses
import hashlib
import os
import queue
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.grading import crashed_result
from autograder.grading_config import GradingConfig
from autograder.reports import gradescope_json, grades_csv
from autograder.reports.out_dir import OutDir, safe_component
from autograder.worker_handle import WorkerFailed, WorkerHandle, worker_command

SUBMISSION_SUFFIXES = (".ipynb", ".py")
# Time for the worker's own grading steps (pytest, comparisons), on top of the student's budget.
WORKER_MARGIN_SECONDS = 60


@dataclasses.dataclass(frozen=True)
class BatchItem:
    name: str  # the submission's directory in the out dir: `<out>/<name>/results.json`
    path: Path


def discover(paths: list[Path]) -> list[BatchItem]:
    """Submissions named on the command line or found in named directories, each with its out dir name.

    Paths that do not exist are kept, so they get a result that says so.
    A name is the readable part of the submission's file name (see
    `submission_name`) made one safe file name (out_dir.safe_component). It
    stays exactly that when that needed no change and no other submission's
    name is the same ignoring case; otherwise it gets `__` and a short hash
    of the submission's path relative to the directory given (or its own
    file name, for a file given). So a name never depends on the order of
    the submissions, a hashed name never changes, a plain one changes only
    when a submission with the same name is added (then both are hashed),
    and no name ever passes from one submission to another.
    """
    found: list[tuple[Path, Path]] = []  # (submission, the root its hash is relative to)
    seen: set[str] = set()
    for path in paths:
        if _is_dir(path):
            files = sorted(p for p in path.rglob("*") if p.suffix in SUBMISSION_SUFFIXES
                           and _is_file(p) and ".ipynb_checkpoints" not in p.parts)
            found.extend((file, path) for file in files)
        else:
            found.append((path, path.parent))
    unique = []
    for file, root in found:  # the same file given twice is graded once
        key = os.path.abspath(file)
        if key not in seen:
            seen.add(key)
            unique.append((file, root))
    return [BatchItem(name, file) for name, (file, _) in zip(_unique_names(unique), unique)]


def submission_name(path: Path, root: Path) -> str:
    """The readable name of the submission at `path`, found under `root`: its file name without the suffix."""
    return path.stem


def _unique_names(found: list[tuple[Path, Path]]) -> list[str]:
    bases, levels = [], []  # level -1: the plain name; 0, 1, 2: hashed ever more widely (see _digest)
    for file, root in found:
        readable = submission_name(file, root)
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
    paths: list[Path], out_dir: Path, config: GradingConfig, *, seed: int, jobs: int = 1,
    assignment: str | None = None, resume: bool = False, sandbox: str = "os",
) -> list[dict]:
    """Grade every submission under `paths` into `out_dir`; returns the results.json contents.

    Raises out_dir.OutDirError, before grading anything, if `out_dir` cannot be
    opened as a real directory.
    """
    items = discover(paths)
    with OutDir(out_dir) as out:
        failure = None
        try:
            _grade_all(items, out, config, seed, jobs, assignment, resume, sandbox)
        except Exception as error:  # grades.csv is written even so, then the error is raised
            failure = error
        results = [_read_back(item, out, config, seed, assignment) for item in items]
        grades_csv.write([grades_csv.row(r) for r in results], out)
    if failure is not None:
        raise failure
    return results


def _grade_all(items: list[BatchItem], out: OutDir, config: GradingConfig, seed: int, jobs: int,
               assignment: str | None, resume: bool, sandbox: str) -> None:
    todo = []
    for item in items:
        if resume and _finished(item, out):
            continue
        placeholder = crashed_result(item.name, item.path, _assignment_guess(item, config, assignment), config, seed,
                                     "grading was interrupted before it finished")
        _write_quietly(placeholder, item, out)
        todo.append(item)
    if not todo:
        return
    pending: queue.SimpleQueue[BatchItem] = queue.SimpleQueue()
    for item in todo:
        pending.put(item)
    programs = Path(tempfile.mkdtemp(prefix="autograder-programs-"))  # the workers' shared_programs store
    programs.chmod(0o755)  # children read it (through a read-only view) as uids of their own
    try:
        command = worker_command(config.source, seed, assignment, sandbox, programs)
        workers = max(1, min(jobs, len(todo)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for done in [pool.submit(_drain, pending, command, out, config, seed, assignment) for _ in range(workers)]:
                done.result()
    finally:
        shutil.rmtree(programs, ignore_errors=True)


def _drain(pending: queue.SimpleQueue, command: list[str], out: OutDir, config: GradingConfig, seed: int,
           assignment: str | None) -> None:
    """One worker's share: grade submissions from `pending` until none is left."""
    worker = WorkerHandle(command)
    try:
        while True:
            try:
                item = pending.get_nowait()
            except queue.Empty:
                return
            # The worker writes <out>/<name>/results.json itself, into the directory this parent opened.
            job = {"path": str(item.path), "name": item.name, "out": str(out.path), "out_identity": list(out.identity)}
            try:
                worker.grade(job, config.limits.submission_seconds + WORKER_MARGIN_SECONDS)
            except WorkerFailed as failure:
                _write_quietly(crashed_result(item.name, item.path, _assignment_guess(item, config, assignment),
                                              config, seed, str(failure)), item, out)
    finally:
        worker.close()


def _write_quietly(result, item: BatchItem, out: OutDir) -> None:
    """Write a result the parent made; if the out dir refuses it, say so and go on (grades.csv still says 0)."""
    try:
        gradescope_json.write(result, out, item.name)
    except OSError as error:
        print(f"autograder: could not write the result of {item.path} ({error})", file=sys.stderr)


def _finished(item: BatchItem, out: OutDir) -> bool:
    """A finished result of this very submission; anything odd in its place counts as not finished."""
    try:
        extra = gradescope_json.read(out, item.name).get("extra_data", {})
    except (OSError, ValueError):
        return False
    return extra.get("finished") is True and _same_path(extra.get("path"), item.path)


def _same_path(recorded: object, path: Path) -> bool:
    if not isinstance(recorded, str):
        return False
    return recorded == str(path) or os.path.abspath(recorded) == os.path.abspath(path)


def _read_back(item: BatchItem, out: OutDir, config: GradingConfig, seed: int, assignment: str | None) -> dict:
    """The submission's results.json; if it cannot be read, a zero that says so (written back if possible)."""
    try:
        return gradescope_json.read(out, item.name)
    except (OSError, ValueError) as error:
        result = crashed_result(item.name, item.path, _assignment_guess(item, config, assignment), config, seed,
                                f"its results.json could not be read back: {error}")
        _write_quietly(result, item, out)
        return result.to_gradescope()


def _assignment_guess(item: BatchItem, config: GradingConfig, override: str | None) -> str | None:
    if override in config.assignments:
        return override
    for name in sorted(config.assignments, key=len, reverse=True):
        if name in item.path.stem:
            return name
    try:
        from autograder.submission_source import read

        hint = read(item.path).assignment_hint
        return hint if hint in config.assignments else None
    except Exception:
        return None
