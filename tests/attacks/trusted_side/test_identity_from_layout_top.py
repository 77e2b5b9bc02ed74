"""The student is decided by the top of the layout the instructor gave, never by folders inside it.

One batch, three roots, each a layout with an honest classmate or two and
one student who hid, inside their own folder, a file laid out as if it were
someone else's submission:

- a GitHub Classroom clone: `hw01-mallory/alice/01_immutable_updates/...`
  beside honest `hw01-alice/` and `hw01-bob/`;
- a Gradescope export: `submission_1001/` (dave's, by its metadata) holding
  `submitted/carol/01_immutable_updates/...`, beside erin's `submission_1002/`;
- an nbgrader `submitted/` folder: `nina/01_immutable_updates/alice/01_immutable_updates/...`
  beside kim's honest folder.

Each hidden file is graded as the student whose folder holds it, with a note
that puts it under "needs a look"; nobody gets two rows, nobody who handed in
nothing gets one, and the honest classmates keep full marks.
"""

from __future__ import annotations

import collections
import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

ASSIGNMENT = "01_immutable_updates"
SOLUTION = REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
# The students of each root, exactly: one row each.
EXPECTED = {
    "classroom": {"mallory", "alice", "bob"},
    "gradescope": {"dave@example.edu", "erin@example.edu"},
    "nbgrader": {"nina", "kim"},
}
HOSTILE = {"classroom": "mallory", "gradescope": "dave@example.edu", "nbgrader": "nina"}
# Each hidden file, under its root; the part of its path that imitates another layout (the note names it).
HIDDEN = {"classroom": f"hw01-mallory/alice/{ASSIGNMENT}/{NOTEBOOK}",
          "gradescope": f"submission_1001/submitted/carol/{ASSIGNMENT}/{NOTEBOOK}",
          "nbgrader": f"nina/{ASSIGNMENT}/alice/{ASSIGNMENT}/{NOTEBOOK}"}
IMITATION = {"classroom": f"alice/{ASSIGNMENT}", "gradescope": "submitted/carol", "nbgrader": f"alice/{ASSIGNMENT}"}


def _copy_solution(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOLUTION, path)


def _classroom(root: Path) -> None:
    for user in ("mallory", "alice", "bob"):
        (root / f"hw01-{user}" / ".git").mkdir(parents=True)
        (root / f"hw01-{user}" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    _copy_solution(root / "hw01-alice" / NOTEBOOK)
    _copy_solution(root / "hw01-bob" / NOTEBOOK)
    _copy_solution(root / HIDDEN["classroom"])


def _gradescope(root: Path) -> None:
    _copy_solution(root / HIDDEN["gradescope"])
    _copy_solution(root / "submission_1002" / NOTEBOOK)
    (root / "submission_metadata.yml").write_text(
        "submission_1001:\n  :submitters:\n  - :name: Dave\n    :email: dave@example.edu\n"
        "submission_1002:\n  :submitters:\n  - :name: Erin\n    :email: erin@example.edu\n")


def _nbgrader(root: Path) -> None:
    _copy_solution(root / HIDDEN["nbgrader"])
    _copy_solution(root / "kim" / ASSIGNMENT / NOTEBOOK)
    (root / "kim" / ASSIGNMENT / "timestamp.txt").write_text("2026-11-24 10:00:00.000000 UTC")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("layouts")
    roots = {"classroom": base / "classroom", "gradescope": base / "export", "nbgrader": base / "submitted"}
    _classroom(roots["classroom"])
    _gradescope(roots["gradescope"])
    _nbgrader(roots["nbgrader"])
    out = base / "out"
    completed = subprocess.run([sys.executable, "-m", "autograder", "grade", *map(str, roots.values()),
                                "--out", str(out), "--seed", "11"],
                               cwd=REPO, capture_output=True, text=True, timeout=1800)
    rows = []
    if (out / "grades.csv").is_file():
        with open(out / "grades.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
    return completed, out, roots, rows


def _rows_of(graded, layout: str) -> list[dict]:
    _, _, roots, rows = graded
    return [row for row in rows if row["path"].startswith(roots[layout].name + "/")]  # grades.csv: from the root


def _need_a_look_lines(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Need a look")), len(lines))
    return [line.strip() for line in lines[start + 1:] if line.startswith("  ")]


def test_the_batch_finishes_with_a_row_for_every_student_who_handed_something_in(graded):
    completed, _, _, rows = graded
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert sorted(row["student"] for row in rows) == sorted(set().union(*EXPECTED.values())), rows


@pytest.mark.parametrize("layout", sorted(EXPECTED))
def test_one_row_per_student_and_none_for_anyone_else(graded, layout):
    students = collections.Counter(row["student"] for row in _rows_of(graded, layout))
    assert students == collections.Counter(EXPECTED[layout]), students


@pytest.mark.parametrize("layout", sorted(EXPECTED))
def test_honest_classmates_keep_full_marks(graded, layout):
    _, out, _, _ = graded
    honest = [row for row in _rows_of(graded, layout) if row["student"] != HOSTILE[layout]]
    assert len(honest) == len(EXPECTED[layout]) - 1, honest
    for row in honest:
        assert float(row["score"]) == float(row["max_score"]) > 0, row
        result = json.loads((out / row["submission"] / "results.json").read_text())
        assert result["score"] == result["extra_data"]["max_score"] > 0, result["output"]


@pytest.mark.parametrize("layout", sorted(EXPECTED))
def test_the_hidden_file_is_its_folders_students_and_needs_a_look(graded, layout):
    completed, out, roots, _ = graded
    [row] = [row for row in _rows_of(graded, layout) if row["path"] == f"{roots[layout].name}/{HIDDEN[layout]}"]
    assert row["student"] == HOSTILE[layout], row
    result = json.loads((out / row["submission"] / "results.json").read_text())
    assert result["extra_data"]["student"] == HOSTILE[layout]
    assert IMITATION[layout] in result["output"], result["output"]  # the note names what it imitates
    assert any(line.startswith(f"{row['submission']} (") for line in _need_a_look_lines(completed.stdout)), (
        completed.stdout[-3000:])
