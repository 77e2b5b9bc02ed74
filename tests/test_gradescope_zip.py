"""Gradescope's autograder zip: what it holds, and its run_autograder on a solved and an unsolved notebook.

setup.sh installs system packages, so it is only checked (bash -n, the
pins); run_autograder runs for real against an unpacked zip, with
AUTOGRADER_GRADESCOPE_ROOT pointing at a temporary /autograder and
AUTOGRADER_GRADESCOPE_PYTHON at this Python (which has the kit installed).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from autograder import grading_config
from autograder.catalog import messages
from autograder.integrations import gradescope_run, gradescope_zip

REPO = Path(__file__).resolve().parent.parent
ASSIGNMENT = "02_where"
# What Gradescope's specification documents for results.json (top level, and per test).
GRADESCOPE_TOP_LEVEL = {"score", "execution_time", "output", "output_format", "test_output_format",
                        "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
GRADESCOPE_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                   "tags", "visibility", "extra_data"}


def _sandbox() -> str:
    from autograder.sandbox import os_isolation

    try:
        os_isolation.check_available(sys.executable)
    except os_isolation.IsolationUnavailable:
        return "process"
    return "os"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    config = grading_config.load()
    path = tmp_path_factory.mktemp("gradescope") / "autograder.zip"
    made = gradescope_zip.build(ASSIGNMENT, path, config, sandbox=_sandbox())
    return made


def _unpack(built, tmp_path: Path) -> Path:
    """The zip as Gradescope lays it out: /autograder/source/<zip>, /autograder/run_autograder."""
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(built.path) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # zipfile does not restore permissions
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    return root


def _run_autograder(root: Path, python: str = sys.executable, log: list[str] | None = None) -> dict:
    """Run the image's run_autograder; `log` gets what course staff read (its stdout and stderr)."""
    environment = dict(os.environ, AUTOGRADER_GRADESCOPE_ROOT=str(root), AUTOGRADER_GRADESCOPE_PYTHON=python)
    completed = subprocess.run([str(root / "run_autograder")], cwd=root, env=environment, capture_output=True,
                               text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr
    if log is not None:
        log.append(completed.stdout + completed.stderr)
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def _assert_gradescope_shape(data: dict, max_score: float) -> None:
    assert set(data) <= GRADESCOPE_TOP_LEVEL, set(data) - GRADESCOPE_TOP_LEVEL
    assert isinstance(data["score"], (int, float)) and isinstance(data["output"], str)
    assert data["visibility"] == "visible" and data["stdout_visibility"] == "hidden"
    assert isinstance(data["execution_time"], int)
    assert sum(t["max_score"] for t in data["tests"]) == max_score
    for test in data["tests"]:
        assert set(test) <= GRADESCOPE_TEST, set(test) - GRADESCOPE_TEST
        assert test["status"] in ("passed", "failed") and isinstance(test["name"], str)
        assert isinstance(test["output"], str)


def test_the_zip_holds_the_scripts_the_kit_and_nothing_for_students(built):
    with zipfile.ZipFile(built.path) as archive:
        names = set(archive.namelist())
        modes = {info.filename: (info.external_attr >> 16) for info in archive.infolist()}
        assert names == {"setup.sh", "run_autograder", "grading.toml", built.wheel,
                         f"assignments/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"}
        assert archive.read("grading.toml") == (REPO / "grading.toml").read_bytes()
        with archive.open(built.wheel) as handle, zipfile.ZipFile(handle) as wheel:
            contents = wheel.namelist()
    for script in ("setup.sh", "run_autograder"):
        assert stat.S_ISREG(modes[script]) and modes[script] & 0o111
    assert f"autograder/suites/test_{ASSIGNMENT}.py" in contents and "autograder/suites/pytest.ini" in contents
    assert "autograder/integrations/gradescope_zip.py" in contents
    assert "autograder/integrations/github_classroom/classroom.yml" in contents  # package data
    assert not [n for n in contents if n.startswith(("solutions/", "tests/", "examples/")) or "__pycache__" in n]
    assert built.max_score == grading_config.load().assignment_total(ASSIGNMENT)


def test_setup_sh_is_valid_bash_and_pins_every_dependency(built, tmp_path):
    with zipfile.ZipFile(built.path) as archive:
        setup = archive.read("setup.sh").decode()
        run = archive.read("run_autograder").decode()
    for name, text in (("setup.sh", setup), ("run_autograder", run)):
        script = tmp_path / name
        script.write_text(text)
        completed = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert completed.returncode == 0, (name, completed.stderr)
        assert text.startswith("#!/usr/bin/env bash\n")
    pins = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for pin in pins:
        assert pin.split(";")[0].strip() in setup.splitlines(), pin
    assert "bubblewrap" in setup and "python3.11" in setup and built.wheel in setup
    assert set(built.pins) <= set(setup.splitlines())
    assert any(p.startswith("numpy==") for p in built.pins) and any(p.startswith("ml-dtypes==") for p in built.pins)


def test_a_solved_notebook_gets_full_marks(built, tmp_path):
    root = _unpack(built, tmp_path)
    shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", root / "submission" / f"{ASSIGNMENT}.ipynb")
    data = _run_autograder(root)
    _assert_gradescope_shape(data, built.max_score)
    assert data["score"] == built.max_score
    assert all(t["status"] == "passed" and t["score"] == t["max_score"] for t in data["tests"])
    assert data["extra_data"]["assignment"] == ASSIGNMENT and data["extra_data"]["finished"] is True


def test_an_unsolved_notebook_scores_zero_with_feedback(built, tmp_path):
    root = _unpack(built, tmp_path)
    (root / "submission" / "my work").mkdir()  # any name, any folder
    shutil.copy(REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", root / "submission" / "my work" / "hw.ipynb")
    (root / "submission" / "._hw.ipynb").write_bytes(b"\0\5\26\7")  # macOS's resource fork: ignored
    log: list[str] = []
    data = _run_autograder(root, log=log)
    _assert_gradescope_shape(data, built.max_score)
    assert data["score"] == 0
    assert all(t["status"] == "failed" and "not implemented" in t["output"] for t in data["tests"])
    # The student reads the score and what to look at first; staff notes are true of an image without solutions.
    assert data["output"].startswith(f"Score: 0 / {built.max_score:g}. Look at: "), data["output"][:300]
    assert "as a Gradescope image must" in log[0] and "beside solutions/" not in log[0], log[0][-2000:]


def test_no_notebook_scores_zero_and_says_what_to_submit(built, tmp_path):
    root = _unpack(built, tmp_path)
    (root / "submission" / "notes.txt").write_text("forgot the notebook")
    data = _run_autograder(root)
    assert data["score"] == 0 and data["extra_data"]["problem"] == "no_submission"
    assert data["output"] == (f"Score: 0 / {built.max_score:g}.\n"
                              f"Your submission has no notebook: submit your notebook, {ASSIGNMENT}.ipynb.")
    assert sum(t["max_score"] for t in data["tests"]) == built.max_score


def test_a_python_that_cannot_start_still_leaves_a_zero(built, tmp_path):
    root = _unpack(built, tmp_path)
    data = _run_autograder(root, python=str(tmp_path / "no-such-python"))
    assert data["score"] == 0 and data["tests"] == [] and "could not run" in data["output"]
    assert data["visibility"] == "visible"


def test_a_grader_that_fails_gives_a_zero_with_the_reason(built, tmp_path):
    root = _unpack(built, tmp_path)
    (root / "source" / "grading.toml").write_text("not [ toml")
    shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", root / "submission" / f"{ASSIGNMENT}.ipynb")
    log: list[str] = []
    data = _run_autograder(root, log=log)
    assert data["score"] == 0 and data["extra_data"]["problem"] == "grader_error"
    # The student reads that it is not their fault; the reason, which names the image's files, is for staff.
    assert messages.text("gradescope.could_not_grade") in data["output"] and "not valid TOML" not in data["output"]
    assert "not valid TOML" in log[0]


def test_choosing_the_submission(tmp_path):
    find = gradescope_run.find_submission
    folder = tmp_path / "submission"
    assert "no notebook" in find(folder, ASSIGNMENT)
    folder.mkdir()
    (folder / "helper.py").write_text("")
    assert find(folder, ASSIGNMENT) == folder / "helper.py"  # a .py file when there is no notebook
    (folder / "scratch.ipynb").write_text("{}")
    assert find(folder, ASSIGNMENT) == folder / "scratch.ipynb"  # notebooks first
    (folder / f"{ASSIGNMENT}.ipynb").write_text("{}")
    assert find(folder, ASSIGNMENT) == folder / f"{ASSIGNMENT}.ipynb"  # the assignment's name decides
    (folder / f"{ASSIGNMENT}.ipynb").unlink()
    (folder / "other.ipynb").write_text("{}")
    os.utime(folder / "scratch.ipynb", (2_000_000_000, 2_000_000_000))
    assert find(folder, ASSIGNMENT) == folder / "scratch.ipynb"  # neither named nor declared: the newest
    (folder / "other.ipynb").write_text(json.dumps({"metadata": {"autograder": {"assignment": ASSIGNMENT}}}))
    assert find(folder, ASSIGNMENT) == folder / "other.ipynb"  # the metadata names the assignment: first
    for name in ("other.ipynb", "scratch.ipynb"):
        (folder / name).unlink()
    outside = tmp_path / "outside.ipynb"
    outside.write_text("{}")
    os.symlink(outside, folder / "linked.ipynb")  # never a symbolic link
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "x.ipynb").write_text("{}")
    assert find(folder, ASSIGNMENT) == folder / "helper.py"


def test_build_refuses_what_it_cannot_grade(tmp_path):
    config = grading_config.load()
    with pytest.raises(gradescope_zip.BuildError, match="no assignment named"):
        gradescope_zip.build("99_nothing", tmp_path / "x.zip", config)
    with pytest.raises(gradescope_zip.BuildError, match="sandbox must be"):
        gradescope_zip.build(ASSIGNMENT, tmp_path / "x.zip", config, sandbox="none")
    with pytest.raises(gradescope_zip.BuildError, match="visibility must be"):
        gradescope_zip.build(ASSIGNMENT, tmp_path / "x.zip", config, visibility="public")
    assert not (tmp_path / "x.zip").exists()


def test_to_gradescope_keeps_scores_and_adds_display_settings():
    graded = {"score": 3.0, "output": "note", "tests": [{"name": "f: correct", "score": 3.0, "max_score": 3,
                                                         "status": "passed", "output": ""}],
              "extra_data": {"seed": 1}}
    data = gradescope_run.to_gradescope(graded, visibility="after_published", stdout_visibility="visible",
                                        execution_time=12.6)
    assert data["score"] == 3.0 and data["execution_time"] == 13 and data["visibility"] == "after_published"
    assert data["tests"][0]["output_format"] == "text" and data["extra_data"] == {"seed": 1}


def test_to_gradescope_keeps_a_check_not_checked_failed_with_its_outcome():
    graded = {"score": 0.0, "output": "", "extra_data": {}, "tests": [
        {"name": "ema: uses lax.scan", "score": 0.0, "max_score": 1, "status": "failed",
         "output": "Not checked: the values are wrong (see `correct` above); fix them first.",
         "extra_data": {"outcome": "not_checked"}}]}
    test = gradescope_run.to_gradescope(graded)["tests"][0]
    assert test["status"] == "failed"  # Gradescope knows passed and failed only; no points were earned
    assert test["extra_data"] == {"outcome": "not_checked"} and test["output"].startswith("Not checked")
