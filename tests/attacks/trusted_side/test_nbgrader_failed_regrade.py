"""A resubmission whose regrade fails keeps none of the previous run's points.

A real course (the repository's nbgrader_config.py), real `nbgrader autograde` with confined kernels.
Round 1: alice, mallory and trudy hand in the reference solutions: full marks. Round 2 (`--force`):
  mallory  the released stubs, one check cell's metadata changed to `grade: false`, which makes
           nbgrader's own checks fail the whole submission
  trudy    the released stubs and a 600 MiB sparse data file, which once kept the confined kernel
           from starting (its copy did not fit the kernel's space), so nbgrader failed
nbgrader once saved nothing for either, and round 1's full marks stayed while the stubs replaced the
notebooks. Now every grade of a submission is 0, needing a look, before anything of its run can fail:
Mallory's run fails, names her, and leaves 0; Trudy's data file is not copied (named in her
feedback) and her stubs are graded: 0. Alice, not regraded, keeps full marks.
"""

from __future__ import annotations

import os
import shutil

import nbformat
import pytest
from conftest import SEED
from nbgrader.api import Gradebook
from nbgrader_courses import honest_notebook, released_course, run_nbgrader, scores, stub_notebook, submission_folder

from autograder import grading_config

ASSIGNMENT = "01_immutable_updates"
CONFIG = grading_config.load()
TOTAL = sum(CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT))
SPARSE_BYTES = 600 << 20

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="the confined kernel needs root and bubblewrap")


def _notebook_path(root, student):
    return submission_folder(root, student, ASSIGNMENT) / f"{ASSIGNMENT}.ipynb"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course after both rounds: (root, round 1's scores, round 2's nbgrader runs for Mallory and Trudy)."""
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT, seed=SEED)
    for student in ("alice", "mallory", "trudy"):
        nbformat.write(honest_notebook(root, ASSIGNMENT), _notebook_path(root, student))
    first = run_nbgrader(root, "autograde", ASSIGNMENT, seed=SEED)
    assert first.returncode == 0, first.stderr[-3000:]
    round_1 = scores(root, ASSIGNMENT)
    broken = stub_notebook(root, ASSIGNMENT)
    check = next(cell for cell in broken.cells if cell.metadata.get("nbgrader", {}).get("grade"))
    check.metadata.nbgrader["grade"] = False
    nbformat.write(broken, _notebook_path(root, "mallory"))
    nbformat.write(stub_notebook(root, ASSIGNMENT), _notebook_path(root, "trudy"))
    with open(submission_folder(root, "trudy", ASSIGNMENT) / "data.bin", "wb") as sparse:
        sparse.truncate(SPARSE_BYTES)
    second = run_nbgrader(root, "autograde", ASSIGNMENT, "--force", "--student", "mallory", seed=SEED)
    third = run_nbgrader(root, "autograde", ASSIGNMENT, "--force", "--student", "trudy", seed=SEED)
    return root, round_1, second, third


def test_round_1_gave_everyone_full_marks(course):
    _, round_1, _, _ = course
    assert {student: sum(marks.values()) for student, marks in round_1.items()} == {
        "alice": TOTAL, "mallory": TOTAL, "trudy": TOTAL}


def test_a_regrade_that_fails_leaves_0_needing_a_look_and_names_the_submission(course):
    root, _, second, _ = course
    assert second.returncode != 0
    assert "for student 'mallory'" in second.stderr
    assert sum(scores(root, ASSIGNMENT)["mallory"].values()) == 0
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "mallory")
        assert all(grade.needs_manual_grade for grade in notebook.grades)


def test_a_data_file_too_large_to_copy_is_left_out_and_the_stubs_score_0(course):
    root, _, _, third = course
    assert third.returncode == 0, third.stderr[-3000:]
    assert sum(scores(root, ASSIGNMENT)["trudy"].values()) == 0
    autograded = root / "autograded" / "trudy" / ASSIGNMENT
    assert not (autograded / "data.bin").exists()
    notebook = nbformat.read(autograded / f"{ASSIGNMENT}.ipynb", as_version=4)
    shown = " ".join(" ".join(output.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                              for output in cell.outputs).split())
    assert "data.bin (larger than 32 MiB)" in shown


def test_a_student_not_regraded_keeps_her_marks(course):
    root, _, _, _ = course
    assert sum(scores(root, ASSIGNMENT)["alice"].values()) == TOTAL
