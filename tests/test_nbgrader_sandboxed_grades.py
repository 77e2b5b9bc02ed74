"""nbgrader autograde takes each check cell's points and feedback from the sandboxed grader.

A real course directory (the repository's nbgrader_config.py), real
`nbgrader autograde` with its SQLite gradebook, three students of 02_where:
  honest   the reference solutions
  forger   stubs, plus a first cell that replaces `autograder.notebook.check`
           with one that prints "All checks passed" and returns full marks
  mixed    the reference solutions except selu, left as the stub
graded once with the sandboxed check cells (the default) and once with them
switched off, which shows what the forger would have had.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder import grading_config
from autograder.release import nbgrader_environment
from conftest import REPO, SEED

ASSIGNMENT = "02_where"
CONFIG = grading_config.load()
TOTALS = {f"check_{f}": CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT)}
FORGERY = (
    "import autograder.notebook as _kit\n"
    "_TOTALS = %r\n"
    "def _forged(function, namespace, **options):\n"
    "    print('All checks passed.')\n"
    "    return _TOTALS[function]\n"
    "_kit.check = _forged\n"
) % {f: CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT)}


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=1800)


def _course(root: Path) -> None:
    shutil.copy(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    generated = _nbgrader(root, "generate_assignment", ASSIGNMENT)
    assert generated.returncode == 0, generated.stderr
    release = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    solutions = {_grade_id(c): c.source for c in source.cells if str(_grade_id(c)).endswith("_solution")}
    honest = copy.deepcopy(release)
    for cell in honest.cells:
        if _grade_id(cell) in solutions:
            cell.source = solutions[_grade_id(cell)]
    mixed = copy.deepcopy(honest)
    for cell in mixed.cells:
        if _grade_id(cell) == "selu_solution":
            cell.source = next(c.source for c in release.cells if _grade_id(c) == "selu_solution")
    forger = copy.deepcopy(release)
    forger.cells.insert(1, nbformat.v4.new_code_cell(FORGERY))
    for student, notebook in {"honest": honest, "forger": forger, "mixed": mixed}.items():
        path = root / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)


def _gradebook(root: Path) -> dict:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {s.student_id: {g.name: g.score for g in gradebook.find_submission_notebook(
                    ASSIGNMENT, ASSIGNMENT, s.student_id).grades}
                for s in gradebook.assignment_submissions(ASSIGNMENT)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(sandboxed run, its gradebook, its autograded notebooks), (switched-off run, its gradebook)."""
    sandboxed, plain = tmp_path_factory.mktemp("sandboxed"), tmp_path_factory.mktemp("plain")
    for root in (sandboxed, plain):
        _course(root)
    on = _nbgrader(sandboxed, "autograde", ASSIGNMENT)
    off = _nbgrader(plain, "autograde", ASSIGNMENT, "--GradeCheckCellsInSandbox.enabled=False")
    autograded = {p.parts[-3]: nbformat.read(p, as_version=4)
                  for p in sandboxed.glob(f"autograded/*/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")}
    return (on, _gradebook(sandboxed), autograded), (off, _gradebook(plain))


def test_autograde_succeeds_with_sandboxed_check_cells(graded):
    (on, gradebook, _), _ = graded
    assert on.returncode == 0, on.stderr[-4000:]
    assert sorted(gradebook) == ["forger", "honest", "mixed"]


def test_an_honest_submission_keeps_full_marks(graded):
    (_, gradebook, _), _ = graded
    assert gradebook["honest"] == TOTALS


def test_a_forged_check_function_earns_nothing(graded):
    (_, sandboxed, autograded), (off, plain) = graded
    assert off.returncode == 0, off.stderr[-4000:]
    assert plain["forger"] == TOTALS, "without the sandboxed check cells the forgery would have had full marks"
    assert all(score == 0 for score in sandboxed["forger"].values()), sandboxed["forger"]
    outputs = [o for c in autograded["forger"].cells if str(_grade_id(c)).startswith("check_") for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "All checks passed." not in text and "is not implemented yet" in text


def test_partial_credit_per_check_cell_comes_from_the_sandbox(graded):
    (_, gradebook, autograded), _ = graded
    assert gradebook["mixed"] == TOTALS | {"check_selu": 0.0}
    [selu] = [c for c in autograded["mixed"].cells if _grade_id(c) == "check_selu"]
    assert [o.output_type for o in selu.outputs] == ["stream", "execute_result"]
    assert selu.outputs[1].data["text/plain"] == "0"
