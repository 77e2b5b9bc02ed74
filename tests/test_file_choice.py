"""Which file counts, for whom; a student who handed in no notebook; paths and names the CLI must refuse.

Issue 24, parts 1 to 3, through real `autograder` runs: every student the
layout names gets a row (a zero saying what was found when no notebook was
handed in); one file per student and assignment is graded by the documented
rule (metadata, then `<assignment>.ipynb`, then the newest), the others named
to the student and under "needs a look"; a path that does not exist or holds
nothing to grade, and an unknown --assignment or --exercise, exit 2 with one
line and write nothing.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import REPO

from autograder.integrations import gradescope_run

ASSIGNMENT = "02_where"
FULL = 17
HONEST = (REPO / "tests" / "test_class_grading.py").read_text().split('HONEST = """')[1].split('"""')[0]
STUB = "def selu(x, alpha=1.67, lmbda=1.05):\n    raise NotImplementedError()\n"
OLD, NEW = 1_700_000_000, 1_800_000_000  # modification times: NEW is the newer


def _notebook(path: Path, code: str, *, declares: str | None = None, mtime: int = OLD) -> Path:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    if declares is not None:
        notebook.metadata["autograder"] = {"assignment": declares}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(notebook))
    os.utime(path, (mtime, mtime))
    return path


def _autograder(*args: object, timeout: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "--config", str(REPO / "grading.toml"),
                           *map(str, args)], cwd=REPO, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One batch: an nbgrader `submitted/` folder and a Gradescope export, each with a student of every case."""
    base = tmp_path_factory.mktemp("choice")
    submitted = base / "submitted"
    kim = submitted / "kim" / ASSIGNMENT
    _notebook(kim / f"{ASSIGNMENT}.ipynb", HONEST)
    frank = submitted / "frank" / ASSIGNMENT  # handed in a text file and a PDF, no notebook
    frank.mkdir(parents=True)
    (frank / "frank.txt").write_text("my answers are in the pdf")
    (frank / "answers.pdf").write_bytes(b"%PDF-1.4\n")
    (frank / "timestamp.txt").write_text("2026-11-24 10:00:00.000000 UTC")  # nbgrader's, not frank's
    (submitted / "gina").mkdir(parents=True)  # an empty folder: a student the layout names all the same
    hana = submitted / "hana" / ASSIGNMENT  # only nbgrader's own timestamp: nothing the student handed in
    hana.mkdir(parents=True)
    (hana / "timestamp.txt").write_text("2026-11-24 10:00:00.000000 UTC")
    lee = submitted / "lee" / ASSIGNMENT  # the metadata beats the expected name and the newest
    _notebook(lee / "my_solution.ipynb", HONEST, declares=ASSIGNMENT)
    _notebook(lee / f"{ASSIGNMENT}.ipynb", STUB, mtime=NEW)
    mia = submitted / "mia" / ASSIGNMENT  # no metadata: the expected name beats the newest
    _notebook(mia / f"{ASSIGNMENT}.ipynb", HONEST)
    _notebook(mia / "draft.ipynb", STUB, mtime=NEW)
    export = base / "export"  # Gradescope: one submission holds two assignments' notebooks, another a PDF alone
    _notebook(export / "submission_1" / f"{ASSIGNMENT} (1).ipynb", STUB)
    _notebook(export / "submission_1" / "02_where_final.ipynb", HONEST, mtime=NEW)  # neither is named 02_where.ipynb
    other = (REPO / "solutions" / "01_immutable_updates" / "01_immutable_updates.ipynb").read_text()
    (export / "submission_1" / "01_immutable_updates.ipynb").write_text(other)
    (export / "submission_3").mkdir(parents=True)  # an empty Gradescope submission
    (export / "submission_2").mkdir(parents=True)
    (export / "submission_2" / "hw.pdf").write_bytes(b"%PDF-1.4\n")
    (export / "submission_metadata.yml").write_text(
        "submission_1:\n  :submitters:\n  - :email: ana@example.edu\n"
        "submission_2:\n  :submitters:\n  - :email: bo@example.edu\n"
        "submission_3:\n  :submitters:\n  - :email: cy@example.edu\n")
    out = base / "out"
    completed = _autograder("grade", submitted, export, "--out", out, "--seed", "7")
    rows = []
    if (out / "grades.csv").is_file():
        with open(out / "grades.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
    return completed, out, rows


def _row(rows: list[dict], student: str, assignment: str = ASSIGNMENT) -> dict:
    found = [r for r in rows if r["student"] == student and r["assignment"] == assignment]
    assert len(found) == 1, rows
    return found[0]


def _result(out: Path, row: dict) -> dict:
    return json.loads((out / row["submission"] / "results.json").read_text())


def test_a_student_with_no_notebook_gets_a_zero_row_that_says_what_was_found(graded):
    completed, out, rows = graded
    assert completed.returncode == 0, completed.stderr[-3000:]
    # nbgrader's folder names frank's assignment (its checks are listed at 0); nothing names bo's
    frank = ["frank/02_where/answers.pdf", "frank/02_where/frank.txt"]
    for student, assignment, found in (("frank", ASSIGNMENT, frank), ("bo@example.edu", "", ["submission_2/hw.pdf"])):
        row = _row(rows, student, assignment)
        assert float(row["score"]) == 0 and float(row["max_score"]) == (FULL if assignment else 0), row
        result = _result(out, row)
        assert f"No notebook handed in: found {', '.join(found)}." in result["output"]
        assert result["extra_data"]["problem"] == "no_notebook"
        assert f"{row['submission']} (" in completed.stdout.split("Need a look")[-1]
    assert f"frank__02_where ({ASSIGNMENT}): no notebook handed in" in completed.stdout
    assert "timestamp.txt" not in _result(out, _row(rows, "frank"))["output"]  # nbgrader's own file


def test_a_student_whose_folder_is_empty_gets_a_zero_row_that_says_so(graded):
    completed, out, rows = graded
    for student, assignment, folder in (("gina", "", "gina/"), ("hana", ASSIGNMENT, "hana/02_where/"),
                                        ("cy@example.edu", "", "submission_3/")):
        row = _row(rows, student, assignment)
        assert float(row["score"]) == 0, row
        result = _result(out, row)
        assert f"No notebook handed in: the folder `{folder}` is empty." in result["output"], result["output"]
        assert result["extra_data"]["problem"] == "no_notebook"
        assert f"{row['submission']} (" in completed.stdout.split("Need a look")[-1]


def test_one_file_per_student_and_assignment_by_the_documented_rule(graded):
    _, out, rows = graded
    assert sorted(r["student"] for r in rows) == sorted(
        ["kim", "frank", "lee", "mia", "ana@example.edu", "ana@example.edu", "bo@example.edu", "gina", "hana",
         "cy@example.edu"]), rows
    chosen = {"lee": "my_solution.ipynb", "mia": f"{ASSIGNMENT}.ipynb", "ana@example.edu": "02_where_final.ipynb"}
    for student, name in chosen.items():
        row = _row(rows, student)
        assert Path(row["path"]).name == name and float(row["score"]) == FULL, row
    both = _row(rows, "ana@example.edu", "01_immutable_updates")  # a second assignment: graded too
    assert Path(both["path"]).name == "01_immutable_updates.ipynb" and float(both["score"]) > 0, both


def test_the_files_not_graded_are_named_to_the_student_and_the_instructor(graded):
    completed, out, rows = graded
    for student, graded_file, ignored in (("lee", "lee/02_where/my_solution.ipynb", "lee/02_where/02_where.ipynb"),
                                          ("mia", "mia/02_where/02_where.ipynb", "mia/02_where/draft.ipynb"),
                                          ("ana@example.edu", "submission_1/02_where_final.ipynb",
                                           "submission_1/02_where (1).ipynb")):
        row = _row(rows, student)
        result = _result(out, row)
        assert f"Graded {graded_file}; not graded: {ignored}." in result["output"], result["output"]
        assert result["extra_data"]["ignored_files"] == [ignored]
        assert f"{row['submission']} ({ASSIGNMENT}): files not graded (one per assignment is): {ignored}" \
            in completed.stdout, completed.stdout
    assert "not graded" not in _result(out, _row(rows, "kim"))["output"]
    assert "not graded" not in _result(out, _row(rows, "ana@example.edu", "01_immutable_updates"))["output"]


@pytest.mark.parametrize("case", ["missing", "empty", "only_text"])
def test_a_path_with_nothing_to_grade_is_an_error_and_nothing_is_written(tmp_path, case):
    path = tmp_path / "submited"  # a typo of submitted/
    if case != "missing":
        path.mkdir()
    if case == "only_text":  # a flat folder names no students: a text file there is nothing to grade
        (path / "notes.txt").write_text("")
    out = tmp_path / "out"
    completed = _autograder("grade", path, "--out", out, "--seed", "1", timeout=600)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert completed.stderr.count("\n") == 1 and str(path) in completed.stderr, completed.stderr
    assert ("does not exist" if case == "missing" else "holds no notebook") in completed.stderr
    assert not out.exists() and completed.stdout == ""


def test_an_unknown_assignment_is_refused_with_the_closest_name(tmp_path):
    notebook = REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    out = tmp_path / "out"
    for args in (("grade", notebook, "--out", out), ("check", notebook)):
        completed = _autograder(*args, "--assignment", "02_wher", timeout=600)
        assert completed.returncode == 2, completed.stdout + completed.stderr
        assert "No assignment is named `02_wher`. Did you mean `02_where`?" in completed.stderr, completed.stderr
        assert completed.stderr.count("\n") == 1 and completed.stdout == ""
    assert not out.exists()


def test_an_unknown_exercise_is_refused_among_its_assignments_functions_only():
    notebook = REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    completed = _autograder("check", notebook, "--exercise", "sellu", timeout=600)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert completed.stderr.strip() == ("autograder: 02_where has no exercise named `sellu`. Did you mean `selu`? "
                                        "Known: sum_of_positive_numbers, selu, masked_mean, safe_log.")


def test_check_of_a_file_that_does_not_exist_says_so(tmp_path):
    completed = _autograder("check", tmp_path / "02_where.ipynb", timeout=600)
    assert completed.returncode == 2
    assert "does not exist" in completed.stderr and "could not be read" not in completed.stdout + completed.stderr


def test_gradescope_grades_one_notebook_by_the_rule_and_tells_the_student_which_were_not(tmp_path):
    folder = tmp_path / "submission"
    _notebook(folder / f"{ASSIGNMENT} (1).ipynb", STUB, mtime=NEW)
    _notebook(folder / "my_solution.ipynb", HONEST, declares=ASSIGNMENT)
    graded = gradescope_run.find_submission(folder, ASSIGNMENT)
    assert graded == folder / "my_solution.ipynb"  # its metadata names the assignment: before the newest
    data = gradescope_run._with_ignored_files({"output": "Total: 17 / 17"}, folder, graded, ASSIGNMENT)
    assert data["output"].startswith("Total: 17 / 17\nGraded my_solution.ipynb; not graded: 02_where (1).ipynb.")
    assert data["extra_data"]["ignored_files"] == [f"{ASSIGNMENT} (1).ipynb"]


def test_an_exercise_names_its_assignment_when_the_file_does_not(tmp_path):
    """`check scratch.py --exercise safe_log`: the file's name and content say no assignment, the exercise does."""
    scratch = tmp_path / "scratch.py"
    solution = nbformat.read(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    scratch.write_text("\n\n".join(cell.source for cell in solution.cells if cell.cell_type == "code"
                                    and ("def safe_log" in cell.source or cell.source.startswith("import"))))
    completed = _autograder("check", scratch, "--exercise", "safe_log", "--seed", "3", timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "--assignment" not in completed.stderr and "safe_log" in completed.stdout
