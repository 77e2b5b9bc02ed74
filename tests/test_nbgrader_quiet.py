"""`nbgrader autograde` with the kit's configuration prints no warning: no alarm that is not one.

nbgrader 0.9.6 with the pinned SQLAlchemy warned three times per student
("SAWarning: Object of type <SubmittedAssignment> not in session, add operation
along 'Student.submissions' will not proceed"): a known, harmless pattern of
nbgrader's gradebook, filtered exactly where nbgrader runs
(integrations/nbgrader_warnings.py).
"""

from __future__ import annotations

import warnings

import nbformat
import pytest
from conftest import REPO
from nbgrader_courses import released_course, run_nbgrader

from autograder.integrations import nbgrader_warnings

ASSIGNMENT = "01_immutable_updates"
STUDENTS = ("ana", "ben", "cho")


@pytest.fixture(scope="module")
def autograded_course(tmp_path_factory):
    """(the course directory, `nbgrader autograde` of its three students)."""
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT)
    released = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student in STUDENTS:
        path = root / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(released, path)
    return root, run_nbgrader(root, "autograde", ASSIGNMENT)


@pytest.fixture(scope="module")
def autograded(autograded_course):
    return autograded_course[1]


def test_autograde_of_three_students_prints_no_warning(autograded):
    assert autograded.returncode == 0, autograded.stderr[-5000:]
    lines = [line for line in autograded.stderr.splitlines() if "Warning" in line or "[WARNING]" in line]
    assert not lines, "\n".join(lines[:10])


def test_only_the_known_warning_is_filtered():
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nbgrader_warnings.quiet()
        warnings.warn("Object of type <SubmittedAssignment> not in session, add operation along "
                      "'Student.submissions' will not proceed", SAWarning, stacklevel=1)
        warnings.warn("Object of type <SubmittedAssignment> not in session, add operation along "
                      "'Student.submissions' will not proceed", UserWarning, stacklevel=1)
        warnings.warn("Some other SQLAlchemy warning", SAWarning, stacklevel=1)
    assert [(w.category.__name__, str(w.message)[:22]) for w in caught] == [
        ("UserWarning", "Object of type <Submit"), ("SAWarning", "Some other SQLAlchemy ")]


def test_feedback_html_names_no_path_of_the_grading_machine(autograded_course):
    """Issue 41's scan, for nbgrader's student-facing output: the feedback pages of the kit's autograde."""
    root, _ = autograded_course
    feedback = run_nbgrader(root, "generate_feedback", ASSIGNMENT)
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    pages = sorted(root.glob(f"feedback/*/{ASSIGNMENT}/{ASSIGNMENT}.html"))
    assert len(pages) == len(STUDENTS)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert str(root) not in text and str(REPO) not in text, page
