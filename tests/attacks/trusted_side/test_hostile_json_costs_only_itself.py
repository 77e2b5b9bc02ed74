"""A notebook the trusted side cannot parse cheaply costs only its own grade.

One batch: two honest notebooks, one whose JSON is nested 100,000 levels deep
(Python's json raises RecursionError on it) and one far larger than any
notebook the grader reads. The batch parent and its workers read notebooks
(the assignment guess, the cells) and read results back: none of that may
end the batch. The batch exits 0 with a grades.csv row for each of the four;
the hostile ones score 0 with a note that says why, listed under "needs a
look", and the honest ones keep full marks.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys

import pytest
from conftest import REPO

DEPTH = 100_000
HUGE_BYTES = 40 << 20  # above the 32 MiB a notebook may have
HONEST = {"alice_01_immutable_updates": "01_immutable_updates", "bob_02_where": "02_where"}
HOSTILE = {"deep_01_immutable_updates": "nested", "huge_02_where": "larger"}  # the word each note must hold


def _deep_notebook() -> str:
    return ('{"cells": ' + "[" * DEPTH + "]" * DEPTH
            + ', "metadata": {"autograder": {"assignment": "01_immutable_updates"}}, "nbformat": 4, '
            '"nbformat_minor": 5}')


def _huge_notebook() -> str:
    cell = {"cell_type": "markdown", "id": "big", "metadata": {}, "source": "a" * HUGE_BYTES}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    batch = tmp_path_factory.mktemp("hostile_json")
    for name, assignment in HONEST.items():
        shutil.copy(REPO / "solutions" / assignment / f"{assignment}.ipynb", batch / f"{name}.ipynb")
    (batch / "deep_01_immutable_updates.ipynb").write_text(_deep_notebook())
    (batch / "huge_02_where.ipynb").write_text(_huge_notebook())
    out = tmp_path_factory.mktemp("hostile_json_out")
    completed = subprocess.run([sys.executable, "-m", "autograder", "grade", str(batch), "--out", str(out),
                                "--seed", "11"],
                               cwd=REPO, capture_output=True, text=True, timeout=1800)
    rows = {}
    if (out / "grades.csv").is_file():
        with open(out / "grades.csv", newline="") as handle:
            rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return completed, out, rows


def _need_a_look_lines(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Need a look")), len(lines))
    return [line.strip() for line in lines[start + 1:] if line.startswith("  ")]


def test_the_batch_finishes_with_a_row_for_each_submission(graded):
    completed, _, rows = graded
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert set(rows) == set(HONEST) | set(HOSTILE), rows


@pytest.mark.parametrize("name", sorted(HONEST))
def test_honest_classmates_keep_full_marks(graded, name):
    _, out, rows = graded
    assert float(rows[name]["score"]) == float(rows[name]["max_score"]) > 0, rows[name]
    result = json.loads((out / name / "results.json").read_text())
    assert result["score"] == result["extra_data"]["max_score"] > 0, result["output"]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_hostile_notebook_scores_zero_with_a_note_and_needs_a_look(graded, name):
    completed, out, rows = graded
    assert float(rows[name]["score"]) == 0, rows[name]
    result = json.loads((out / name / "results.json").read_text())
    assert result["score"] == 0
    assert HOSTILE[name] in result["output"], result["output"]  # says why, not just "grading failed"
    assert "Traceback" not in result["output"] and "RecursionError" not in result["output"], result["output"]
    assert any(line.startswith(f"{name} (") for line in _need_a_look_lines(completed.stdout)), completed.stdout
