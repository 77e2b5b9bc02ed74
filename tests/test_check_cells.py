"""Check cells in a real Jupyter kernel: a table on stdout, the points earned as the cell's value, nothing on stderr."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import grading_config
from conftest import REPO

ASSIGNMENTS = grading_config.load().assignments


def _executed(path):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return notebook


def _check_cells(notebook):
    return [c for c in notebook.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]


def _value(cell):
    results = [o for o in cell.outputs if o.output_type == "execute_result"]
    assert results, f"check cell {cell.metadata.nbgrader.grade_id} has no value: {cell.outputs}"
    return float(results[-1]["data"]["text/plain"])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_solution_check_cells_award_full_points_quietly(assignment):
    notebook = _executed(REPO / "solutions" / assignment / f"{assignment}.ipynb")
    for cell in _check_cells(notebook):
        assert _value(cell) == cell.metadata.nbgrader.points
        assert not [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not [o for o in cell.outputs if o.output_type == "error"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_stub_check_cells_award_zero_and_say_not_implemented(assignment):
    notebook = _executed(REPO / "assignments" / assignment / f"{assignment}.ipynb")
    for cell in _check_cells(notebook):
        assert _value(cell) == 0
        printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        assert "not implemented yet" in printed
