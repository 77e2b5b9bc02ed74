"""The grader skips the released notebook's example cells only where nothing graded can depend on them."""

from __future__ import annotations

import ast
import re

import nbformat
import pytest
from conftest import REPO

from autograder import grading_config
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.load.example_cells import ReleasedCells, cell_names, cells_to_skip, released_cells
from autograder.load.submission_source import CodeCell, read

ASSIGNMENTS = grading_config.load().assignments

SETUP = "import jax\nimport jax.numpy as jnp"
EXAMPLE = "x = jnp.arange(5.0)\nprint(x.at[0].set(9.0))"
RELEASED = ReleasedCells(examples=frozenset({EXAMPLE}), locked=frozenset({SETUP, EXAMPLE}))
SOLUTION = "def set_element(x, index, value):\n    y = x.at[index].set(value)\n    return y"
GRADED = frozenset({"set_element"})


def _cells(*sources: str) -> tuple[CodeCell, ...]:
    return tuple(CodeCell(number, source) for number, source in enumerate(sources, start=1))


def _skipped(*sources: str, released: ReleasedCells = RELEASED, graded: frozenset[str] = GRADED) -> set[int]:
    return set(cells_to_skip(_cells(*sources), released, graded))


# --- the rules, on synthetic notebooks -------------------------------------------

def test_an_unchanged_example_nothing_reads_is_skipped():
    assert _skipped(SETUP, EXAMPLE, SOLUTION) == {2}


def test_parameters_and_locals_named_like_an_examples_globals_do_not_count_as_reads():
    # SOLUTION's parameter `x` and local `y` are not the example's global x.
    assert _skipped(SETUP, EXAMPLE, SOLUTION.replace("y = ", "x = ").replace("return y", "return x")) == {2}


def test_an_edited_example_runs():
    assert _skipped(SETUP, EXAMPLE + "\nprint('mine')", SOLUTION) == set()


def test_an_example_whose_names_a_student_function_reads_runs():
    reads_x = "def set_element(v, index, value):\n    return v.at[index].set(value) + 0 * x[0]"
    assert _skipped(SETUP, EXAMPLE, reads_x) == set()


def test_an_example_whose_names_a_student_cell_reads_at_top_level_runs():
    assert _skipped(SETUP, EXAMPLE, SOLUTION, "print(x)") == set()


@pytest.mark.parametrize("update", ["x += 1", "del x", "def bump():\n    global x\n    x *= 2"])
def test_a_student_cell_that_updates_or_deletes_an_examples_name_makes_it_run(update):
    assert _skipped(SETUP, EXAMPLE, SOLUTION, update) == set()


def test_an_example_that_binds_a_graded_name_runs():
    binds_graded = "set_element = None"
    released = ReleasedCells(examples=frozenset({binds_graded}), locked=frozenset({SETUP, binds_graded}))
    assert _skipped(SETUP, binds_graded, SOLUTION, released=released) == set()


def test_an_example_that_reads_a_name_the_student_defines_runs():
    calls_student = "print(set_element(jnp.zeros(3), 0, 1.0))"
    released = ReleasedCells(examples=frozenset({calls_student}), locked=frozenset({SETUP, calls_student}))
    assert _skipped(SETUP, calls_student, SOLUTION, released=released) == set()


def test_an_example_reading_a_name_the_student_only_imports_is_still_skipped():
    assert _skipped(SETUP, EXAMPLE, "import jax.numpy as jnp\n" + SOLUTION) == {2}


@pytest.mark.parametrize("dynamic", ["globals()['x']", "eval('x')", "exec('print(x)')", "vars()",
                                     "set_element.__globals__",
                                     "import sys\nsys.modules['__main__']"])
def test_a_student_cell_that_reaches_names_dynamically_turns_skipping_off(dynamic):
    assert _skipped(SETUP, EXAMPLE, SOLUTION, dynamic) == set()


def test_an_example_another_running_cell_needs_runs_too():
    first = "demo_values = jnp.ones(3)"
    second = "print(demo_values * 2)"
    released = ReleasedCells(examples=frozenset({first, second}), locked=frozenset({SETUP, first, second}))
    assert _skipped(SETUP, first, second, SOLUTION, released=released) == {2, 3}
    assert _skipped(SETUP, first, second + "  # edited", SOLUTION, released=released) == set()


def test_names_bound_by_a_global_statement_inside_a_function_count_as_bindings():
    names = cell_names("def f():\n    global counter\n    counter = 1")
    assert "counter" in names.binds and "f" in names.binds


def test_a_cell_that_does_not_compile_binds_and_reads_nothing():
    names = cell_names("def broken(:\n    pass")
    assert not names.binds and not names.reads and not names.dynamic


# --- the released notebooks ------------------------------------------------------

# Calls that change process-wide state, unless used as `with ...:` (then the change ends with the block).
GLOBAL_SETTERS = ("config.update", "random.seed", "set_printoptions", "environ.update", "debug_key_reuse",
                  "enable_x64", "default_matmul_precision", "numpy_rank_promotion", "numpy_dtype_promotion")


def _global_state_changes(source: str) -> list[str]:
    tree = ast.parse(source)
    scoped = {id(item.context_expr) for node in ast.walk(tree) if isinstance(node, ast.With) for item in node.items}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in scoped:
            name = ast.unparse(node.func)
            if name.endswith(GLOBAL_SETTERS):
                found.append(name)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx,
                                                          ast.Store) and ast.unparse(node.value).endswith("environ"):
            found.append(ast.unparse(node))
    return found


def test_the_global_state_check_sees_a_config_change_but_not_a_scoped_one():
    assert _global_state_changes("jax.config.update('jax_enable_x64', True)") == ["jax.config.update"]
    assert _global_state_changes("with jax.debug_key_reuse(True):\n    pass") == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_example_cells_change_no_global_state(assignment):
    released = released_cells(assignment, REPO / "assignments")
    assert released.examples, f"{assignment}: the released notebook has no example cells"
    for source in released.examples:
        assert not _global_state_changes(source), (
            f"{assignment}: an example cell changes global state, so the grader could not skip it:\n{source}")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_setup_cell_is_never_an_example(assignment):
    notebook = nbformat.read(REPO / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    setup = [cell.source for cell in notebook.cells if cell.get("metadata", {}).get("nbgrader",
                                                                                    {}).get("grade_id") == "setup"]
    assert len(setup) == 1
    released = released_cells(assignment, REPO / "assignments")
    assert setup[0] in released.locked and setup[0] not in released.examples


@pytest.mark.parametrize("notebook", ["solutions", "assignments"])
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_example_of_the_solution_and_the_stub_is_skipped(assignment, notebook, config):
    source = read(REPO / notebook / assignment / f"{assignment}.ipynb")
    released = released_cells(assignment, REPO / "assignments")
    examples = {cell.number for cell in source.cells if cell.source in released.examples}
    assert examples
    assert set(cells_to_skip(source.cells, released, frozenset(config.functions(assignment)))) == examples


# --- end to end ------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["inprocess", "os"])
def test_a_student_cell_reading_an_examples_name_makes_that_example_run(backend, config, seed, tmp_path):
    """05's data cell binds x_train; a student's extra cell reading it keeps the data cell running."""
    notebook = nbformat.read(REPO / "solutions" / "05_grad_aux" / "05_grad_aux.ipynb", as_version=4)
    data = next(i for i, cell in enumerate(notebook.cells, start=1)
                if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "data")
    notebook.cells.append(nbformat.v4.new_code_cell("TRAINING_SET_SIZE = x_train.shape[0]"))
    path = tmp_path / "05_grad_aux.ipynb"
    nbformat.write(notebook, path)
    result = grade_submission(path, config, GradingOptions(seed=seed, sandbox=backend))
    assert result.score == result.max_score
    skipped_note = next(note for note in result.notes if "were not run" in note)
    assert str(data) not in re.findall(r"\d+", skipped_note.split("were not run")[0])
    assert not any("raised" in note for note in result.notes), result.notes
