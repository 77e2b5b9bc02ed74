"""Real `nbgrader validate` (real kernel): every solution notebook passes, every released stub fails on each check cell.

`nbgrader validate` exits 0 either way (exit 1 means nbgrader itself failed),
so the verdict is read from its report.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO, SEED

from autograder import grading_config
from autograder.integrations.release import nbgrader_environment

CONFIG = grading_config.load()
ASSIGNMENTS = CONFIG.assignments
PASSED = "Success! Your notebook passes all the tests."


def _validate(path) -> subprocess.CompletedProcess:
    assert path.exists(), f"{path.relative_to(REPO)} does not exist: run `autograder release {path.parent.name}`"
    env = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)}
    completed = subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(path)], cwd=REPO, env=env,
                               capture_output=True, text=True, timeout=1200)
    assert completed.returncode == 0, f"nbgrader validate crashed:\n{completed.stdout}\n{completed.stderr}"
    return completed


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_validate_passes_on_the_solution(assignment):
    completed = _validate(REPO / "solutions" / assignment / f"{assignment}.ipynb")
    assert PASSED in completed.stdout, completed.stdout


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_validate_fails_every_check_cell_of_the_stub(assignment):
    completed = _validate(REPO / "assignments" / assignment / f"{assignment}.ipynb")
    functions = CONFIG.functions(assignment)
    assert PASSED not in completed.stdout
    assert f"VALIDATION FAILED ON {len(functions)} CELL(S)!" in completed.stdout, completed.stdout
    for function in functions:
        assert f'check("{function}", globals())' in completed.stdout, f"check_{function} not reported as failing"
