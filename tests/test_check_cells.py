"""Check cells in a real Jupyter kernel.

Under nbgrader (NBGRADER_EXECUTION set, as nbgrader sets it for the
kernel): the text table on stdout and the points earned as the cell's
value, which nbgrader reads as partial credit. In a student's kernel: an
HTML table (with the text table as its plain-text form) and no value, so no
stray `Out[...]` follows. Nothing on stderr either way.
"""

from __future__ import annotations

import nbformat
import pytest
from conftest import REPO
from nbclient import NotebookClient

from autograder import grading_config

ASSIGNMENTS = grading_config.load().assignments


@pytest.fixture(autouse=True)
def _kernels_share_a_jax_cache(monkeypatch, kernel_jax_cache):
    """Every kernel of this module inherits the run's JAX compilation cache (conftest.kernel_jax_cache)."""
    for name, value in kernel_jax_cache.items():
        monkeypatch.setenv(name, value)


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
def test_solution_check_cells_award_full_points_quietly_under_nbgrader(assignment, monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")  # the kernel inherits it, as under nbgrader
    notebook = _executed(REPO / "solutions" / assignment / f"{assignment}.ipynb")
    for cell in _check_cells(notebook):
        printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        assert _value(cell) == cell.metadata.nbgrader.points, printed
        assert not [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not [o for o in cell.outputs if o.output_type == "error"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_stub_check_cells_show_a_table_saying_not_implemented_and_no_value(assignment, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    notebook = _executed(REPO / "assignments" / assignment / f"{assignment}.ipynb")
    for cell in _check_cells(notebook):
        assert not [o for o in cell.outputs if o.output_type in ("execute_result", "error")], cell.outputs
        (shown,) = [o for o in cell.outputs if o.output_type == "display_data"]
        assert "<table" in shown["data"]["text/html"] and "not implemented yet" in shown["data"]["text/html"]
        assert "not implemented yet" in shown["data"]["text/plain"]
        assert "0/" in shown["data"]["text/plain"] and "✗" in shown["data"]["text/plain"]
