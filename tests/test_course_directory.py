"""A course of one's own: with the kit installed by pip, a course directory outside any checkout goes through
the whole cycle, and nothing is written next to the installed kit or into any checkout of it.

The venvs are made without downloading the dependencies (tests/kit_venvs.py); the kit is installed from a
copy of the working tree, non-editable, or editable from a copy standing for another clone.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import REPO
from kit_venvs import fresh_venv, install, kit_source, site_packages
from nbgrader.api import Gradebook

ASSIGNMENT = "11_doubling"
REFERENCE = "return 2 * x"


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` but Python's own bytecode caches: its size and modification time."""
    found = {}
    for folder, directories, names in os.walk(root):
        directories[:] = [d for d in directories if d != "__pycache__"]
        for name in names:
            status = os.lstat(os.path.join(folder, name))
            found[os.path.relpath(os.path.join(folder, name), root)] = (status.st_size, status.st_mtime_ns)
    return found


def _changed(before: dict, after: dict) -> list[str]:
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The `autograder` command of a fresh venv holding the kit installed by pip from a copy, non-editable."""
    root = tmp_path_factory.mktemp("pip-installed-kit")
    python = fresh_venv(root / "venv")
    install(python, kit_source(root / "source"))
    return python.parent / "autograder"


def _run(autograder: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    completed = subprocess.run([str(autograder), *args], cwd=cwd, capture_output=True, text=True, timeout=1800)
    assert completed.returncode == 0, (args, completed.stdout[-2000:], completed.stderr[-3000:])
    assert "Traceback" not in completed.stderr, completed.stderr[-3000:]
    return completed


def _write_the_placeholders(course: Path) -> None:
    """What the author writes where the scaffold says "write me": the reference, in the suite and notebooks."""
    suite = course / "suites" / f"test_{ASSIGNMENT}.py"
    suite.write_text(suite.read_text().replace('raise NotImplementedError("write me: the reference value of double")',
                                               REFERENCE))
    for language in ("", "ko"):
        path = course / "solutions" / language / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            cell.source = cell.source.replace('raise NotImplementedError("write me: the reference solution of '
                                              'double")', REFERENCE)
        nbformat.write(notebook, path)


def _answered(released: Path) -> nbformat.NotebookNode:
    """The released notebook as a student hands it in, with `double` written."""
    notebook = nbformat.read(released, as_version=4)
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "double_solution":
            cell.source = f"def double(x):\n    {REFERENCE}\n"
    return notebook


def _sandbox(autograder: Path) -> str:
    """The OS sandbox where this machine has it (Linux, root, bubblewrap), else the process sandbox."""
    probe = subprocess.run([str(autograder.parent / "python"), "-c",
                            "import sys; from autograder.sandbox import os_isolation; "
                            "os_isolation.check_available(sys.executable)"], capture_output=True, timeout=300)
    return "os" if probe.returncode == 0 else "process"


def _grades(out: Path) -> dict[str, float]:
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        return {row["student"]: float(row["score"]) for row in csv.DictReader(handle)}


def _gradescope_score(zip_path: Path, notebook: Path, python: Path, scratch: Path) -> float:
    """The score run_autograder gives `notebook`, the zip unpacked as Gradescope lays it out (/autograder/source),
    with `python` standing for the venv setup.sh would have made from the zip's wheel."""
    root = scratch / "gradescope"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    (root / "source" / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    shutil.copy(notebook, root / "submission" / notebook.name)
    environment = dict(os.environ, AUTOGRADER_GRADESCOPE_ROOT=str(root), AUTOGRADER_GRADESCOPE_PYTHON=str(python))
    completed = subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=environment,
                               capture_output=True, text=True, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return float(json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))["score"])


def _nbgrader(python: Path, course: Path, *args: str, sandbox: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PATH=f"{python.parent}{os.pathsep}{os.environ['PATH']}", AUTOGRADER_SEED="2026")
    settings = [] if sandbox == "os" else ["--GradeCheckCellsInSandbox.sandbox=process",
                                           "--ExecuteUntilKernelDies.confine_kernel=False"]
    completed = subprocess.run([str(python), "-m", "nbgrader", *args, *settings], cwd=course, env=environment,
                               capture_output=True, text=True, timeout=1800)
    assert completed.returncode == 0, (args, completed.stderr[-3000:])
    return completed


def test_the_whole_cycle_in_a_course_directory_with_the_kit_installed_by_pip(installed, tmp_path):
    site = site_packages(installed.parent.parent)
    source = installed.parent.parent.parent / "source"
    kit_before, site_before, source_before = _files(REPO / "assignments"), _files(site), _files(source)
    sandbox = _sandbox(installed)
    _run(installed, "init-course", "course", "--assignments", "none", cwd=tmp_path)
    course = tmp_path / "course"
    _run(installed, "new-assignment", ASSIGNMENT, "--functions", "double", cwd=course)
    _write_the_placeholders(course)

    released = _run(installed, "release", "--student-dist", "dist", cwd=course)
    assert f"release: wrote {course / 'assignments' / ASSIGNMENT}" in released.stdout
    wheel = course / "dist" / "jax_exercises_student-0.1.0-py3-none-any.whl"
    assert wheel.is_file() and (course / "dist" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file()

    handed_out = course / "dist" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    solution = course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    _run(installed, "grade", str(handed_out), str(solution), "--out", "graded", "--assignment", ASSIGNMENT,
         "--sandbox", sandbox, cwd=course)
    assert _grades(course / "graded") == {"dist": 0.0, "solutions": 1.0}

    _run(installed, "gradescope-zip", ASSIGNMENT, "-o", "gs.zip", "--sandbox", sandbox, cwd=course)
    with zipfile.ZipFile(course / "gs.zip") as archive:
        assert archive.read("grading.toml") == (course / "grading.toml").read_bytes()
        own_suite = course / "suites" / f"test_{ASSIGNMENT}.py"
        assert archive.read(f"suites/test_{ASSIGNMENT}.py") == own_suite.read_bytes()
        kit_wheel = zipfile.ZipFile(io.BytesIO(archive.read("autograder-0.1.0-py3-none-any.whl")))
        assert "autograder/suites/test_02_where.py" in kit_wheel.namelist()
        assert not [name for name in kit_wheel.namelist() if "kit_course" in name or name.startswith("solutions")]
    assert _gradescope_score(course / "gs.zip", solution, installed.parent / "python", tmp_path) == 1.0

    _nbgrader(installed.parent / "python", course, "generate_assignment", ASSIGNMENT, "--force", sandbox=sandbox)
    submitted = course / "submitted" / "kim" / ASSIGNMENT
    submitted.mkdir(parents=True)
    nbformat.write(_answered(course / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"),
                   submitted / f"{ASSIGNMENT}.ipynb")
    _nbgrader(installed.parent / "python", course, "autograde", ASSIGNMENT, "--create", sandbox=sandbox)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        graded = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, "kim")
        assert {grade.name: grade.score for grade in graded.grades} == {"check_double": 1.0}

    assert _changed(site_before, _files(site)) == []
    assert _changed(source_before, _files(source)) == []
    assert _changed(kit_before, _files(REPO / "assignments")) == []
    assert not [path for path in (REPO / "solutions", REPO / "autograder" / "suites") if
                list(path.rglob(f"*{ASSIGNMENT}*"))]


def test_release_in_clone_b_with_the_kit_installed_from_clone_a_changes_b_and_not_a(tmp_path):
    clone_a = kit_source(tmp_path / "clone-a")  # the working tree's kit, as another clone of it
    python = fresh_venv(tmp_path / "venv")
    install(python, clone_a, editable=True)
    clone_b = tmp_path / "clone-b"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(clone_b)], check=True)
    toml = clone_b / "grading.toml"
    toml.write_text(toml.read_text().replace('[assignments.02_where.selu]\n"correct" = 2',
                                             '[assignments.02_where.selu]\n"correct" = 7'))
    assert '"correct" = 7' in toml.read_text()
    a_before = _files(clone_a)

    released = _run(python.parent / "autograder", "--config", str(toml), "release", "02_where", cwd=clone_b)

    assert f"release: wrote {clone_b / 'assignments' / '02_where'}" in released.stdout
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=clone_b, capture_output=True, text=True,
                             check=True).stdout
    for path in ("grading.toml", "solutions/02_where/02_where.ipynb", "assignments/02_where/02_where.ipynb"):
        assert path in changed, changed
    check_cell = [cell for cell in nbformat.read(clone_b / "assignments" / "02_where" / "02_where.ipynb",
                                                 as_version=4).cells
                  if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "check_selu"]
    assert check_cell[0].metadata.nbgrader.points == 8  # 7 + 1, the new points in B's release
    assert _changed(a_before, _files(clone_a)) == []
    shutil.rmtree(clone_b)


def test_a_course_laid_out_by_the_installed_kit_holds_its_ten_assignments_already_released(installed, tmp_path):
    _run(installed, "init-course", "course", cwd=tmp_path)
    course = tmp_path / "course"
    for name in ("grading.toml", "nbgrader_config.py", "solutions/ko/06_prng/06_prng.ipynb",
                 "assignments/10_parallel/10_parallel.ipynb", "assignments/release-manifest.json"):
        assert (course / name).read_bytes() == (REPO / name).read_bytes(), name
    released = _run(installed, "release", cwd=course)
    assert released.stdout.count("is unchanged since its last release") == 10, released.stdout
