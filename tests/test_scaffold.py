"""`autograder new-assignment` writes an assignment the kit picks up at once: discovered from grading.toml,
held to every assignment-wide check, its stub scoring 0, and failing only where a person must write.

The scaffold runs into a copy of the repository's parts it touches; the copy's own tests run there in a
subprocess (so they import the copy's `autograder`, with the new suite and catalog), without nbgrader.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import nbformat
import pytest
from conftest import REPO

from autograder import grading_config
from autograder.authoring.plan import ScaffoldError
from autograder.authoring.scaffold import PLACEHOLDER, new_assignment

NAME = "10_scaffolded"
FUNCTIONS = ["clipped_norm", "checked_divide"]
SIGNATURES = ["clipped_norm", "checked_divide(a, b)"]  # as given to --functions: a name alone takes one array x
# With every helper module of tests/ (conftest.py, corpus_cases.py...), found by name.
COPIED = ("autograder", "grading.toml", "pyproject.toml", "solutions", "docs/curriculum.md", "tests/corpus",
          "tests/test_grading_config.py", "tests/test_layout.py", "tests/test_translations.py",
          "tests/test_korean_notebooks.py", "tests/test_corpus.py", "tests/test_corpus_coverage.py",
          "tests/test_solutions_and_stubs.py", "tests/test_placeholders.py")
APPENDED = ("grading.toml",)
# The copy's tests that cover every assignment, or this one by name; the three of test_translations.py that
# run `autograder check` on other assignments' notebooks are left out (they do not look at a new one), and so
# is the released stub's test (the stub is graded below, without nbgrader's release).
SELECTED = (f"({NAME} and not test_solutions_and_stubs) or ({NAME} and inprocess and full_marks)"
            " or test_grading_config or test_layout or test_corpus_coverage or every_assignment_has"
            " or (test_translations and not korean_check and not unknown_language and not checks_in_korean)")
# The copy's tests that must fail until a person writes: the suite's references (every check of the
# solution, the stub and the corpus grades through them), the solution cells, and every "write me" left.
MUST_WRITE = {"test_solution_notebook_scores_full_marks", "test_mistake_fails_exactly_its_checks",
              "test_correct_alternative_scores_full_marks", "test_no_placeholder_is_left_unwritten"}

_GRADE = """
import json, sys
from autograder import grading_config
from autograder.grade.pipeline import GradingOptions, grade_submission
config = grading_config.load()
scores = {}
for path in sys.argv[1:]:
    result = grade_submission(path, config, GradingOptions(seed=1, sandbox="inprocess"))
    scores[path] = {"score": result.score, "max_score": result.max_score,
                    "feedback": {check.name: check.feedback for check in result.checks}}
print(json.dumps(scores))
"""


def _copy(root: Path) -> None:
    helpers = [str(path.relative_to(REPO)) for path in (REPO / "tests").glob("*.py")
               if not path.stem.startswith("test_")]
    for part in (*COPIED, *helpers):
        source, target = REPO / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)


def _stub(solution: Path, stub: Path) -> None:
    """What nbgrader releases: each solution region replaced by `raise NotImplementedError()`."""
    notebook = nbformat.read(solution, as_version=4)
    for cell in notebook.cells:
        cell.source = re.sub(r"( *)### BEGIN SOLUTION\n.*?### END SOLUTION",
                             r"\1# YOUR CODE HERE\n\1raise NotImplementedError()", cell.source, flags=re.S)
    stub.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, stub)


def _environment(root: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    environment["PYTHONPATH"] = str(root)  # the copy's package, not the installed one
    return environment


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=root, env=_environment(root), capture_output=True,
                          text=True, timeout=1200)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repository")
    _copy(root)
    new_assignment(root, NAME, SIGNATURES)
    _stub(root / "solutions" / NAME / f"{NAME}.ipynb", root / "assignments" / NAME / f"{NAME}.ipynb")
    return root


@pytest.fixture(scope="module")
def graded(scaffolded) -> dict:
    """The scaffold's solution notebook and its released stub, graded by the copy's kit."""
    solution = f"solutions/{NAME}/{NAME}.ipynb"
    stub = f"assignments/{NAME}/{NAME}.ipynb"
    completed = _run(scaffolded, "-c", _GRADE, solution, stub)
    assert completed.returncode == 0, completed.stderr[-3000:]
    scores = json.loads(completed.stdout.strip().splitlines()[-1])
    return {"solution": scores[solution], "stub": scores[stub]}


@pytest.fixture(scope="module")
def copy_tests(scaffolded) -> dict[str, str | None]:
    """Each selected test of the copy: None when it passed, else its failure message."""
    report = scaffolded / "report.xml"
    completed = _run(scaffolded, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", SELECTED,
                     f"--junitxml={report}", "tests")
    assert report.exists(), completed.stdout[-3000:] + completed.stderr[-3000:]
    outcomes: dict[str, str | None] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = (
            None if problem is None else f"{problem.get('message')}\n{problem.text}")
    assert outcomes, completed.stdout[-3000:]
    return outcomes


def test_the_new_assignment_is_discovered_from_grading_toml(scaffolded):
    config = grading_config.load(scaffolded / "grading.toml")
    assert NAME in config.assignments
    assert config.functions(NAME) == FUNCTIONS
    assert all(config.function_total(NAME, f) > 0 for f in FUNCTIONS)


def test_appended_files_keep_their_existing_text_byte_for_byte(scaffolded):
    for part in APPENDED:
        before, after = (REPO / part).read_bytes(), (scaffolded / part).read_bytes()
        assert after.startswith(before) and len(after) > len(before), f"{part} was rewritten, not appended to"


def test_check_cells_carry_the_points_of_grading_toml(scaffolded):
    config = grading_config.load(scaffolded / "grading.toml")
    for notebook in (f"solutions/{NAME}/{NAME}.ipynb", f"solutions/ko/{NAME}/{NAME}.ipynb"):
        cells = nbformat.read(scaffolded / notebook, as_version=4).cells
        points = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"].get("points") for c in cells
                  if c.metadata.get("nbgrader", {}).get("grade")}
        assert points == {f"check_{f}": config.function_total(NAME, f) for f in FUNCTIONS}


def test_the_released_stub_scores_zero(graded):
    assert graded["stub"]["max_score"] == len(FUNCTIONS)
    assert graded["stub"]["score"] == 0
    assert set(graded["stub"]["feedback"]) == {f"{f}: correct" for f in FUNCTIONS}


def test_the_solution_fails_every_check_with_write_me(graded):
    solution = graded["solution"]
    assert solution["score"] == 0
    assert set(solution["feedback"]) == {f"{f}: correct" for f in FUNCTIONS}
    assert all(PLACEHOLDER in feedback for feedback in solution["feedback"].values()), solution["feedback"]


def _about_it(message: str) -> bool:
    """Whether a failure names the new assignment or one of its functions (a wide check lists its offenders)."""
    return any(word in message for word in (NAME, *FUNCTIONS))


def test_every_assignment_wide_check_passes_for_it(copy_tests):
    failed = {name: message for name, message in copy_tests.items()
              if message is not None and name.rsplit("::", 1)[1].split("[")[0] not in MUST_WRITE
              and _about_it(message)}
    assert not failed, "\n\n".join(f"{name}: {message}" for name, message in failed.items())
    assert any("test_same_checks_and_setup" in name and NAME in name for name in copy_tests)
    assert any("test_every_test_has_points" in name for name in copy_tests)


def test_only_the_tests_of_what_a_person_writes_fail_and_they_say_write_me(copy_tests):
    failed = {name: message for name, message in copy_tests.items() if message is not None and _about_it(name)}
    assert {name.rsplit("::", 1)[1].split("[")[0] for name in failed} == MUST_WRITE
    assert all(NAME in name for name in failed)
    assert all(PLACEHOLDER in message for message in failed.values()), failed


def test_the_generated_python_passes_the_linter(scaffolded):
    files = [f"autograder/suites/test_{NAME}.py", f"autograder/suites/messages_{NAME}.py"]
    completed = _run(scaffolded, "-m", "ruff", "check", "--no-cache", *files)
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_a_signature_given_to_functions_is_used_in_every_file(scaffolded):
    suite = (scaffolded / "autograder" / "suites" / f"test_{NAME}.py").read_text(encoding="utf-8")
    assert "def _checked_divide(a, b):" in suite and "def _clipped_norm(x):" in suite
    assert 'expect_output(submission, "checked_divide", (a, b), _checked_divide(a, b))' in suite
    for notebook in (scaffolded / "solutions" / NAME / f"{NAME}.ipynb",
                     scaffolded / "solutions" / "ko" / NAME / f"{NAME}.ipynb"):
        assert "def checked_divide(a, b):" in notebook.read_text(encoding="utf-8")
    for module in ("mistakes/right_structure_wrong_values.py", "correct/alternative.py"):
        assert "def checked_divide(a, b):" in (scaffolded / "tests" / "corpus" / NAME / module).read_text()


def test_the_corpus_names_a_wrong_values_mistake_per_function(scaffolded):
    cases = tomllib.loads((scaffolded / "tests" / "corpus" / NAME / "cases.toml").read_text(encoding="utf-8"))
    assert sorted(case["function"] for case in cases["mistake"]) == sorted(FUNCTIONS)
    assert cases["correct"][0]["functions"] == FUNCTIONS


def test_a_taken_name_or_function_is_refused_and_nothing_is_written(scaffolded):
    before = (scaffolded / "grading.toml").read_bytes()
    with pytest.raises(ScaffoldError, match="already grades"):
        new_assignment(scaffolded, NAME, ["another_function"])
    with pytest.raises(ScaffoldError, match=f"{FUNCTIONS[0]} \\(in {NAME}\\)"):
        new_assignment(scaffolded, "11_other", [FUNCTIONS[0]])
    with pytest.raises(ScaffoldError, match="two digits"):
        new_assignment(scaffolded, "autodiff", ["f"])
    assert (scaffolded / "grading.toml").read_bytes() == before
    assert not (scaffolded / "autograder" / "suites" / "test_11_other.py").exists()


@pytest.mark.parametrize("given", ["f(x=1)", "f(*xs)", "f(x, **options)", "f()", "f(x"])
def test_a_signature_that_is_not_plain_parameter_names_is_refused(scaffolded, given):
    with pytest.raises(ScaffoldError, match="plain parameter names|lowercase Python identifiers"):
        new_assignment(scaffolded, "11_refused", [given])
    assert not (scaffolded / "autograder" / "suites" / "test_11_refused.py").exists()


def test_a_curriculum_section_the_spec_already_holds_is_kept_as_it_is(tmp_path):
    _copy(tmp_path)
    curriculum = tmp_path / "docs" / "curriculum.md"
    curriculum.write_text(curriculum.read_text(encoding="utf-8") + "\n## 12_specified — from the spec\n\nkept\n",
                          encoding="utf-8")
    before = curriculum.read_bytes()
    made = new_assignment(tmp_path, "12_specified", ["specified_function"])
    assert curriculum.read_bytes() == before
    assert [str(path) for path in made.appended] == ["grading.toml"]
    assert not (tmp_path / "docs" / "curriculum" / "12_specified.md").exists()
    assert "docs/curriculum" not in " ".join(str(path) for path in made.to_edit())


def test_the_curriculum_section_is_the_assignments_own_file(scaffolded):
    """The scaffold writes the section beside the curriculum, in a file of its own; docs/curriculum.md is as it was."""
    assert (scaffolded / "docs" / "curriculum.md").read_bytes() == (REPO / "docs" / "curriculum.md").read_bytes()
    section = (scaffolded / "docs" / "curriculum" / f"{NAME}.md").read_text(encoding="utf-8")
    assert section.startswith(f"## {NAME} — ") and all(f"`{f}(" in section for f in FUNCTIONS)
