"""Releasing assignments: check-cell points from grading.toml, then real nbgrader.

`assignments/` is exactly what `nbgrader generate_assignment` makes from
`solutions/`; this is the one command that regenerates it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder.grading_config import REPO_ROOT, GradingConfig

CHECK_PREFIX = "check_"


def solution_notebook(assignment: str, root: Path = REPO_ROOT) -> Path:
    return root / "solutions" / assignment / f"{assignment}.ipynb"


def check_cells(notebook) -> list:
    """The nbgrader grade cells whose grade_id is check_<function>."""
    return [cell for cell in notebook.cells
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade")
            and str(cell.metadata.nbgrader.get("grade_id", "")).startswith(CHECK_PREFIX)]


def sync_points(config: GradingConfig, assignment: str, root: Path = REPO_ROOT) -> bool:
    """Set every check cell's points to grading.toml's total for its function; True if changed."""
    path = solution_notebook(assignment, root)
    notebook = nbformat.read(path, as_version=4)
    changed = False
    for cell in check_cells(notebook):
        function = cell.metadata.nbgrader.grade_id[len(CHECK_PREFIX):]
        total = config.function_total(assignment, function)
        points = int(total) if float(total).is_integer() else total
        if cell.metadata.nbgrader.get("points") != points:
            cell.metadata.nbgrader["points"] = points
            changed = True
    if changed:
        nbformat.write(notebook, path)
    return changed


def generate(assignment: str, root: Path = REPO_ROOT, release_dir: Path | None = None) -> subprocess.CompletedProcess:
    """Run `nbgrader generate_assignment` with a throwaway gradebook."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
            f"--CourseDirectory.db_url=sqlite:///{scratch}/gradebook.db",
        ]
        if release_dir is not None:
            command.append(f"--CourseDirectory.release_directory={release_dir}")
        return subprocess.run(command, cwd=root, capture_output=True, text=True, env=nbgrader_environment())


def nbgrader_environment() -> dict:
    """The environment with this interpreter's bin directory first on PATH.

    nbgrader runs helper executables (alembic) by name, which must be the ones
    installed next to this Python even when the venv is not activated.
    """
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def release(config: GradingConfig, assignments: list[str] | None = None) -> int:
    """Sync points and regenerate assignments/ for `assignments` (default: all)."""
    status = 0
    for assignment in assignments or config.assignments:
        if assignment not in config.points:
            print(f"release: grading.toml has no [assignments.{assignment}.*] points", file=sys.stderr)
            status = 1
            continue
        if not solution_notebook(assignment).exists():
            print(f"release: {solution_notebook(assignment)} does not exist", file=sys.stderr)
            status = 1
            continue
        if sync_points(config, assignment):
            print(f"release: updated check-cell points in {solution_notebook(assignment)}")
        target = REPO_ROOT / "assignments" / assignment
        # Generate into a scratch directory, then swap: a failed run leaves assignments/ as it was.
        with tempfile.TemporaryDirectory() as staging:
            completed = generate(assignment, release_dir=Path(staging))
            if completed.returncode != 0:
                print(f"release: nbgrader failed for {assignment}:\n{completed.stdout}{completed.stderr}", file=sys.stderr)
                status = 1
                continue
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(Path(staging) / assignment, target)
        print(f"release: wrote {target}")
    return status
