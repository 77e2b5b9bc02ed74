"""Grading a real class: who each submission belongs to, safe resume, progress, and mismatched assignments."""

from __future__ import annotations

import csv
import json
import os
import pty
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, run_cli

from autograder.grade.batch import discover

ASSIGNMENT = "02_where"
FULL = 17
HONEST = """import jax.numpy as jnp

def sum_of_positive_numbers(x):
    return jnp.where(x > 0, x, 0).sum()

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))

def masked_mean(x, mask):
    return jnp.where(mask, x, 0.0).sum() / jnp.maximum(mask.sum(), 1)

def safe_log(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.where(x > 0, jnp.log(safe), 0.0)
"""
STUB = "def selu(x, alpha=1.67, lmbda=1.05):\n    raise NotImplementedError()\n"
KNOWN = ["01_immutable_updates", ASSIGNMENT]


def _nbgrader_submission(root, student, text, assignment=ASSIGNMENT):
    folder = root / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{assignment}.py").write_text(text)
    (folder / "timestamp.txt").write_text("2026-11-24 10:00:00.000000 UTC")
    return folder


def _grade(*args, env=None):
    completed = subprocess.run([sys.executable, "-m", "autograder", "--config", str(REPO / "grading.toml"), "grade",
                                *map(str, args), "--seed", "7"],
                               capture_output=True, text=True, timeout=900, env=env)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return completed


def _rows(out):
    with open(out / "grades.csv", newline="") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}


# --- identity -----------------------------------------------------------------------------------

def test_students_come_from_the_nbgrader_layout(tmp_path):
    for student in ("kim", "lee"):
        _nbgrader_submission(tmp_path, student, HONEST)
    items = discover([tmp_path / "submitted"], KNOWN)
    assert {(i.student, i.name) for i in items} == {("kim", "kim__02_where"), ("lee", "lee__02_where")}


def test_names_are_stable_when_students_are_added_or_removed(tmp_path):
    for student in ("kim", "lee", "park"):
        _nbgrader_submission(tmp_path, student, HONEST)
    before = {i.path: i.name for i in discover([tmp_path / "submitted"], KNOWN)}
    _nbgrader_submission(tmp_path, "ahn", HONEST)  # sorts first
    shutil.rmtree(tmp_path / "submitted" / "lee")
    after = {i.path: i.name for i in discover([tmp_path / "submitted"], KNOWN)}
    assert all(after[path] == name for path, name in before.items() if path in after)


def test_a_folder_of_examples_sorted_by_assignment_is_not_mistaken_for_students(tmp_path):
    folder = tmp_path / "examples" / ASSIGNMENT
    folder.mkdir(parents=True)
    (folder / f"perfect_{ASSIGNMENT}.py").write_text(HONEST)
    [item] = discover([tmp_path / "examples"], KNOWN)
    assert (item.student, item.name, item.layout) == (f"perfect_{ASSIGNMENT}", f"perfect_{ASSIGNMENT}", "file")


def test_gradescope_export_names_each_submitter(tmp_path):
    for number in ("1001", "1002"):
        (tmp_path / f"submission_{number}").mkdir()
        (tmp_path / f"submission_{number}" / f"{ASSIGNMENT}.py").write_text(HONEST)
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_1001:\n  :submitters:\n  - :name: Kim Minji\n    :sid: '2026001'\n    :email: minji@example.edu\n"
        "submission_1002:\n  :submitters:\n  - :name: Lee Jun\n    :email: jun@example.edu\n")
    items = discover([tmp_path], KNOWN)
    assert {(i.student, i.layout) for i in items} == {("minji@example.edu", "gradescope"),
                                                     ("jun@example.edu", "gradescope")}


def test_github_classroom_repositories_name_their_users(tmp_path):
    for user in ("octocat", "hubot"):
        repository = tmp_path / f"jax-where-{user}"
        (repository / ".git").mkdir(parents=True)
        (repository / f"{ASSIGNMENT}.py").write_text(HONEST)
    items = discover([tmp_path], KNOWN)
    assert {(i.student, i.name) for i in items} == {("octocat", "octocat"), ("hubot", "hubot")}


def test_grades_csv_has_a_student_column_and_one_row_per_student(tmp_path):
    _nbgrader_submission(tmp_path, "kim", HONEST)
    _nbgrader_submission(tmp_path, "lee", STUB)
    _grade(tmp_path / "submitted", "--out", tmp_path / "out")
    rows = _rows(tmp_path / "out")
    assert set(rows) == {"kim", "lee"}
    assert float(rows["kim"]["score"]) == FULL and float(rows["lee"]["score"]) == 0
    result = json.loads((tmp_path / "out" / "kim__02_where" / "results.json").read_text())
    assert result["extra_data"]["student"] == "kim"


# --- safe resume --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def resumed_class(tmp_path_factory):
    """Graded once; then one student replaces their notebook and one is added, and it is resumed."""
    root = tmp_path_factory.mktemp("class")
    _nbgrader_submission(root, "kim", HONEST)
    _nbgrader_submission(root, "lee", STUB)
    _nbgrader_submission(root, "park", HONEST)
    out = root / "out"
    first = _grade(root / "submitted", "--out", out)
    _nbgrader_submission(root, "lee", HONEST)  # replaced
    _nbgrader_submission(root, "ahn", STUB)  # added
    shutil.rmtree(root / "submitted" / "park")  # removed
    resumed = _grade(root / "submitted", "--out", out, "--resume")
    return root, out, first, resumed


def test_resume_reuses_only_the_same_student_content_and_settings(resumed_class):
    root, out, first, resumed = resumed_class
    assert "reused 1 finished result" in resumed.stderr, resumed.stderr
    assert "regrading lee__02_where: the file changed since it was graded" in resumed.stderr
    rows = _rows(out)
    assert set(rows) == {"kim", "lee", "ahn"}, "a removed student leaves grades.csv; nobody else is renamed"
    assert {p.parent.name for p in out.glob("*/results.json")} >= {"kim__02_where", "lee__02_where", "ahn__02_where"}
    assert float(rows["lee"]["score"]) == FULL, "a replaced notebook must not keep its old score"
    assert float(rows["ahn"]["score"]) == 0


def test_resume_regrades_when_the_seed_changes(resumed_class):
    root, out, *_ = resumed_class
    completed = subprocess.run([sys.executable, "-m", "autograder", "grade", str(root / "submitted"), "--out", str(out),
                                "--seed", "8", "--resume"], cwd=REPO, capture_output=True, text=True,
                               timeout=900)
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "reused 0 finished result" in completed.stderr
    assert "the grading settings changed (seed)" in completed.stderr


def test_resume_never_hands_a_result_to_another_student(tmp_path):
    """A flat file whose name equals a graded nbgrader student's results directory is a different student."""
    _nbgrader_submission(tmp_path, "kim", HONEST)
    out = tmp_path / "out"
    _grade(tmp_path / "submitted", "--out", out)
    impostor = tmp_path / "flat"
    impostor.mkdir()
    (impostor / "kim__02_where.py").write_text(STUB)
    completed = _grade(impostor, "--out", out, "--resume", "--assignment", ASSIGNMENT)
    assert "its result belongs to kim" in completed.stderr, completed.stderr
    result = json.loads((out / "kim__02_where" / "results.json").read_text())
    assert result["score"] == 0 and result["extra_data"]["student"] == "kim__02_where"


# --- progress and summary -----------------------------------------------------------------------

def test_without_a_terminal_each_submission_gets_a_line_and_the_summary_lists_what_needs_a_look(tmp_path):
    _nbgrader_submission(tmp_path, "kim", HONEST)
    broken = _nbgrader_submission(tmp_path, "lee", HONEST)
    (broken / f"{ASSIGNMENT}.py").unlink()
    (broken / f"{ASSIGNMENT}.ipynb").write_text("{ not a notebook")
    completed = _grade(tmp_path / "submitted", "--out", tmp_path / "out")
    assert f"kim__02_where: {FULL} / {FULL}" in completed.stderr
    assert "lee__02_where: 0 / 17" in completed.stderr and "not a valid notebook" in completed.stderr
    assert "Graded 2 submission(s)" in completed.stdout and "Mean 50%" in completed.stdout
    assert "Need a look (1)" in completed.stdout and "lee__02_where" in completed.stdout.split("Need a look")[1]


def test_on_a_terminal_a_progress_bar_counts_the_submissions(tmp_path):
    _nbgrader_submission(tmp_path, "kim", HONEST)
    _nbgrader_submission(tmp_path, "lee", STUB)
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(tmp_path / "submitted"),
                                "--out", str(tmp_path / "out"), "--seed", "7"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    process.wait(timeout=900)
    os.close(leader)
    text = shown.decode("utf-8", "replace")
    assert process.returncode == 0, text[-2000:]
    assert "Grading" in text and "2/2" in text and "submission/s" in text, text[-2000:]
    assert "kim__02_where: 17 / 17" in text


# --- assignments that disagree ------------------------------------------------------------------

def test_a_notebook_graded_as_another_assignment_says_so(tmp_path):
    notebook = tmp_path / "kim_01_immutable_updates.ipynb"
    shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", notebook)
    out = tmp_path / "out"
    completed = run_cli("grade", str(notebook), "--out", str(out), "--jobs", "1", "--seed", "7",
                        "--assignment", "01_immutable_updates")
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads((out / notebook.stem / "results.json").read_text())
    note = result["extra_data"]["assignment_mismatch"]
    assert "Graded as 01_immutable_updates (--assignment says so)" in note
    assert "the notebook's metadata says 02_where" in note
    assert note in result["output"] and note in completed.stderr
    assert "Need a look (1)" in completed.stdout and notebook.stem in completed.stdout.split("Need a look")[1]
