"""The instructor's round trip with real nbgrader, a real kernel and a real SQLite gradebook.

In a temporary course directory (the repository's nbgrader_config.py and one
assignment's source notebook, nothing else) the fixture runs what the README
tells an instructor to run:

    nbgrader generate_assignment 01_immutable_updates
    (submissions in submitted/<student>/01_immutable_updates/01_immutable_updates.ipynb)
    nbgrader autograde 01_immutable_updates
    nbgrader generate_feedback 01_immutable_updates
    nbgrader export --to grades.csv

and, on the same submitted notebooks, `autograder grade --seed S`. The check
cells take the same seed from AUTOGRADER_SEED, so both graders draw the same
hidden inputs and must agree per student and per check cell.

The students:
  full     the reference solutions; set_element also makes JAX warn and
           writes to file descriptor 2 on every call (must not cost points)
  partial  one classic mistake in each of three functions (partial credit
           inside each check cell), swap_rows left as the stub
  stub     the released notebook, untouched
  tamper   partial's code, with every check cell edited or deleted (one
           together with its solution cell)
  dead     correct set_element; its set_diagonal cell kills the kernel
Then, each in a run of its own:
  stuck    a set_element cell that loops and swallows the interrupt, graded
           with a 20 s cell time limit
  full     resubmits dead's notebook and is autograded again with --force
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import REPO, SEED
from nbgrader.api import Gradebook

from autograder import grading_config
from autograder.integrations.nbgrader_preprocessors import KERNEL_DIED, KERNEL_STUCK, NOT_RUN
from autograder.integrations.release import nbgrader_environment

ASSIGNMENT = "01_immutable_updates"
CONFIG = grading_config.load()
FUNCTIONS = CONFIG.functions(ASSIGNMENT)
CHECK_CELLS = [f"check_{f}" for f in FUNCTIONS]
# Students also graded by `autograder grade`: what they earn does not depend on the grader.
COMPARED = ["full", "partial", "stub", "tamper"]

FULL_EXTRA = {
    # Correct, but noisy on every call: a Python warning from JAX (float64 while x64
    # is off) and a line written straight to file descriptor 2, as XLA's C++
    # logging does. The last line puts the Python warning on this cell's stderr.
    "set_element_solution": (
        "import os\n"
        "\n"
        "def set_element(x, index, value):\n"
        "    os.write(2, b'W0000 external/xla: a C++ warning, past sys.stderr\\n')\n"
        "    value = jnp.asarray(value, dtype=jnp.float64)\n"
        "    return x.at[index].set(value)\n"
        "\n"
        "_ = jnp.asarray(1.0, dtype=jnp.float64)\n"
    ),
}
PARTIAL = {
    # passes all but "jittable with index and value traced" (4 of 5)
    "set_element_solution": (
        "def set_element(x, index, value):\n"
        "    copy = np.array(x)\n"
        "    copy[index] = value\n"
        "    return jnp.asarray(copy)\n"
    ),
    # passes all but "no Python loop over the diagonal" (4 of 5)
    "set_diagonal_solution": (
        "def set_diagonal(m, values):\n"
        "    values = jnp.broadcast_to(values, (m.shape[0],))\n"
        "    for i in range(m.shape[0]):\n"
        "        m = m.at[i, i].set(values[i])\n"
        "    return m\n"
    ),
    # fails "duplicates counted" and, with the same wrong counts under jit, "jittable" (1 of 4)
    "histogram_solution": (
        "def histogram(indices, num_bins):\n"
        "    return jnp.zeros(num_bins, jnp.int32).at[indices].set(1)\n"
    ),
}
# What each tampered check cell would score if nbgrader ran it as the student left it.
TAMPERED = {
    "check_set_element": "1",            # a value of 1: partial credit 1
    "check_histogram": "print(2)",       # no value, no error: full credit (and the cell is unlocked too)
}
# Deleted: nbgrader would leave check_set_diagonal unscored, waiting for manual grading,
# and fails the whole submission when a check cell goes together with its solution cell.
DELETED = ["check_set_diagonal", "swap_rows_solution", "check_swap_rows"]
KILL = "\nimport os\nos.kill(os.getpid(), 9)\n"
STUCK = "\nimport time\nwhile True:\n    try:\n        time.sleep(0.1)\n    except KeyboardInterrupt:\n        pass\n"


@dataclasses.dataclass
class Course:
    root: Path
    autograde: subprocess.CompletedProcess
    feedback: subprocess.CompletedProcess
    export: subprocess.CompletedProcess
    stuck: subprocess.CompletedProcess
    resubmission: subprocess.CompletedProcess
    gradebook: dict          # student -> grade cell -> (score, max_score, needs_manual_grade)
    autograded: dict         # student -> the notebook `nbgrader autograde` wrote
    feedback_html: dict      # student -> the page `nbgrader generate_feedback` wrote
    later: dict              # gradebook after the `stuck` run and `full`'s resubmission
    autograder: dict         # student -> results.json of `autograder grade`

    def feedback_text(self, student: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", self.feedback_html[student]))


def _nbgrader(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    # These tests are about nbgrader's own execution in the student's kernel (made robust by the kit's
    # preprocessors); the sandboxed check-cell grading on top of it has tests of its own
    # (test_nbgrader_sandboxed_grades.py).
    if args and args[0] == "autograde":
        args = (*args, "--GradeCheckCellsInSandbox.enabled=False")
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=_environment(),
                          capture_output=True, text=True, timeout=1800)


def _environment() -> dict:
    return nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)}


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _with_sources(notebook, sources: dict):
    notebook = copy.deepcopy(notebook)
    for cell in notebook.cells:
        if _grade_id(cell) in sources:
            cell.source = sources[_grade_id(cell)]
    return notebook


def _submissions(release, solutions: dict) -> dict:
    full = _with_sources(release, solutions | FULL_EXTRA)
    partial = _with_sources(release, PARTIAL)
    tamper = _with_sources(partial, TAMPERED)
    for cell in tamper.cells:
        if _grade_id(cell) == "check_histogram":
            cell.metadata.editable = True
            cell.metadata.nbgrader.locked = False
    tamper.cells = [c for c in tamper.cells if _grade_id(c) not in DELETED]
    dead = _with_sources(release, solutions | {"set_diagonal_solution": solutions["set_diagonal_solution"] + KILL})
    return {"full": full, "partial": partial, "stub": copy.deepcopy(release), "tamper": tamper, "dead": dead}


def _read_gradebook(root: Path) -> dict:
    grades = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for submission in gradebook.assignment_submissions(ASSIGNMENT):
            notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, submission.student_id)
            grades[submission.student_id] = {g.name: (g.score, g.max_score,
                                                      g.needs_manual_grade) for g in notebook.grades}
    return grades


def _submitted(root: Path, student: str) -> Path:
    return root / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Course:
    root = tmp_path_factory.mktemp("course")
    for name in ("nbgrader_config.py", "grading.toml"):  # a course directory: grading.toml beside nbgrader's config
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, root / "solutions" / ASSIGNMENT)

    generated = _nbgrader("generate_assignment", ASSIGNMENT, cwd=root)
    assert generated.returncode == 0, generated.stderr
    release = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    solutions = {_grade_id(c): c.source for c in source.cells if str(_grade_id(c)).endswith("_solution")}
    for student, notebook in _submissions(release, solutions).items():
        _submitted(root, student).parent.mkdir(parents=True)
        nbformat.write(notebook, _submitted(root, student))

    # The kit's own grader on the same files, running while nbgrader autogrades.
    results = root / "autograder-results"
    kit = subprocess.Popen(
        [sys.executable, "-m", "autograder", "grade", *(str(_submitted(root, s)) for s in COMPARED),
         "--out", str(results), "--seed", str(SEED), "--jobs", "1"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        autograde = _nbgrader("autograde", ASSIGNMENT, cwd=root)
        kit_out, kit_err = kit.communicate(timeout=1800)
    finally:
        if kit.poll() is None:
            kit.kill()
            kit.communicate()
    assert kit.returncode == 0, kit_out + kit_err
    by_path = {}
    for path in results.glob("*/results.json"):
        result = json.loads(path.read_text())
        by_path[Path(result["extra_data"]["path"])] = result
    autograder = {student: by_path[_submitted(root, student)] for student in COMPARED}

    gradebook = _read_gradebook(root)
    autograded = {path.parts[-3]: nbformat.read(path, as_version=4)
                  for path in root.glob(f"autograded/*/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")}
    feedback = _nbgrader("generate_feedback", ASSIGNMENT, cwd=root)
    feedback_html = {path.parts[-3]: path.read_text(encoding="utf-8")
                     for path in root.glob(f"feedback/*/{ASSIGNMENT}/{ASSIGNMENT}.html")}

    export = _nbgrader("export", "--to", "grades.csv", cwd=root)

    # A cell that outlives its time limit and ignores the interrupt (a short limit keeps the test quick).
    _submitted(root, "stuck").parent.mkdir(parents=True)
    nbformat.write(_with_sources(release, {"set_element_solution": solutions["set_element_solution"] + STUCK}),
                   _submitted(root, "stuck"))
    stuck = _nbgrader("autograde", ASSIGNMENT, "--student", "stuck", "--Execute.timeout=20", cwd=root)
    stuck_notebook = root / "autograded" / "stuck" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    if stuck_notebook.exists():
        autograded["stuck"] = nbformat.read(stuck_notebook, as_version=4)

    # `full` resubmits a notebook whose kernel dies; its earlier full marks must not survive.
    shutil.copy(_submitted(root, "dead"), _submitted(root, "full"))
    resubmission = _nbgrader("autograde", ASSIGNMENT, "--student", "full", "--force", cwd=root)
    return Course(root, autograde, feedback, export, stuck, resubmission, gradebook, autograded, feedback_html,
                  _read_gradebook(root), autograder)


def _points_per_check_cell(result: dict) -> dict:
    """`autograder grade`'s checks summed per function, keyed like nbgrader's grade cells."""
    points = {cell: 0.0 for cell in CHECK_CELLS}
    for test in result["tests"]:
        points[f"check_{test['name'].split(': ')[0]}"] += test["score"]
    return points


def test_autograde_succeeds_for_every_student(course):
    assert course.autograde.returncode == 0, course.autograde.stderr[-5000:]
    assert sorted(course.gradebook) == ["dead", "full", "partial", "stub", "tamper"]
    assert set(course.gradebook) <= set(course.autograded)
    for student, grades in course.gradebook.items():
        assert sorted(grades) == sorted(CHECK_CELLS)
        for cell, (_score, max_score, needs_manual) in grades.items():
            assert max_score == CONFIG.function_total(ASSIGNMENT, cell.removeprefix("check_"))
            assert not needs_manual, f"{student}/{cell} left for manual grading"


@pytest.mark.parametrize("student", COMPARED)
def test_gradebook_holds_the_points_autograder_grade_gives(course, student):
    expected = _points_per_check_cell(course.autograder[student])
    stored = {cell: score for cell, (score, _, _) in course.gradebook[student].items()}
    assert stored == expected


def test_partial_credit_inside_check_cells(course):
    """The three students span no, partial and full credit, so the comparison above means something."""
    scores = {s: {c: v[0] for c, v in course.gradebook[s].items()} for s in ("full", "partial", "stub")}
    assert scores["full"] == {c: CONFIG.function_total(ASSIGNMENT, c.removeprefix("check_")) for c in CHECK_CELLS}
    assert scores["partial"] == {"check_set_element": 4, "check_set_diagonal": 4, "check_histogram": 1,
                                 "check_swap_rows": 0}
    assert set(scores["stub"].values()) == {0}


@pytest.mark.parametrize("student", COMPARED)
def test_check_cells_write_nothing_to_stderr_and_use_autograder_seed(course, student):
    for cell in course.autograded[student].cells:
        if _grade_id(cell) in CHECK_CELLS:
            kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
            assert ("stream", "stderr") not in kinds and "error" not in [k for k, _ in kinds], (
                f"{_grade_id(cell)}: {cell.outputs}")
            printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            assert f"hidden-input seed {SEED}" in printed


def test_warnings_reach_stderr_outside_check_cells_but_cost_no_points(course):
    cells = {_grade_id(c): c for c in course.autograded["full"].cells}
    warned = [o.text for o in cells["set_element_solution"].outputs if o.output_type == "stream" and o.name == "stderr"]
    assert any("float64" in text for text in warned), cells["set_element_solution"].outputs
    assert course.gradebook["full"]["check_set_element"][0] == CONFIG.function_total(ASSIGNMENT, "set_element")


def _hints(feedback: str) -> list[str]:
    """The kit's advice in a check's feedback: its "Hint: ..." paragraphs, else the whole message."""
    paragraphs = [p for p in feedback.splitlines() if p.strip()]
    return [p for p in paragraphs if p.startswith("Hint:")] or paragraphs[-1:]


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)   # the table wraps long lines; compare without whitespace


@pytest.mark.parametrize("student", ["partial", "stub", "tamper"])
def test_feedback_html_shows_the_kits_hint_for_every_failed_check(course, student):
    assert course.feedback.returncode == 0, course.feedback.stderr[-5000:]
    text = course.feedback_text(student)
    failed = [t for t in course.autograder[student]["tests"] if t["status"] == "failed"]
    assert failed
    for test in failed:
        for hint in _hints(test["output"]):
            assert _squeeze(hint) in _squeeze(text), f"{test['name']}: hint {hint!r} missing from the feedback"
    total = sum(score for score, _, _ in course.gradebook[student].values())
    assert f"Score: {total:.1f} / {CONFIG.assignment_total(ASSIGNMENT):.1f}" in text


def test_nbgrader_export_writes_each_students_total(course):
    assert course.export.returncode == 0, course.export.stderr[-5000:]
    with open(course.root / "grades.csv", newline="") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert sorted(rows) == sorted(course.gradebook)
    for student, grades in course.gradebook.items():
        assert rows[student]["assignment"] == ASSIGNMENT
        assert float(rows[student]["score"]) == sum(score for score, _, _ in grades.values())
        assert float(rows[student]["max_score"]) == CONFIG.assignment_total(ASSIGNMENT)


def test_edited_and_deleted_check_cells_are_graded_as_the_originals(course):
    """nbgrader restores edited locked cells by itself; deleted ones are put back and run."""
    tamper = {c: v[0] for c, v in course.gradebook["tamper"].items()}
    # partial's code; its swap_rows was the stub, so deleting it changes nothing
    assert tamper == {c: v[0] for c, v in course.gradebook["partial"].items()}
    as_left = {"check_set_element": 1.0, "check_histogram": 4.0}
    assert all(tamper[cell] != points for cell, points in as_left.items())
    cells = [c for c in course.autograded["tamper"].cells if _grade_id(c)]
    ids = [_grade_id(c) for c in cells]
    assert [i for i in ids if i in CHECK_CELLS] == CHECK_CELLS, "each check cell back in its place"
    for cell in cells:
        if _grade_id(cell) in CHECK_CELLS:
            function = _grade_id(cell).removeprefix("check_")
            assert cell.source.endswith(f'check("{function}", globals())')
            assert ("was missing from the submission" in cell.source) == (_grade_id(cell) in DELETED)


def test_a_kernel_that_dies_costs_the_cells_it_did_not_run(course):
    grades = {c: v[0] for c, v in course.gradebook["dead"].items()}
    assert grades == {"check_set_element": 5, "check_set_diagonal": 0, "check_histogram": 0, "check_swap_rows": 0}
    cells = {_grade_id(c): c for c in course.autograded["dead"].cells}
    assert cells["set_diagonal_solution"].outputs[-1].evalue == KERNEL_DIED
    assert all(cells[c].outputs[-1].evalue == NOT_RUN for c in CHECK_CELLS[1:])
    text = course.feedback_text("dead")
    assert KERNEL_DIED in text and NOT_RUN in text


def test_a_resubmission_whose_kernel_dies_does_not_keep_earlier_full_marks(course):
    assert course.gradebook["full"]["check_swap_rows"][0] == 4
    assert course.resubmission.returncode == 0, course.resubmission.stderr[-5000:]
    grades = {c: v[0] for c, v in course.later["full"].items()}
    assert grades == {"check_set_element": 5, "check_set_diagonal": 0, "check_histogram": 0, "check_swap_rows": 0}


def test_a_cell_that_ignores_the_interrupt_costs_the_cells_after_it(course):
    assert course.stuck.returncode == 0, course.stuck.stderr[-5000:]
    score, _, needs_manual = zip(*course.later["stuck"].values(), strict=True)
    assert set(score) == {0} and not any(needs_manual)
    cells = {_grade_id(c): c for c in course.autograded["stuck"].cells}
    assert cells["set_element_solution"].outputs[-1].evalue == KERNEL_STUCK
    assert all(cells[c].outputs[-1].evalue == NOT_RUN for c in CHECK_CELLS)


def test_autograder_seed_overrides_the_seed_policy(monkeypatch):
    monkeypatch.setenv(grading_config.SEED_ENVIRONMENT_VARIABLE, "1234")
    assert CONFIG.resolve_seed("check", None) == 1234
    assert CONFIG.resolve_seed("grade", None) == 1234
    assert CONFIG.resolve_seed("check", 5) == 5            # an explicit --seed still wins
    monkeypatch.setenv(grading_config.SEED_ENVIRONMENT_VARIABLE, "soon")
    with pytest.raises(grading_config.GradingConfigError, match="AUTOGRADER_SEED"):
        CONFIG.resolve_seed("check", None)
