"""What confining the student's kernel costs `nbgrader autograde`: the same course, confined and not.

A course directory as an instructor makes one (the kit's nbgrader_config.py,
solutions/ of one assignment), N honest submissions, then `nbgrader autograde
--force` run in alternating rounds with the confined kernel (the kit's
default) and without it (`--ExecuteUntilKernelDies.confine_kernel=False`),
so a change in the machine's load falls on both. Both grade the check cells
in the OS sandbox (GradeCheckCellsInSandbox), so the kernel is the only
difference. Prints one JSON line: seconds per submission per round, and the
median ratio (the README quotes it; the aim is under 1.10).

    .venv/bin/python benchmarks/kernel_confinement.py [--students 4] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.integrations.release import nbgrader_environment

ROOT = Path(__file__).resolve().parent.parent
UNCONFINED = "--ExecuteUntilKernelDies.confine_kernel=False"


def _nbgrader(course: Path, *args: str) -> float:
    """Run one nbgrader command in `course`; its wall-clock seconds. Raises if it fails."""
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=nbgrader_environment(),
                               capture_output=True, text=True)
    if completed.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{completed.stderr[-3000:]}")
    return time.perf_counter() - started


def _honest(course: Path, assignment: str) -> nbformat.NotebookNode:
    """The released notebook with the solution cells filled in, as a student who solved everything hands it in."""
    released = nbformat.read(course / "release" / assignment / f"{assignment}.ipynb", as_version=4)
    source = nbformat.read(course / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    solutions = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in source.cells}
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if str(grade_id).endswith("_solution"):
            cell.source = solutions[grade_id]
    return released


def _course(base: Path, assignment: str, students: int) -> Path:
    course = base / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copy(ROOT / "grading.toml", course / "grading.toml")
    shutil.copytree(ROOT / "solutions" / assignment, course / "solutions" / assignment)
    _nbgrader(course, "generate_assignment", assignment, "--CourseDirectory.release_directory=release")
    notebook = _honest(course, assignment)
    for index in range(students):
        folder = course / "submitted" / f"student{index:02d}" / assignment
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / f"{assignment}.ipynb")
    return course


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignment", default="01_immutable_updates")
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kernel-confinement-") as base:
        course = _course(Path(base), args.assignment, args.students)
        seconds: dict[str, list[float]] = {"confined": [], "unconfined": []}
        for _ in range(args.rounds):
            for label, extra in (("confined", ()), ("unconfined", (UNCONFINED,))):
                spent = _nbgrader(course, "autograde", args.assignment, "--force", *extra)
                seconds[label].append(round(spent / args.students, 2))
    ratio = statistics.median(seconds["confined"]) / statistics.median(seconds["unconfined"])
    print(json.dumps({"assignment": args.assignment, "students": args.students,
                      "seconds_per_submission": seconds, "median_ratio_confined_to_unconfined": round(ratio, 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
