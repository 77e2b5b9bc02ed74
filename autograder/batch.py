"""Grading many submissions in parallel, with a result for every one.

Each submission is graded by its own trusted worker process (which in turn
runs the student's code in a sandbox child), so a crash costs only that
submission. Before any work starts, every submission gets a placeholder
results.json that scores 0; a worker replaces it atomically when it
finishes, so a crash anywhere leaves a zero, never nothing.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from autograder.grading import crashed_result
from autograder.grading_config import GradingConfig
from autograder.reports import gradescope_json, grades_csv

SUBMISSION_SUFFIXES = (".ipynb", ".py")
# Time for the worker's own start-up and pytest, on top of the student's budget.
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
    assignment: str | None = None, resume: bool = False, sandbox: str = "default",
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
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(lambda item: _run_worker(item, out_dir, config, seed, assignment, sandbox), todo))
    results = [gradescope_json.read(item.results_path(out_dir)) for item in items]
    grades_csv.write([grades_csv.row(r) for r in results], out_dir / "grades.csv")
    return results


def _run_worker(item: BatchItem, out_dir: Path, config: GradingConfig, seed: int, assignment: str | None,
                sandbox: str) -> None:
    target = item.results_path(out_dir)
    command = [sys.executable, "-m", "autograder.batch_worker", str(item.path), "--name", item.name,
               "--results", str(target), "--seed", str(seed), "--config", str(config.source), "--sandbox", sandbox]
    if assignment:
        command += ["--assignment", assignment]
    try:
        completed = subprocess.run(command, capture_output=True, text=True,
                                   timeout=config.limits.submission_seconds + WORKER_MARGIN_SECONDS)
        detail = f"worker exit code {completed.returncode}: {completed.stderr.strip()[-500:]}"
        failed = completed.returncode != 0
    except subprocess.TimeoutExpired:
        failed, detail = True, "the grading worker exceeded its time limit"
    if failed:
        gradescope_json.write(
            crashed_result(item.name, item.path, _assignment_guess(item, config, assignment), config, seed, detail), target)


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
