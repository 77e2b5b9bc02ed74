"""The sandboxed grader cannot be fooled or crashed.

One `autograder grade` batch holds every attack in tests/attacks plus the
solution notebooks. The batch finishes, the solutions keep full marks, and
every attack earns exactly what its honest code earns: zero for the checks
it attacks.
"""

from __future__ import annotations

import json
import shutil
import tomllib

import nbformat
import pytest

from conftest import REPO, run_cli

ATTACKS = REPO / "tests" / "attacks"
CASES = tomllib.loads((ATTACKS / "cases.toml").read_text())["attack"]
SOLUTIONS = ["01_immutable_updates", "02_where"]


def _edited_check_cells_notebook(path):
    """The 02 solution with selu left unimplemented and every check cell rewritten to claim success."""
    notebook = nbformat.read(REPO / "solutions" / "02_where" / "02_where.ipynb", as_version=4)
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == "selu_solution":
            cell.source = "def selu(x, alpha=1.67, lmbda=1.05):\n    raise NotImplementedError()\n"
        if meta.get("grade"):
            cell.metadata.pop("nbgrader")
            cell.source = "print('All checks passed. Total: 17 / 17')\n17"
    nbformat.write(notebook, path)


def _deleted_check_cells_notebook(path):
    notebook = nbformat.read(REPO / "solutions" / "02_where" / "02_where.ipynb", as_version=4)
    notebook.cells = [c for c in notebook.cells if not c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    nbformat.write(notebook, path)


@pytest.fixture(scope="module")
def attacked_batch(tmp_path_factory):
    text = (REPO / "grading.toml").read_text()
    text = text.replace("load_seconds = 60", "load_seconds = 20").replace("call_seconds = 30", "call_seconds = 8")
    config = tmp_path_factory.mktemp("config") / "grading.toml"
    config.write_text(text)
    batch = tmp_path_factory.mktemp("attack_batch")
    for case in CASES:
        shutil.copy(ATTACKS / case["file"], batch / f"attack_{case['file'].removesuffix('.py')}_02_where.py")
    for assignment in SOLUTIONS:
        shutil.copy(REPO / "solutions" / assignment / f"{assignment}.ipynb", batch / f"solution_{assignment}.ipynb")
    _edited_check_cells_notebook(batch / "attack_edited_check_cells_02_where.ipynb")
    _deleted_check_cells_notebook(batch / "attack_deleted_check_cells_02_where.ipynb")
    out = tmp_path_factory.mktemp("attack_out")
    completed = run_cli("--config", str(config), "grade", str(batch), "--out", str(out), "--jobs", "2", "--seed", "11",
                        timeout=1800)
    return completed, out


def _result(out, name):
    return json.loads((out / name / "results.json").read_text())


def test_the_batch_finishes_normally(attacked_batch):
    completed, out = attacked_batch
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert len(list(out.glob("*/results.json"))) == len(CASES) + len(SOLUTIONS) + 2


@pytest.mark.parametrize("assignment", SOLUTIONS)
def test_solutions_in_the_same_batch_keep_full_marks(attacked_batch, assignment):
    result = _result(attacked_batch[1], f"solution_{assignment}")
    assert result["score"] == result["extra_data"]["max_score"] > 0, [t for t in result["tests"] if t["status"] != "passed"]


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_attack_earns_only_what_its_honest_code_earns(attacked_batch, case):
    result = _result(attacked_batch[1], f"attack_{case['file'].removesuffix('.py')}_02_where")
    failed = {t["name"]: t["output"] for t in result["tests"] if t["status"] != "passed"}
    assert result["score"] == case["earns"], f"{case['why']}: scored {result['score']}, failed: {json.dumps(failed, indent=1)[:3000]}"
    for name in case.get("zero", []):
        assert name in failed, f"{case['why']}: {name} should score 0"
        assert case.get("feedback", "") in failed[name], f"{name}: {failed[name]}"
    if case.get("feedback") and not case.get("zero"):
        assert any(case["feedback"] in text for text in [*failed.values(), result["output"]]), result["output"]


def test_edited_check_cells_are_ignored(attacked_batch):
    result = _result(attacked_batch[1], "attack_edited_check_cells_02_where")
    assert result["score"] == 14
    assert {t["name"] for t in result["tests"] if t["status"] != "passed"} == {"selu: correct", "selu: jittable"}


def test_deleted_check_cells_do_not_matter(attacked_batch):
    assert _result(attacked_batch[1], "attack_deleted_check_cells_02_where")["score"] == 17
