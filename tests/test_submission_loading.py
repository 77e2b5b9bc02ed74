"""Reading and executing submissions: every kind of broken input becomes a clear message."""

from __future__ import annotations

import json

import nbformat
import pytest
from nbformat import v4

from autograder.child.cell_execution import execute_cells
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.load.submission_source import SubmissionError, guess_assignment, read, resolve_assignment

KNOWN = ["01_immutable_updates", "02_where"]


def _notebook(path, *sources, metadata=None, check_cell=None):
    nb = v4.new_notebook(metadata=metadata or {})
    nb.cells = [v4.new_code_cell(s) for s in sources]
    if check_cell is not None:
        nb.cells.append(v4.new_code_cell(check_cell, metadata={"nbgrader": {"grade": True, "solution": False,
                                                                              "grade_id": "check_x", "points": 1}}))
    nbformat.write(nb, path)
    return path


def test_invalid_json_is_reported(tmp_path):
    path = tmp_path / "01_immutable_updates.ipynb"
    path.write_text("{ not json")
    with pytest.raises(SubmissionError, match="JSON cannot be read"):
        read(path)


def test_wrong_nbformat_is_reported(tmp_path):
    path = tmp_path / "01_immutable_updates.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "bogus"}]}))
    with pytest.raises(SubmissionError, match="not a valid nbformat 4 notebook"):
        read(path)


def test_unknown_file_type_is_reported(tmp_path):
    path = tmp_path / "answers.txt"
    path.write_text("x = 1")
    with pytest.raises(SubmissionError, match="neither a notebook"):
        read(path)


def test_missing_file_is_reported(tmp_path):
    with pytest.raises(SubmissionError, match="does not exist"):
        read(tmp_path / "nothing.ipynb")


def test_magics_are_skipped_with_a_note(tmp_path):
    source = read(_notebook(tmp_path / "a.ipynb",
                            "%matplotlib inline\n!pip install jax\nx = 1\nif x:\n    %time y = 2"))
    namespace = {}
    report = execute_cells(source.cells, namespace)
    assert namespace["x"] == 1
    assert not report.problems
    assert sum("%matplotlib inline" in n or "!pip install jax" in n for n in source.notes) == 2


def test_check_cells_are_skipped(tmp_path):
    path = _notebook(tmp_path / "a.ipynb", "x = 1", "from autograder.notebook import check\ncheck('x', globals())",
                     check_cell="raise RuntimeError('a check cell must not run')")
    source = read(path)
    assert [c.source for c in source.cells] == ["x = 1"]


def test_a_failing_cell_does_not_stop_later_cells(tmp_path):
    source = read(_notebook(tmp_path / "a.ipynb", "def f(): return 1", "1 / 0", "def g(): return 2", "def h(:\n  pass"))
    namespace = {}
    report = execute_cells(source.cells, namespace)
    assert "f" in namespace and "g" in namespace
    assert any("Cell 2 raised ZeroDivisionError" in p for p in report.problems)
    assert any("Cell 4 has a syntax error" in p for p in report.problems)


def test_sys_exit_at_top_level_is_a_note_not_an_exit(tmp_path):
    source = read(_notebook(tmp_path / "a.ipynb", "import sys\nsys.exit(0)", "y = 2"))
    namespace = {}
    report = execute_cells(source.cells, namespace)
    assert namespace["y"] == 2
    assert any("SystemExit" in p for p in report.problems)


def test_assignment_from_metadata_then_file_name_then_override(tmp_path):
    by_metadata = read(_notebook(tmp_path / "homework.ipynb", "x = 1",
                                 metadata={"autograder": {"assignment": "02_where"}}))
    assert resolve_assignment(by_metadata, KNOWN, None) == "02_where"
    by_name = read(_notebook(tmp_path / "kim_01_immutable_updates.ipynb", "x = 1"))
    assert resolve_assignment(by_name, KNOWN, None) == "01_immutable_updates"
    assert resolve_assignment(by_name, KNOWN, "02_where") == "02_where"
    unknown = read(_notebook(tmp_path / "homework2.ipynb", "x = 1"))
    with pytest.raises(SubmissionError, match="--assignment"):
        resolve_assignment(unknown, KNOWN, None)


@pytest.mark.parametrize("backend", ["inprocess", "os"])
def test_missing_function_scores_zero_for_its_checks_only(tmp_path, backend, config, seed):
    path = tmp_path / "sub.py"
    path.write_text("import jax.numpy as jnp\n\ndef set_element(x, index, value):\n    return x.at[index].set(value)\n")
    result = grade_submission(path, config,
                              GradingOptions(seed=seed, sandbox=backend, assignment="01_immutable_updates"))
    by_function = {}
    for check in result.checks:
        by_function.setdefault(check.function, []).append(check)
    assert all(c.passed for c in by_function["set_element"])
    for function in ("set_diagonal", "histogram", "swap_rows"):
        assert all(not c.passed and f"`{function}` is not defined" in c.feedback for c in by_function[function])


@pytest.mark.parametrize("backend", ["inprocess", "os"])
def test_exception_in_a_function_names_the_call_and_the_cell(tmp_path, backend, config, seed):
    path = tmp_path / "sub.py"
    path.write_text("def selu(x, alpha=1.67, lmbda=1.05):\n    raise RuntimeError('boom')\n")
    result = grade_submission(path, config,
                              GradingOptions(seed=seed, sandbox=backend, assignment="02_where", functions={"selu"}))
    assert result.score == 0
    assert all("RuntimeError: boom" in c.feedback and "(in `selu`, line 2 of its cell)" in c.feedback
               for c in result.checks)


@pytest.mark.parametrize("backend", ["inprocess", "os"])
def test_endless_loop_in_a_function_costs_only_that_function(tmp_path, backend, config, seed):
    import dataclasses

    # A generous backstop: on a machine of any load, only CPU time ends the loop (see test_cpu_time_limits).
    fast = dataclasses.replace(config, limits=dataclasses.replace(config.limits, call_seconds=3, busy_factor=1000))
    path = tmp_path / "sub.py"
    path.write_text("import jax.numpy as jnp\n\ndef selu(x, alpha=1.67, lmbda=1.05):\n    while True:\n        pass\n\n"
                    "def sum_of_positive_numbers(x):\n    return jnp.where(x > 0, x, 0).sum()\n")
    result = grade_submission(path, fast,
                              GradingOptions(seed=seed, sandbox=backend, assignment="02_where", functions={"selu",
                                             "sum_of_positive_numbers"}))
    selu = [c for c in result.checks if c.function == "selu"]
    positive = [c for c in result.checks if c.function == "sum_of_positive_numbers"]
    assert all(not c.passed and "more than 3 s of CPU time" in c.feedback for c in selu)
    assert all(c.passed for c in positive)


def test_autograder_metadata_that_is_not_an_object_is_ignored(tmp_path):
    path = _notebook(tmp_path / "kim_02_where.ipynb", "x = 1", metadata={"autograder": "02_where"})
    source = read(path)
    assert source.assignment_hint is None and source.language is None and len(source.cells) == 1
    assert resolve_assignment(source, KNOWN, None) == "02_where"  # from the file name


def test_a_placeholder_guesses_the_assignment_in_the_graders_order_without_reading_cells(tmp_path):
    declared = _notebook(tmp_path / "kim_01_immutable_updates.ipynb", "x = (",
                         metadata={"autograder": {"assignment": "02_where"}})
    assert guess_assignment(declared, KNOWN, None) == "02_where"  # metadata before the file name
    assert guess_assignment(declared, KNOWN, "01_immutable_updates") == "01_immutable_updates"
    broken = tmp_path / "lee_01_immutable_updates.ipynb"
    broken.write_text("{ not json")
    assert guess_assignment(broken, KNOWN, None) == "01_immutable_updates"
    assert guess_assignment(tmp_path / "missing.ipynb", KNOWN, None) is None


def test_reading_notebooks_imports_none_of_the_format_checkers_notebook_schemas_never_use(tmp_path):
    import subprocess
    import sys

    path = _notebook(tmp_path / "n.ipynb", "x = 1")
    script = ("import sys\n"
              "from autograder.load import submission_source\n"
              f"assert submission_source.read({str(path)!r}).cells[0].source == 'x = 1'\n"
              "print(sorted(set(submission_source._FORMAT_CHECKER_MODULES) & set(sys.modules)))\n"
              "import importlib.util\n"
              "print(importlib.util.find_spec('idna') is None or __import__('idna') is not None)\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    imported, importable_later = completed.stdout.split()
    assert imported == "[]", f"imported while nbformat loaded: {imported}"
    assert importable_later == "True", "refused only while nbformat loads"
