"""A notebook that prints a gigabyte costs nbgrader's own process a bounded amount of memory.

A real course (the repository's nbgrader_config.py), real `nbgrader autograde`, confined kernels:
  alice    the reference solutions (honest)
  mallory  the reference solutions, a first cell that prints 1 GiB a MiB at a time, and a second
           that prints 64 MiB in one message
nbclient once kept every message in nbgrader's process before LimitOutput trimmed lines afterwards:
printing 1 GB raised nbgrader to 1.3 GiB. Now the output is counted as it arrives (per cell and per
notebook, output_budget) and each message is capped (kernel_sandbox.MAX_MESSAGE_BYTES): past the
budget the cell's output is dropped, the cell is interrupted and says why, and the later cells run.
nbgrader's peak resident memory (its own, read by getrusage as it exits) grading Mallory stays
within 256 MiB of grading Alice; both keep full marks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from conftest import SEED
from nbgrader_courses import honest_notebook, released_course, scores, submission_folder

from autograder import grading_config
from autograder.catalog import messages
from autograder.integrations import output_budget
from autograder.integrations.release import nbgrader_environment

ASSIGNMENT = "01_immutable_updates"
CONFIG = grading_config.load()
TOTAL = sum(CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT))
PRINTS_A_GIGABYTE = "line = 'x' * (1 << 20)\nfor _ in range(1024):\n    print(line, flush=True)"
PRINTS_ONE_HUGE_MESSAGE = "print('y' * (64 << 20), flush=True)"  # beyond what one message may be
MARGIN_KIB = 256 << 10
# `python -m nbgrader ARGS` that writes its own peak resident memory (KiB) to the file named first, as it exits.
MEASURED_NBGRADER = ("import atexit, resource, runpy, sys\n"
                     "path = sys.argv.pop(1)\n"
                     "atexit.register(lambda: open(path, 'w').write(str(resource.getrusage(resource.RUSAGE_SELF)"
                     ".ru_maxrss)))\n"
                     "sys.argv[0] = 'nbgrader'\n"
                     "runpy.run_module('nbgrader', run_name='__main__', alter_sys=True)\n")

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="the confined kernel needs root and bubblewrap")


def _autograde_measured(root, student: str) -> int:
    """nbgrader's peak resident memory, in KiB, autograding `student`."""
    peak = root / f"peak-{student}.txt"
    environment = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)}
    done = subprocess.run([sys.executable, "-c", MEASURED_NBGRADER, str(peak), "autograde", ASSIGNMENT,
                           "--student", student], cwd=root, env=environment, capture_output=True, text=True,
                          timeout=3600)
    assert done.returncode == 0, done.stderr[-3000:]
    return int(peak.read_text())


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """(the course, nbgrader's peak memory grading Alice, and grading Mallory), in KiB."""
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT, seed=SEED)
    honest = honest_notebook(root, ASSIGNMENT)
    nbformat.write(honest, submission_folder(root, "alice", ASSIGNMENT) / f"{ASSIGNMENT}.ipynb")
    loud = nbformat.from_dict(honest)
    loud.cells[1:1] = [nbformat.v4.new_code_cell(PRINTS_A_GIGABYTE), nbformat.v4.new_code_cell(PRINTS_ONE_HUGE_MESSAGE)]
    nbformat.write(loud, submission_folder(root, "mallory", ASSIGNMENT) / f"{ASSIGNMENT}.ipynb")
    return root, _autograde_measured(root, "alice"), _autograde_measured(root, "mallory")


def test_printing_a_gigabyte_leaves_nbgraders_memory_near_an_honest_runs(course):
    _, alice, mallory = course
    assert mallory - alice < MARGIN_KIB, f"nbgrader peaked at {mallory >> 10} MiB, {alice >> 10} MiB for Alice"


def test_the_loud_cells_are_cut_and_say_why_and_both_students_keep_full_marks(course):
    root, _, _ = course
    marks = scores(root, ASSIGNMENT)
    assert sum(marks["alice"].values()) == TOTAL and sum(marks["mallory"].values()) == TOTAL, marks
    notebook = nbformat.read(root / "autograded" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    sentence = messages.text("nbgrader.output_limit", cell_mib=output_budget.CELL_BYTES >> 20,
                             notebook_mib=output_budget.NOTEBOOK_BYTES >> 20)
    for loud in notebook.cells[1:3]:
        assert any(output.get("evalue") == sentence for output in loud.outputs), loud.outputs[-1:]
        assert sum(len(output.get("text", "")) for output in loud.outputs) <= output_budget.CELL_BYTES
    later = [output.get("ename") for cell in notebook.cells[3:] if cell.cell_type == "code" for output in cell.outputs]
    assert "KernelStuck" not in later and "NotRun" not in later, "the cells after them ran as usual"
