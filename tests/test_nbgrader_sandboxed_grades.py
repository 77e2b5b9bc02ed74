"""nbgrader autograde takes each check cell's points and feedback from the sandboxed grader.

A real course directory (the repository's nbgrader_config.py), real
`nbgrader autograde` with its SQLite gradebook, students of 02_where:
  honest   the reference solutions
  forger   stubs, plus a first cell that replaces `autograder.notebook.check`
           with one that prints "All checks passed" and returns full marks
  mixed    the reference solutions except selu, left as the stub
  dead     the reference solutions; its selu cell kills the kernel
graded with the sandboxed check cells (the default); honest and forger also
in a second course with them switched off, which shows what the forger would
have had; then honest is regraded there with a grader that fails, which must
leave zeros, not the earlier marks, and make nbgrader fail.

The rest runs the preprocessors on a notebook directly, with
grade_submission and the sandbox's availability replaced: what is graded,
what nbgrader reads from the outputs, and a sandbox that cannot run.
"""

from __future__ import annotations

import copy
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import REPO, SEED
from nbgrader.api import Gradebook
from nbgrader.utils import determine_grade

from autograder import grading_config
from autograder.catalog import messages
from autograder.check.results import CheckResult, SubmissionResult
from autograder.grade import pipeline as grading
from autograder.integrations.nbgrader_preprocessors import KERNEL_DIED
from autograder.integrations.nbgrader_sandboxed_grades import (
    FAILURE_KEY,
    FailWhereSandboxFailed,
    GradeCheckCellsInSandbox,
    SandboxFailed,
)
from autograder.integrations.release import nbgrader_environment
from autograder.sandbox import os_isolation

ASSIGNMENT = "02_where"
CONFIG = grading_config.load()
TOTALS = {f"check_{f}": CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT)}
FORGERY = (
    "import autograder.notebook as _kit\n"
    "_TOTALS = %r\n"
    "def _forged(function, namespace, **options):\n"
    "    print('All checks passed.')\n"
    "    return _TOTALS[function]\n"
    "_kit.check = _forged\n"
) % {f: CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT)}


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=1800)


KILL = "\nimport os\nos.kill(os.getpid(), 9)\n"


def _course(root: Path, students: list[str]) -> None:
    for name in ("nbgrader_config.py", "grading.toml"):  # a course directory: grading.toml beside nbgrader's config
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    generated = _nbgrader(root, "generate_assignment", ASSIGNMENT)
    assert generated.returncode == 0, generated.stderr
    release = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    solutions = {_grade_id(c): c.source for c in source.cells if str(_grade_id(c)).endswith("_solution")}
    honest = copy.deepcopy(release)
    for cell in honest.cells:
        if _grade_id(cell) in solutions:
            cell.source = solutions[_grade_id(cell)]
    mixed = copy.deepcopy(honest)
    for cell in mixed.cells:
        if _grade_id(cell) == "selu_solution":
            cell.source = next(c.source for c in release.cells if _grade_id(c) == "selu_solution")
    forger = copy.deepcopy(release)
    forger.cells.insert(1, nbformat.v4.new_code_cell(FORGERY))
    dead = copy.deepcopy(honest)
    for cell in dead.cells:
        if _grade_id(cell) == "selu_solution":
            cell.source += KILL
    notebooks = {"honest": honest, "forger": forger, "mixed": mixed, "dead": dead}
    for student in students:
        notebook = notebooks[student]
        path = root / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, path)


def _gradebook(root: Path) -> dict:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {s.student_id: {g.name: g.score for g in gradebook.find_submission_notebook(
                    ASSIGNMENT, ASSIGNMENT, s.student_id).grades}
                for s in gradebook.assignment_submissions(ASSIGNMENT)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(sandboxed run, its gradebook, its autograded notebooks), (switched-off run, its gradebook),
    (the switched-off course's honest student regraded by a failing grader, its gradebook, its course root)."""
    sandboxed, plain = tmp_path_factory.mktemp("sandboxed"), tmp_path_factory.mktemp("plain")
    _course(sandboxed, ["honest", "forger", "mixed", "dead"])
    _course(plain, ["honest", "forger"])
    on = _nbgrader(sandboxed, "autograde", ASSIGNMENT)
    off = _nbgrader(plain, "autograde", ASSIGNMENT, "--GradeCheckCellsInSandbox.enabled=False")
    plain_gradebook = _gradebook(plain)
    # The sandboxed grading switched back on (the config's default), with a grader that cannot start.
    failed = _nbgrader(plain, "autograde", ASSIGNMENT, "--student", "honest", "--force",
                       f"--GradeCheckCellsInSandbox.config_file={plain / 'missing' / 'grading.toml'}")
    autograded = {p.parts[-3]: nbformat.read(p, as_version=4)
                  for p in sandboxed.glob(f"autograded/*/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")}
    return (on, _gradebook(sandboxed), autograded), (off, plain_gradebook), (failed, _gradebook(plain), plain)


def test_autograde_succeeds_with_sandboxed_check_cells(graded):
    (on, gradebook, _), *_ = graded
    assert on.returncode == 0, on.stderr[-4000:]
    assert sorted(gradebook) == ["dead", "forger", "honest", "mixed"]


def test_an_honest_submission_keeps_full_marks(graded):
    (_, gradebook, _), *_ = graded
    assert gradebook["honest"] == TOTALS


def test_a_forged_check_function_earns_nothing(graded):
    (_, sandboxed, autograded), (off, plain), _ = graded
    assert off.returncode == 0, off.stderr[-4000:]
    assert plain["forger"] == TOTALS, "without the sandboxed check cells the forgery would have had full marks"
    assert all(score == 0 for score in sandboxed["forger"].values()), sandboxed["forger"]
    outputs = [o for c in autograded["forger"].cells if str(_grade_id(c)).startswith("check_") for o in c.outputs]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "All checks passed." not in text and "is not implemented yet" in text


def test_partial_credit_per_check_cell_comes_from_the_sandbox(graded):
    (_, gradebook, autograded), *_ = graded
    assert gradebook["mixed"] == TOTALS | {"check_selu": 0.0}
    [selu] = [c for c in autograded["mixed"].cells if _grade_id(c) == "check_selu"]
    assert [o.output_type for o in selu.outputs] == ["stream", "execute_result"]
    assert selu.outputs[1].data["text/plain"] == "0"


def test_a_kernel_that_dies_costs_no_check_cell_the_sandbox_graded(graded):
    """nbgrader's kernel dies in selu's cell; the sandbox refuses the kill and grades every function."""
    (_, gradebook, autograded), *_ = graded
    assert gradebook["dead"] == TOTALS
    cells = {_grade_id(c): c for c in autograded["dead"].cells}
    assert cells["selu_solution"].outputs[-1].evalue == KERNEL_DIED
    assert all(cells[c].outputs[-1].output_type == "execute_result" for c in TOTALS)


def test_a_grader_that_fails_leaves_zeros_not_earlier_marks_and_fails_the_run(graded):
    _, (_, before), (failed, after, root) = graded
    assert before["honest"] == TOTALS
    assert failed.returncode != 0
    assert after["honest"] == dict.fromkeys(TOTALS, 0.0)
    assert after["forger"] == before["forger"], "only the regraded student changes"
    log = failed.stdout + failed.stderr
    assert "not graded in the sandbox" in log and "grading.toml not found" in log
    assert not (root / "autograded" / "honest" / ASSIGNMENT).exists(), "nbgrader drops the failed submission's notebook"


# --- The preprocessors on one notebook, without nbgrader's command --------------------------------------------


def _executed_solution():
    """The solution notebook as nbgrader's kernel left it: every check cell printed and returned full marks."""
    notebook = nbformat.read(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for count, cell in enumerate(notebook.cells, 1):
        if cell.cell_type == "code":
            cell.execution_count = count
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="the kernel's own output\n")]
            if str(_grade_id(cell)).startswith("check_"):
                cell.outputs.append(nbformat.v4.new_output(
                    "execute_result", data={"text/plain": repr(TOTALS[_grade_id(cell)])}, execution_count=count))
    return notebook


def _resources():
    return {"nbgrader": {"notebook": ASSIGNMENT, "assignment": ASSIGNMENT, "student": "someone"}}


def _scores(notebook) -> dict:
    """What nbgrader's SaveAutoGrades would store for each check cell."""
    return {_grade_id(c): determine_grade(c)[0] for c in notebook.cells if _grade_id(c) in TOTALS}


def test_grades_the_submitted_code_without_the_kernels_outputs_and_nbgrader_reads_the_points(monkeypatch):
    graded_files = []

    def fake_grade(path, config, options, worker=None):
        seed = options.seed
        graded_files.append((nbformat.read(path, as_version=4), options.sandbox))
        checks = [CheckResult(f, prop, points if f != "selu" else points / 3, points, f != "selu",
                              "the sandbox's feedback")
                  for f in config.functions(ASSIGNMENT) for prop, points in config.points[ASSIGNMENT][f].items()]
        return SubmissionResult(name="x", path=str(path), assignment=ASSIGNMENT, seed=seed, checks=checks)

    monkeypatch.setattr(grading, "grade_submission", fake_grade)
    preprocessor = GradeCheckCellsInSandbox(sandbox="process")
    notebook, resources = preprocessor.preprocess(_executed_solution(), _resources())
    [(submitted, backend)] = graded_files
    assert backend == "process"
    code = [c for c in submitted.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code), "nothing the kernel produced is graded"
    assert [c.source for c in code] == [c.source for c in _executed_solution().cells if c.cell_type == "code"]
    expected = TOTALS | {"check_selu": TOTALS["check_selu"] / 3}
    assert _scores(notebook) == pytest.approx(expected)
    for cell in notebook.cells:
        if _grade_id(cell) in TOTALS:
            assert [o.output_type for o in cell.outputs] == ["stream", "execute_result"]
            assert "the kernel's own output" not in cell.outputs[0].text
            assert ("sandbox's feedback" in cell.outputs[0].text) == (_grade_id(cell) == "check_selu")
    assert FAILURE_KEY not in resources
    FailWhereSandboxFailed().preprocess(notebook, resources)  # nothing to report


def test_without_the_os_sandbox_check_cells_score_zero_and_the_submission_fails(monkeypatch, caplog):
    def unavailable(python):
        raise os_isolation.IsolationUnavailable("the OS sandbox needs bubblewrap: `apt-get install bubblewrap`")

    def must_not_grade(*args, **kwargs):
        raise AssertionError("graded without the OS sandbox")

    monkeypatch.setattr(os_isolation, "check_available", unavailable)
    monkeypatch.setattr(grading, "grade_submission", must_not_grade)
    with caplog.at_level(logging.ERROR):
        notebook, resources = GradeCheckCellsInSandbox().preprocess(_executed_solution(), _resources())
    assert _scores(notebook) == dict.fromkeys(TOTALS, 0)
    for cell in notebook.cells:
        if _grade_id(cell) in TOTALS:
            [error] = cell.outputs
            before, after = messages.text("nbgrader.sandbox_failed", detail="\0").split("\0")
            assert error.output_type == "error" and error.evalue.startswith(before) and error.evalue.endswith(after)
            assert "bubblewrap" in error.evalue
    assert "GradeCheckCellsInSandbox.sandbox" in resources[FAILURE_KEY]
    assert "bubblewrap" in caplog.text
    with pytest.raises(SandboxFailed, match="bubblewrap"):
        FailWhereSandboxFailed().preprocess(notebook, resources)


def test_a_sandbox_that_fails_for_one_submission_is_a_grading_failure_too(monkeypatch):
    def sandbox_failed(path, config, options, worker=None):
        seed = options.seed
        note = "The grader could not start a sandbox for this submission (bwrap: out of memory)."
        return SubmissionResult(name="x", path=str(path), assignment=ASSIGNMENT, seed=seed, notes=[note],
                                problem="sandbox_failed", checks=[CheckResult(f, "p", 0.0, 1.0, False, note)
                                                                  for f in config.functions(ASSIGNMENT)])

    monkeypatch.setattr(grading, "grade_submission", sandbox_failed)
    notebook, resources = GradeCheckCellsInSandbox(sandbox="process")(_executed_solution(), _resources())
    assert _scores(notebook) == dict.fromkeys(TOTALS, 0)
    assert all(c.outputs[0].output_type == "error" for c in notebook.cells if _grade_id(c) in TOTALS)
    with pytest.raises(SandboxFailed, match="could not start a sandbox"):
        FailWhereSandboxFailed()(notebook, resources)


def test_switched_off_it_leaves_the_kernels_outputs(monkeypatch):
    monkeypatch.setattr(grading, "grade_submission", lambda *a, **k: pytest.fail("graded while switched off"))
    notebook, resources = GradeCheckCellsInSandbox(enabled=False)(_executed_solution(), _resources())
    assert notebook == _executed_solution() and FAILURE_KEY not in resources
    assert _scores(notebook) == TOTALS
