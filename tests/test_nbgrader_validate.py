"""Real `nbgrader validate` (real kernel): every solution notebook passes, every released stub fails on each check cell.

`nbgrader validate` exits 0 either way (exit 1 means nbgrader itself failed),
so the verdict is read from its report. The notebooks the selected tests read
are validated in one process, each by its own ValidateApp as `nbgrader
validate` runs it (a kernel of its own each): nbgrader's start-up, two seconds,
is paid once instead of twenty times.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SEED

from autograder import grading_config
from autograder.integrations.release import nbgrader_environment, solution_notebook

CONFIG = grading_config.load()
ASSIGNMENTS = CONFIG.assignments
PASSED = "Success! Your notebook passes all the tests."
SEPARATOR = "=== nbgrader validate: "
# nbgrader's ValidateApp, started for each notebook in turn as `nbgrader validate NOTEBOOK` starts it.
VALIDATE_EACH = f"""
import sys
from nbgrader.apps.validateapp import ValidateApp
for path in sys.argv[1:]:
    print({SEPARATOR!r} + path, flush=True)
    app = ValidateApp()
    app.initialize([path])
    app.start()
    sys.stdout.flush()
"""


def _stub(assignment: str) -> Path:
    return REPO / "assignments" / assignment / f"{assignment}.ipynb"


def _notebook_of(item) -> Path:
    assignment = item.callspec.params["assignment"]
    return solution_notebook(assignment, REPO) if "passes_on_the_solution" in item.name else _stub(assignment)


@pytest.fixture(scope="module")
def reports(request, kernel_jax_cache) -> dict[Path, str]:
    """{notebook: what nbgrader validate printed for it}, for every notebook this module's selected tests read."""
    paths = sorted({_notebook_of(item) for item in request.session.items if item.module is request.module})
    for path in paths:
        assert path.exists(), f"{path.relative_to(REPO)} does not exist: run `autograder release {path.parent.name}`"
    env = nbgrader_environment() | kernel_jax_cache | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)}
    completed = subprocess.run([sys.executable, "-c", VALIDATE_EACH, *map(str, paths)], cwd=REPO, env=env,
                               capture_output=True, text=True, timeout=1200 * len(paths))
    assert completed.returncode == 0, f"nbgrader validate crashed:\n{completed.stdout}\n{completed.stderr}"
    printed = completed.stdout.split(SEPARATOR)[1:]
    assert len(printed) == len(paths), completed.stdout
    return {Path(path): text for path, _, text in (part.partition("\n") for part in printed)}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_validate_passes_on_the_solution(assignment, reports):
    printed = reports[solution_notebook(assignment, REPO)]
    assert PASSED in printed, printed


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_validate_fails_every_check_cell_of_the_stub(assignment, reports):
    printed = reports[_stub(assignment)]
    functions = CONFIG.functions(assignment)
    assert PASSED not in printed
    assert f"VALIDATION FAILED ON {len(functions)} CELL(S)!" in printed, printed
    for function in functions:
        assert f'check("{function}", globals())' in printed, f"check_{function} not reported as failing"
