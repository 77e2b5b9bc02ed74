"""nbgrader's feedback page: each check cell's table and score, no stray value, notes said once and only if true.

The first test runs real nbgrader (generate_assignment, autograde with the
sandboxed check cells, generate_feedback) on one untouched stub; the others
run the kit's preprocessors on notebooks built here.
"""

from __future__ import annotations

import html
import re
import shutil
import sys

import nbformat
import pytest
from conftest import REPO, SEED
from nbformat import v4
from nbgrader_courses import released_course, run_nbgrader
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from autograder.catalog import messages
from autograder.check.results import CheckResult, SubmissionResult
from autograder.integrations import nbgrader_sandboxed_grades
from autograder.integrations.nbgrader_sandboxed_grades import HidePointsInFeedback

ASSIGNMENT = "01_immutable_updates"
DEMOS_NOTE = re.compile(re.escape(messages.ENGLISH["load.demos_skipped"]).replace(re.escape("{cells}"), ".+?"))


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


@pytest.fixture(scope="module")
def feedback(tmp_path_factory):
    """(the feedback page's text, the autograded notebook) of a stub, through real nbgrader."""
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT, seed=SEED)
    submitted = root / "submitted" / "stub" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    submitted.parent.mkdir(parents=True)
    shutil.copy(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", submitted)
    sandbox = "os" if _os_sandbox() else "process"
    for step in (("autograde", ASSIGNMENT, f"--GradeCheckCellsInSandbox.sandbox={sandbox}"),
                 ("generate_feedback", ASSIGNMENT)):
        completed = run_nbgrader(root, *step, seed=SEED)
        assert completed.returncode == 0, completed.stderr[-3000:]
    page = (root / "feedback" / "stub" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text(encoding="utf-8")
    autograded = nbformat.read(root / "autograded" / "stub" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    return html.unescape(re.sub(r"<[^>]+>", "", page)), autograded


def _os_sandbox() -> bool:
    from autograder.sandbox import os_isolation

    try:
        os_isolation.check_available(sys.executable)
    except os_isolation.IsolationUnavailable:
        return False
    return True


def test_feedback_shows_no_stray_value_under_check_cells(feedback):
    text, autograded = feedback
    checks = [cell for cell in autograded.cells if str(_grade_id(cell)).startswith("check_")]
    assert checks and all(any(o.output_type == "execute_result" for o in c.outputs) for c in checks), \
        "nbgrader reads the points from the autograded cell's value: it must stay there"
    for cell in checks:
        assert f"Out[{cell.execution_count}]" not in text, f"{_grade_id(cell)} shows its points as a bare value"
    assert len(re.findall(r"Score: 0\.0 / \d", text)) >= len(checks)  # nbgrader's own score beside each cell


def test_feedback_does_not_say_the_example_cells_were_not_run(feedback):
    text, _ = feedback
    assert not DEMOS_NOTE.search(" ".join(text.split())), "nbgrader ran the example cells; the page shows them"


def test_the_kits_feedback_step_is_registered_in_nbgrader_config():
    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO)).load_config()
    assert isinstance(config, Config)
    assert HidePointsInFeedback in config.GenerateFeedback.preprocessors


def test_hide_points_keeps_everything_else():
    table = v4.new_output("stream", name="stdout", text="the table\n")
    points = v4.new_output("execute_result", data={"text/plain": "0"}, execution_count=3)
    check = v4.new_code_cell("check('f', globals())", metadata={"nbgrader": {"grade": True, "solution": False,
                                                                             "grade_id": "check_f", "points": 2}},
                             outputs=[table, points], execution_count=3)
    other = v4.new_code_cell("1 + 1", outputs=[v4.new_output("execute_result", data={"text/plain": "2"},
                                                             execution_count=4)], execution_count=4)
    notebook, _ = HidePointsInFeedback().preprocess(v4.new_notebook(cells=[check, other]), {})
    assert [o.output_type for o in notebook.cells[0].outputs] == ["stream"]
    assert [o.output_type for o in notebook.cells[1].outputs] == ["execute_result"]


def test_other_notes_are_said_once_and_the_example_cells_note_not_at_all():
    notes = [messages.text("load.demos_skipped", cells="4, 9"), messages.text("load.cell_not_implemented", cell=3)]
    result = SubmissionResult(name="s", path="s.ipynb", assignment=ASSIGNMENT, seed=1, notes=notes,
                              checks=[CheckResult("f", "correct", 0, 1, False, "wrong"),
                                      CheckResult("g", "correct", 1, 1, True, "")])
    notes = nbgrader_sandboxed_grades._notes_for_nbgrader(result, left_out=[])
    first = nbgrader_sandboxed_grades._outputs_for(result, "f", 1, notes)[0].text
    second = nbgrader_sandboxed_grades._outputs_for(result, "g", 2, [])[0].text
    assert "Cell 3 is not implemented yet" in first and "Cell 3" not in second
    assert "were not run" not in first + second
