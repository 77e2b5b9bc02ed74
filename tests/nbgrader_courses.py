"""A course directory with one assignment released by real nbgrader, for the tests that run nbgrader itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from autograder import grading_config
from autograder.integrations.release import nbgrader_environment

REPO = Path(__file__).resolve().parent.parent


def run_nbgrader(root: Path, *args: str, seed: int | None = None) -> subprocess.CompletedProcess:
    """`nbgrader ARGS` in the course `root`, as the kit's nbgrader_config.py runs it (hidden inputs from `seed`)."""
    environment = nbgrader_environment()
    if seed is not None:
        environment[grading_config.SEED_ENVIRONMENT_VARIABLE] = str(seed)
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=1800)


def released_course(root: Path, assignment: str, seed: int | None = None) -> Path:
    """`root` as a course: the kit's nbgrader_config.py and grading.toml, the assignment's source, and nbgrader's
    release of it."""
    shutil.copy(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copy(REPO / "grading.toml", root / "grading.toml")
    shutil.copytree(REPO / "solutions" / assignment, root / "solutions" / assignment)
    generated = run_nbgrader(root, "generate_assignment", assignment, seed=seed)
    assert generated.returncode == 0, generated.stderr[-3000:]
    return root


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def honest_notebook(root: Path, assignment: str) -> nbformat.NotebookNode:
    """The released notebook with the reference solutions in its solution cells: full marks."""
    release = nbformat.read(root / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    source = nbformat.read(root / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    solutions = {_grade_id(c): c.source for c in source.cells if str(_grade_id(c)).endswith("_solution")}
    for cell in release.cells:
        if _grade_id(cell) in solutions:
            cell.source = solutions[_grade_id(cell)]
    return release


def stub_notebook(root: Path, assignment: str) -> nbformat.NotebookNode:
    """The released notebook as handed out: every check scores 0."""
    return nbformat.read(root / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)


def submission_folder(root: Path, student: str, assignment: str) -> Path:
    folder = root / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def scores(root: Path, assignment: str) -> dict[str, dict[str, float]]:
    """Each student's score per grade cell, as the gradebook holds it."""
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {s.student_id: {g.name: g.score for g in gradebook.find_submission_notebook(
                    assignment, assignment, s.student_id).grades}
                for s in gradebook.assignment_submissions(assignment)}
