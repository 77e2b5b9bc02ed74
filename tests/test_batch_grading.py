"""`autograder grade` on a mixed batch: a result for every submission, and the run finishes normally."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from conftest import REPO, course_config, run_cli

from autograder.catalog import messages

SOLUTION_01 = REPO / "solutions" / "01_immutable_updates" / "01_immutable_updates.ipynb"
STUB_01 = REPO / "assignments" / "01_immutable_updates" / "01_immutable_updates.ipynb"

PY_SOLUTION_01 = '''
import jax.numpy as jnp

def set_element(x, index, value):
    return x.at[index].set(value)

def set_diagonal(m, values):
    i = jnp.arange(m.shape[0])
    return m.at[i, i].set(values)

def histogram(indices, num_bins):
    return jnp.zeros(num_bins, jnp.int32).at[indices].add(1)

def swap_rows(m, i, j):
    return m.at[jnp.array([i, j])].set(m[jnp.array([j, i])])
'''


@pytest.fixture(scope="module")
def fast_config(tmp_path_factory):
    """grading.toml with short time limits, so the endless loop ends quickly."""
    text = (REPO / "grading.toml").read_text()
    text = text.replace("submission_seconds = 240", "submission_seconds = 90")
    text = text.replace("load_seconds = 60", "load_seconds = 8").replace("call_seconds = 30", "call_seconds = 8")
    return course_config(tmp_path_factory.mktemp("config"), text)


@pytest.fixture(scope="module")
def graded_batch(tmp_path_factory, fast_config):
    batch = tmp_path_factory.mktemp("batch")
    shutil.copy(SOLUTION_01, batch / "alice_01_immutable_updates.ipynb")
    shutil.copy(STUB_01, batch / "bob_01_immutable_updates.ipynb")
    (batch / "carol_01_immutable_updates.ipynb").write_text('{"cells": [ this is not json')
    (batch / "dave_01_immutable_updates.py").write_text("def set_element(x, index, value)\n    return x\n")
    (batch / "erin_01_immutable_updates.py").write_text("while True:\n    pass\n")
    (batch / "frank.py").write_text(PY_SOLUTION_01)
    out = tmp_path_factory.mktemp("out")
    # A path that does not exist is refused before grading (tests/test_file_choice.py), so none is given here.
    completed = run_cli("--config", str(fast_config), "grade", str(batch), "--out", str(out),
                        "--seed", "7", "--assignment", "01_immutable_updates")
    return completed, out, batch


def _result(out, name):
    return json.loads((out / name / "results.json").read_text())


def test_batch_exits_normally(graded_batch):
    completed, _, _ = graded_batch
    assert completed.returncode == 0, completed.stderr
    assert "No solutions/ folder" not in completed.stderr, "its grading.toml is beside the solutions"


def test_every_submission_has_a_result(graded_batch):
    _, out, _ = graded_batch
    names = {"alice_01_immutable_updates", "bob_01_immutable_updates", "carol_01_immutable_updates",
             "dave_01_immutable_updates", "erin_01_immutable_updates", "frank"}
    assert {p.parent.name for p in out.glob("*/results.json")} == names
    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert {r["submission"] for r in rows} == names


def test_full_solution_notebook_gets_full_marks(graded_batch):
    result = _result(graded_batch[1], "alice_01_immutable_updates")
    assert result["score"] == result["extra_data"]["max_score"] == 18
    assert all(t["status"] == "passed" for t in result["tests"])


def test_py_file_graded_with_assignment_flag(graded_batch):
    result = _result(graded_batch[1], "frank")
    assert result["score"] == 18


def test_test_names_start_with_the_function_name(graded_batch):
    result = _result(graded_batch[1], "alice_01_immutable_updates")
    assert "histogram: duplicates counted" in {t["name"] for t in result["tests"]}
    for test in result["tests"]:
        # Gradescope's test fields, and extra_data: the check's stable id (the name is shown in the student's language)
        assert set(test) == {"name", "score", "max_score", "status", "output", "extra_data"}
        assert test["extra_data"]["check"].split(": ")[0] == test["name"].split(": ")[0]


@pytest.mark.parametrize("name, feedback", [
    ("bob_01_immutable_updates", "not implemented yet"),
    ("carol_01_immutable_updates", "not a valid notebook"),
    ("dave_01_immutable_updates", "syntax error"),
    ("erin_01_immutable_updates", "s of CPU time"),
])
def test_broken_submissions_score_zero_with_a_clear_message(graded_batch, name, feedback):
    result = _result(graded_batch[1], name)
    assert result["score"] == 0
    assert result["tests"], "every check of the assignment is listed, each at zero"
    # Said once per function: its later checks point up to it.
    said_above = messages.text("call.said_above")
    assert all(feedback in t["output"] or said_above in t["output"] for t in result["tests"]), result["tests"]
    first_of_each = {t["name"].split(":")[0]: t for t in reversed(result["tests"])}
    assert all(feedback in t["output"] for t in first_of_each.values()), result["tests"][0]["output"]


def test_resume_skips_finished_submissions(graded_batch, fast_config):
    _, out, batch = graded_batch
    results = sorted(out.glob("*/results.json"))
    before = {p: p.stat().st_mtime_ns for p in results}
    (batch / "zoe_01_immutable_updates.py").write_text(PY_SOLUTION_01)
    completed = run_cli("--config", str(fast_config), "grade", str(batch), "--out", str(out),
                        "--seed", "7", "--assignment", "01_immutable_updates", "--resume")
    assert completed.returncode == 0, completed.stderr
    assert _result(out, "zoe_01_immutable_updates")["score"] == 18
    assert {p: p.stat().st_mtime_ns for p in results} == before


def test_a_config_without_solutions_beside_it_says_grading_is_slower(tmp_path):
    # No store of shared programs can be built: the instructor hears why grading is slower (grades are the same).
    config = tmp_path / "alone" / "grading.toml"
    config.parent.mkdir()
    config.write_text((REPO / "grading.toml").read_text())
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / "ana_01_immutable_updates.py").write_text(PY_SOLUTION_01)
    completed = run_cli("--config", str(config), "grade", str(batch), "--out", str(tmp_path / "out"), "--seed", "7")
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert f"No solutions/ folder beside {config}" in completed.stderr, completed.stderr
