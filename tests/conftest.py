"""Shared fixtures for the kit's own tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import grading_config

REPO = Path(__file__).resolve().parent.parent
# A fixed seed keeps the kit's tests reproducible; test_reproducibility varies it.
SEED = int(os.environ.get("AUTOGRADER_TEST_SEED", "20261121"))
# Every `autograder check` these tests start runs on its own: a warm server would outlive the test that started
# it (ten minutes idle). tests/test_warm_checks.py turns warm starts on where it tests them, and ends its servers.
os.environ["AUTOGRADER_WARM_CHECKS"] = "off"


# --- test tiers (README "Tests"; `make test-fast`, `make test-assignment A=NAME`) -------------------
# Every test is in exactly one tier. Slow tiers are named after what makes them slow: a subprocess
# of nbgrader or Jupyter, building and installing the student wheel in a fresh venv, the OS sandbox
# (needs root), a headless browser, whole batches through `autograder grade` (worker processes,
# sandbox children, CPU-time limits). "assignment": the suites run against submissions, per
# assignment (the corpus, solutions and stubs). Everything else is "unit": no marker needed.
SLOW_TIERS = ("nbgrader", "wheel", "sandbox", "browser", "grade", "jax_matrix")
TIERS = {
    # The student package on every supported JAX, in venvs of their own: `make test-jax-versions`, not `make test`.
    "jax_matrix": ("test_jax_versions",),
    "nbgrader": ("test_nbgrader_release", "test_nbgrader_roundtrip", "test_nbgrader_validate",
                 "test_nbgrader_sandboxed_grades", "test_nbgrader_kernel_sandbox", "test_check_cells",
                 "test_example_cells", "test_benchmark_smoke", "test_nbgrader_feedback",
                 "test_nbgrader_kernel_confined"),
    "wheel": ("test_student_dist", "test_gradescope_zip", "test_course_directory"),
    "sandbox": ("test_os_sandbox", "test_attacks", "tests/attacks/"),
    "browser": ("test_check_cell_rendering", "test_class_report.py::test_report_renders_in_a_headless_browser"),
    "grade": ("test_shards", "test_cpu_time_limits", "test_class_grading", "test_batch_grading", "test_class_report",
              "test_shared_programs", "test_github_classroom",
              "test_worker_sessions.py::test_a_submission_of_an_assignment_not_collected_gets_the_same_grade",
              "test_out_dir_safety.py::test_batch_with_planted_fifos_links_and_directories_finishes_normally",
              "test_submission_loading.py::test_endless_loop_in_a_function_costs_only_that_function"),
    "assignment": ("test_corpus.py", "test_korean_feedback", "test_solutions_and_stubs", "test_hidden_inputs",
                   "test_scaffold", "test_student_placements"),
}
# Tests that cover every assignment at once without naming one in their ids: `--assignment NAME` keeps them.
ASSIGNMENT_WIDE = ("test_grading_config", "test_layout", "test_translations", "test_corpus_coverage",
                   "test_suite_api", "test_korean_notebooks.py::test_every_assignment_has_a_korean_notebook")


def pytest_addoption(parser):
    parser.addoption("--assignment", metavar="NAME",
                     help="only the tests that cover assignment NAME: ids naming it, and ASSIGNMENT_WIDE")


def pytest_configure(config):
    for tier in (*TIERS, "unit"):
        config.addinivalue_line("markers", f"{tier}: test tier (tests/conftest.py TIERS)")


def _tier(item) -> str:
    """The first tier whose table entry names the item's module (or module::test); the OS backend is "sandbox"."""
    where = item.nodeid.split("[")[0]
    params = getattr(getattr(item, "callspec", None), "params", {})
    if params.get("backend") == "os":
        return "sandbox"
    for tier, entries in TIERS.items():
        if any(_names(entry, where) for entry in entries):
            return tier
    return "unit"


def _names(entry: str, where: str) -> bool:
    """Whether a TIERS entry names the test at `where`: a bare module name matches that module only
    (test_corpus, not test_corpus_coverage); a path, folder or module::test matches as written."""
    return entry in where if "::" in entry or entry.endswith((".py", "/")) else f"/{entry}.py" in where


def _covers(item, assignment: str) -> bool:
    where = item.nodeid.split("[")[0]
    return assignment in item.nodeid.split("::")[-1] or any(_names(entry, where) for entry in ASSIGNMENT_WIDE)


# The longest files first, every one over 10 s (worker time in a full run), longest to shortest: with
# `-n 2 --dist loadfile --no-loadscope-reorder` (the Makefile) files start in this order, so short ones
# fill the end and no worker idles waiting for the other's last long file. Without the flag, xdist starts
# the files with the most tests first (a 2-test, 2-minute file then started last: 66 s of one worker idle).
LONGEST_FIRST = (
    "test_corpus.py", "test_student_dist.py", "test_cpu_time_limits.py", "test_nbgrader_validate.py",
    "test_check_cells.py", "test_benchmark_smoke.py", "test_nbgrader_kernel_confined.py", "test_nbgrader_roundtrip.py",
    "test_solutions_and_stubs.py", "test_attacks.py", "test_nbgrader_sandboxed_grades.py", "test_class_grading.py",
    "test_killing_the_grader_ends_every_process.py", "test_shards.py", "test_batch_grading.py",
    "test_korean_feedback.py", "test_nbgrader_release.py", "test_shared_programs.py", "test_class_report.py",
    "test_out_dir_safety.py", "test_nbgrader_kernel_sandbox.py", "test_check_cell_rendering.py", "test_file_choice.py",
    "test_student_advice.py", "test_submission_loading.py", "test_exported_programs_run_in_a_clean_room.py",
    "test_gradescope_zip.py", "test_nbgrader_feedback.py", "test_github_classroom.py", "test_zygote.py",
    "test_identity_from_layout_top.py", "test_worker_sessions.py", "test_hostile_json_costs_only_itself.py",
    "test_clean_room_runner.py",
)


def _start_rank(item) -> int:
    file_name = item.nodeid.split("::")[0].rsplit("/", 1)[-1]
    return LONGEST_FIRST.index(file_name) if file_name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_start_rank)  # stable: each file's tests stay together and in order
    for item in items:
        item.add_marker(getattr(pytest.mark, _tier(item)))
    assignment = config.getoption("--assignment")
    if assignment:
        kept = [item for item in items if _covers(item, assignment)]
        config.hook.pytest_deselected(items=[item for item in items if item not in kept])
        items[:] = kept


@pytest.fixture(scope="session")
def config():
    return grading_config.load()


@pytest.fixture(scope="session")
def seed():
    return SEED


@pytest.fixture(scope="session")
def kernel_jax_cache(tmp_path_factory) -> dict[str, str]:
    """Environment variables that give the plain Jupyter kernels these tests start one JAX compilation cache.

    The same notebooks run in several tests' kernels (check cells, `nbgrader validate`); each kernel
    loads what an earlier one compiled instead of compiling it again (06's solution: 19.5 s to 7.5 s).
    The cache is keyed by the whole program, so no outcome changes. One directory for the run, shared
    by the xdist workers; only kit notebooks run in these kernels, never a submission.
    """
    base = tmp_path_factory.getbasetemp()
    directory = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "kernel-jax-cache"
    directory.mkdir(exist_ok=True)
    return {"JAX_COMPILATION_CACHE_DIR": str(directory), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}


def course_config(directory: Path, text: str) -> Path:
    """`text` as grading.toml in `directory`, the repository's solutions linked beside it: a course directory.

    A batch builds its store of shared programs from the solutions beside its grading.toml; a config
    alone in a folder grades the same, each child compiling JAX's own programs itself (seconds slower).
    """
    path = directory / "grading.toml"
    path.write_text(text)
    (directory / "solutions").symlink_to(REPO / "solutions", target_is_directory=True)
    return path


def run_cli(*args: str, cwd: Path = REPO, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run the real `autograder` command line in a subprocess."""
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)
