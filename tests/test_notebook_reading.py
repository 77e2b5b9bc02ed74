"""Reading a notebook as IPython does: only its magics are skipped, and an unreadable cell costs only itself."""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import REPO, run_cli

from autograder.child.cell_execution import execute_cells
from autograder.load.submission_source import read, readable_cell

CONTINUATION = "def remainder(a, b):\n    return (a\n% b)\n\ndef differs(a, b):\n    return [a\n!= b]\n"


def _run(source: str) -> dict:
    readable = readable_cell(1, source)
    assert readable.source is not None, readable.notes
    namespace: dict = {}
    exec(compile(readable.source, "<cell 1>", "exec"), namespace)  # noqa: S102 - the test's own code
    return namespace


def test_continuation_lines_starting_with_percent_or_not_equal_are_python():
    namespace = _run(CONTINUATION)
    assert namespace["remainder"](7, 4) == 3 and namespace["differs"](1, 2) == [True]
    assert readable_cell(1, CONTINUATION).notes == ()


def test_line_magics_and_shell_commands_are_skipped_with_a_note_and_line_numbers_kept():
    source = "%matplotlib inline\n!pip install optax\nfiles = !ls\ndef f(x):\n    %time y = x\n    return x + 1\n"
    readable = readable_cell(3, source)
    assert readable.source.splitlines()[5] == "    return x + 1"  # same line as in the cell
    assert len(readable.notes) == 4
    assert all(note.startswith("Cell 3: skipped IPython-only line") for note in readable.notes)
    assert "`!pip install optax`" in readable.notes[1]
    assert _run(source)["f"](1) == 2


def test_a_percent_inside_a_string_is_not_a_magic():
    source = 's = """\n%not a magic\n!nor this\n"""\n'
    assert readable_cell(1, source) == readable_cell(1, source).__class__(source)


def test_a_time_cell_magic_runs_its_body():
    readable = readable_cell(2, "%%time\ndef g(x):\n    return 2 * x\n")
    assert "`%%time`" in readable.notes[0]
    namespace: dict = {}
    exec(compile(readable.source, "<cell 2>", "exec"), namespace)  # noqa: S102
    assert namespace["g"](3) == 6


def test_other_cell_magics_skip_their_cell():
    readable = readable_cell(2, "%%bash\necho hi\n")
    assert readable.source is None and "`%%bash`" in readable.notes[0]


@pytest.mark.parametrize("bad", ["s = 'bad \ud800 char'", "s = 'nul \x00 char'"], ids=["lone surrogate", "NUL"])
def test_a_cell_that_cannot_be_read_costs_only_that_cell(tmp_path, bad):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("def before():\n    return 1"), nbformat.v4.new_code_cell(bad),
                      nbformat.v4.new_code_cell("def after():\n    return 2")]
    path = tmp_path / "sub.ipynb"
    path.write_text(json.dumps(notebook, ensure_ascii=True))
    source = read(path)
    namespace: dict = {}
    report = execute_cells(source.cells, namespace)
    assert namespace["before"]() == 1 and namespace["after"]() == 2
    assert any(note.startswith("Cell 2 could not be read") for note in [*source.notes, *report.notes])


def test_honest_notebook_with_magics_continuations_and_a_broken_cell_keeps_full_marks(tmp_path):
    """Graded by the real command line in the sandbox: IPython-only lines and one unreadable cell cost nothing."""
    notebook = nbformat.read(REPO / "solutions" / "02_where" / "02_where.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "masked_mean_solution":
            cell.source = cell.source.replace("### BEGIN SOLUTION",
                                              "### BEGIN SOLUTION\n    count = (mask\n!= False).sum()", 1)
    notebook.cells.insert(3, nbformat.v4.new_code_cell("%load_ext autoreload\n!pip install -q jax\ns = 'odd \ud800'"))
    notebook.cells.insert(3, nbformat.v4.new_code_cell("%%time\nwarm = 1 + 1"))
    path = tmp_path / "student_02_where.ipynb"
    path.write_text(json.dumps(notebook, ensure_ascii=True))
    out = tmp_path / "out"
    completed = run_cli("grade", str(path), "--out", str(out), "--jobs", "1", "--seed", "3")
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = json.loads((out / path.stem / "results.json").read_text())
    failed = [t for t in result["tests"] if t["status"] != "passed"]
    assert result["score"] == result["extra_data"]["max_score"] == 17, failed
    assert "could not be read" in result["output"] and "`%%time`" in result["output"]
