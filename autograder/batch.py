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
"""

from __future__ import annotations

import dataclasses
import queue
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.grading import crashed_result
from autograder.grading_config import GradingConfig
from autograder.reports import gradescope_json, grades_csv
from autograder.worker_handle import WorkerFailed, WorkerHandle, worker_command

SUBMISSION_SUFFIXES = (".ipynb", ".py")
# Time for the worker's own grading steps (pytest, comparisons), on top of the student's budget.
WORKER_MARGIN_SECONDS = 60


@dataclasses.dataclass(frozen=True)
class BatchItem:
    name: str
    path: Path

    def results_path(self, out_dir: Path) -> Path:
        return out_dir / self.name / "results.json"


def discover(paths: list[Path]) -> list[BatchItem]:
    """Submissions named on the command line or found in named directories.

    Paths that do not exist are kept, so they get a result that says so.
    Names are file stems, made unique with the parent folder's name.
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in SUBMISSION_SUFFIXES
                                and p.is_file() and ".ipynb_checkpoints" not in p.parts))
        else:
            files.append(path)
    items, used = [], set()
    for file in files:
        name = file.stem
        if name in used:
            name = f"{file.parent.name}__{file.stem}"
        suffix = 2
        base = name
        while name in used:
            name, suffix = f"{base}__{suffix}", suffix + 1
        used.add(name)
        items.append(BatchItem(name, file))
    return items


def grade_batch(
    paths: list[Path], out_dir: Path, config: GradingConfig, *, seed: int, jobs: int = 1,
    assignment: str | None = None, resume: bool = False, sandbox: str = "os",
) -> list[dict]:
    """Grade every submission under `paths` into `out_dir`; returns the results.json contents."""
    out_dir.mkdir(parents=True, exist_ok=True)
    items = discover(paths)
    todo = []
    for item in items:
        target = item.results_path(out_dir)
        if resume and _finished(target):
            continue
        placeholder = crashed_result(item.name, item.path, _assignment_guess(item, config, assignment), config, seed,
                                     "grading was interrupted before it finished")
        gradescope_json.write(placeholder, target)
        todo.append(item)
    pending: queue.SimpleQueue[BatchItem] = queue.SimpleQueue()
    for item in todo:
        pending.put(item)
    programs = Path(tempfile.mkdtemp(prefix="autograder-programs-"))  # the workers' shared_programs store
    programs.chmod(0o755)  # children read it (through a read-only view) as uids of their own
    try:
        command = worker_command(config.source, seed, assignment, sandbox, programs)
        workers = max(1, min(jobs, len(todo)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for done in [pool.submit(_drain, pending, command, out_dir, config, seed, assignment) for _ in range(workers)]:
                done.result()
    finally:
        shutil.rmtree(programs, ignore_errors=True)
    results = [gradescope_json.read(item.results_path(out_dir)) for item in items]
    grades_csv.write([grades_csv.row(r) for r in results], out_dir / "grades.csv")
    return results


def _drain(pending: queue.SimpleQueue, command: list[str], out_dir: Path, config: GradingConfig, seed: int,
           assignment: str | None) -> None:
    """One worker's share: grade submissions from `pending` until none is left."""
    worker = WorkerHandle(command)
    try:
        while True:
            try:
                item = pending.get_nowait()
            except queue.Empty:
                return
            target = item.results_path(out_dir)
            job = {"path": str(item.path), "name": item.name, "results": str(target)}
            try:
                worker.grade(job, config.limits.submission_seconds + WORKER_MARGIN_SECONDS)
            except WorkerFailed as failure:
                gradescope_json.write(crashed_result(item.name, item.path, _assignment_guess(item, config, assignment),
                                                     config, seed, str(failure)), target)
    finally:
        worker.close()


def _finished(target: Path) -> bool:
    try:
        return gradescope_json.read(target).get("extra_data", {}).get("finished") is True
    except (OSError, ValueError):
        return False


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
