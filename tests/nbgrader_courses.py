"""A course directory with one assignment released by real nbgrader, for the tests that run nbgrader itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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
