"""assignments/ is exactly what real `nbgrader generate_assignment` makes from solutions/, and check-cell points
match grading.toml.

Staleness is checked byte for byte. nbgrader's output is deterministic: cell
ids come from the source notebook, checksums are MD5 sums of the cell source
and metadata, and nbformat writes keys sorted with a fixed indent, so two runs
on the same solutions/ give identical files. Bytes are the strictest honest
comparison (cell ids, checksums, metadata, outputs, even formatting); when the
bytes differ, the failure message names the cells whose parsed JSON differs.
"""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import REPO

from autograder import grading_config
from autograder.authoring.notebooks import check_cell_source
from autograder.integrations import release

CONFIG = grading_config.load()
ASSIGNMENTS = CONFIG.assignments


def _files(directory):
    return sorted(p.relative_to(directory) for p in directory.rglob("*") if p.is_file())


def _cell_differences(expected_path, actual_path) -> list[str]:
    """Human-readable differences between two notebooks' parsed JSON, cell by cell."""
    expected, actual = json.loads(expected_path.read_text()), json.loads(actual_path.read_text())
    differences = [f"top-level key {key!r}" for key in sorted(set(expected) | set(actual))
                   if key != "cells" and expected.get(key) != actual.get(key)]
    expected_cells = {c.get("id"): c for c in expected["cells"]}
    actual_cells = {c.get("id"): c for c in actual["cells"]}
    if list(expected_cells) != list(actual_cells):
        differences.append(f"cell ids/order: nbgrader makes {list(expected_cells)}, "
                           f"assignments/ has {list(actual_cells)}")
    for cell_id in expected_cells:
        if cell_id in actual_cells and expected_cells[cell_id] != actual_cells[cell_id]:
            keys = sorted(k for k in set(expected_cells[cell_id]) | set(actual_cells[cell_id])
                          if expected_cells[cell_id].get(k) != actual_cells[cell_id].get(k))
            differences.append(f"cell {cell_id!r}: {', '.join(keys)}")
    return differences or ["formatting only (same JSON, different bytes)"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_assignments_dir_is_what_nbgrader_generates_from_solutions(assignment, tmp_path):
    completed = release.generate(assignment, REPO, release_dir=tmp_path)
    assert completed.returncode == 0, f"nbgrader generate_assignment failed:\n{completed.stdout}{completed.stderr}"
    generated, committed = tmp_path / assignment, REPO / "assignments" / assignment
    rerun = f"run `autograder release {assignment}` (or `make release`) and commit assignments/{assignment}/"
    assert committed.is_dir(), f"assignments/{assignment}/ does not exist: {rerun}"
    assert _files(committed) == _files(generated), (
        f"assignments/{assignment}/ has different files than nbgrader makes: {rerun}")
    for name in _files(generated):
        if (generated / name).read_bytes() != (committed / name).read_bytes():
            differences = (_cell_differences(generated / name, committed / name) if name.suffix == ".ipynb"
                           else ["contents"])
            pytest.fail(f"assignments/{assignment}/{name} is stale ({'; '.join(differences)}): {rerun}")


def _graded_cells(notebook):
    return {c.metadata.nbgrader.grade_id: c for c in notebook.cells
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id")}


@pytest.mark.parametrize("where", ["solutions", "assignments", "solutions/ko", "assignments/ko"])
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_one_locked_check_cell_per_function_with_grading_toml_points(assignment, where):
    language = "ko" if where.endswith("/ko") else "en"
    path = REPO / where / assignment / f"{assignment}.ipynb"
    assert path.exists(), f"{path.relative_to(REPO)} does not exist: run `autograder release {assignment}`"
    cells = _graded_cells(nbformat.read(path, as_version=4))
    grade_cells = {grade_id: cell for grade_id, cell in cells.items() if cell.metadata.nbgrader.get("grade")}
    functions = CONFIG.functions(assignment)
    assert sorted(grade_cells) == sorted(f"check_{f}" for f in functions), \
        "every graded function needs exactly one grade cell check_<function>, and no other grade cells"
    for function in functions:
        meta = grade_cells[f"check_{function}"].metadata.nbgrader
        assert meta.get("locked") is True and meta.get("solution") is False, (
            f"check_{function} must be a locked grade cell")
        assert float(meta.points) == CONFIG.function_total(assignment, function), (
            f"check_{function} is worth {meta.points} points but grading.toml gives {function} "
            f"{CONFIG.function_total(assignment, function):g}: run `autograder release {assignment}`")
        assert grade_cells[f"check_{function}"].source.strip() == check_cell_source(function, language), \
            "a check cell holds only the import (saying what to do if it fails) and the check() call, " \
            "whose value is the points earned: see authoring.notebooks.check_cell_source"
        solution = cells.get(f"{function}_solution")
        assert solution is not None and solution.metadata.nbgrader.get("solution") is True \
            and not solution.metadata.nbgrader.get("grade"), f"{function}_solution must be an nbgrader solution cell"
        if where.startswith("solutions"):
            assert "### BEGIN SOLUTION" in solution.source and "### END SOLUTION" in solution.source
        else:
            assert "raise NotImplementedError()" in solution.source and "BEGIN SOLUTION" not in solution.source
            assert meta.get("checksum"), "released grade cells carry nbgrader's checksum"
