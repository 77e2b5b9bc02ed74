"""`nbgrader autograde` and `generate_feedback` take only the regular files a student handed in, never a link.

A real course directory (the repository's nbgrader_config.py), real nbgrader, real confined kernels:
  alice    the reference solutions, a data file and a cell that reads it (honest)
  mallory  the reference solutions, and in her folder links to the gradebook, the assignment's
           source/, Alice's folder and notebook, a root-only file, and a folder of her own holding
           one more link; a cell prints every file her kernel can read
  trudy    a notebook that is itself a link to Alice's
nbgrader (root) once copied every link's target into autograded/ and feedback/, where Mallory's kernel
printed them and her feedback handed them back, and graded Trudy's link as her own notebook (full
marks). Now: Alice and Mallory keep full marks, nothing linked reaches autograded/, the kernel or
feedback/, Mallory's feedback names what was not copied, and Trudy scores 0 with the sentence
`autograder grade` says.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from conftest import SEED
from formgrader_http import get_with_token, post_with_token, start_formgrader
from nbgrader_courses import honest_notebook, released_course, run_nbgrader, scores, submission_folder

from autograder import grading_config
from autograder.catalog import messages
from autograder.sandbox.parent import SUBMISSION_CAP_BYTES

ASSIGNMENT = "01_immutable_updates"
TOTAL = sum(grading_config.load().function_total(ASSIGNMENT, f) for f in grading_config.load().functions(ASSIGNMENT))
SECRET = "root-only-secret-5d1f"
ALICE_MARK = "alice-own-work-93ab"
DATA = "1.5\n2.5\n"
READS_DATA = f"with open('data.txt') as f:\n    assert f.read() == {DATA!r}\nprint('data file read')"
PRINTS_EVERYTHING = r'''
import os
for folder, _, names in os.walk("."):
    for name in names:
        path = os.path.join(folder, name)
        try:
            print("FILE", path, open(path, "rb").read(4000))
        except OSError as error:
            print("FILE", path, "unreadable", type(error).__name__)
'''

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="the confined kernel needs root and bubblewrap")


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT, seed=SEED)
    honest = honest_notebook(root, ASSIGNMENT)
    alice = submission_folder(root, "alice", ASSIGNMENT)
    own = nbformat.from_dict(honest)
    own.cells.append(nbformat.v4.new_code_cell(f"# {ALICE_MARK}\n{READS_DATA}"))
    nbformat.write(own, alice / f"{ASSIGNMENT}.ipynb")
    (alice / "data.txt").write_text(DATA)
    secret = tmp_path_factory.mktemp("private") / "secret.txt"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    run_nbgrader(root, "autograde", ASSIGNMENT, "--student", "alice", seed=SEED)  # the gradebook exists
    mallory = submission_folder(root, "mallory", ASSIGNMENT)
    attack = nbformat.from_dict(honest)
    attack.cells.insert(1, nbformat.v4.new_code_cell(PRINTS_EVERYTHING))
    nbformat.write(attack, mallory / f"{ASSIGNMENT}.ipynb")
    links = {"gradebook.db": root / "gradebook.db", "source": root / "solutions" / ASSIGNMENT,
             "classmate": alice, "classmate.txt": alice / f"{ASSIGNMENT}.ipynb", "secret.txt": secret}
    for name, target in links.items():
        os.symlink(target, mallory / name)
    (mallory / "mine").mkdir()
    (mallory / "mine" / "notes.txt").write_text("my own notes")
    os.symlink(secret, mallory / "mine" / "deeper.txt")
    trudy = submission_folder(root, "trudy", ASSIGNMENT)
    os.symlink(alice / f"{ASSIGNMENT}.ipynb", trudy / f"{ASSIGNMENT}.ipynb")
    graded = run_nbgrader(root, "autograde", ASSIGNMENT, "--force", seed=SEED)
    assert graded.returncode == 0, graded.stderr[-3000:]
    feedback = run_nbgrader(root, "generate_feedback", ASSIGNMENT, "--force", seed=SEED)
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    return root


def _tree(folder: Path) -> dict[str, str]:
    """Every entry under `folder`, and what it is (a link is never followed)."""
    return {str(p.relative_to(folder)): "link" if p.is_symlink() else "folder" if p.is_dir() else "file"
            for p in sorted(folder.rglob("*"))}


def _outputs(notebook: Path) -> str:
    """What the notebook's code cells show, its lines joined by single spaces (the feedback table wraps)."""
    cells = nbformat.read(notebook, as_version=4).cells
    shown = [output.get("text") or output.get("evalue") or output.get("data", {}).get("text/plain", "")
             for cell in cells if cell.cell_type == "code" for output in cell.outputs]
    return " ".join(" ".join(shown).split())


def test_honest_students_keep_full_marks_and_their_own_data_files(course):
    marks = scores(course, ASSIGNMENT)
    assert sum(marks["alice"].values()) == TOTAL and sum(marks["mallory"].values()) == TOTAL, marks
    assert "data file read" in _outputs(course / "autograded" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")


def test_nothing_linked_reaches_autograded_the_kernel_or_feedback(course):
    autograded = course / "autograded" / "mallory" / ASSIGNMENT
    assert _tree(autograded) == {f"{ASSIGNMENT}.ipynb": "file", "mine": "folder", "mine/notes.txt": "file"}
    printed = _outputs(autograded / f"{ASSIGNMENT}.ipynb")
    assert "mine/notes.txt" in printed, "her kernel read her own files"
    for leaked in (SECRET, "SQLite format 3", ALICE_MARK, "data.txt", "_solution"):
        assert leaked not in printed, leaked
    feedback = course / "feedback" / "mallory" / ASSIGNMENT
    assert set(_tree(feedback)) <= {f"{ASSIGNMENT}.html", "mine", "mine/notes.txt"}, _tree(feedback)
    assert all(kind != "link" for kind in _tree(feedback).values())


def test_the_feedback_names_the_files_not_copied(course):
    printed = _outputs(course / "autograded" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    for name in ("gradebook.db (a symbolic link)", "secret.txt (a symbolic link)", "source (a symbolic link)",
                 "classmate (a symbolic link)", "mine/deeper.txt (a symbolic link)"):
        assert name in printed, name


def test_a_notebook_that_is_a_link_scores_0_with_the_sentence_autograder_grade_says(course):
    assert sum(scores(course, ASSIGNMENT)["trudy"].values()) == 0
    sentence = messages.text("load.not_a_file", file=f"{ASSIGNMENT}.ipynb", why="a symbolic link",
                             limit_mib=SUBMISSION_CAP_BYTES >> 20)
    autograded = course / "autograded" / "trudy" / ASSIGNMENT
    assert _tree(autograded) == {f"{ASSIGNMENT}.ipynb": "file"}
    printed = _outputs(autograded / f"{ASSIGNMENT}.ipynb")
    assert sentence in printed and ALICE_MARK not in printed


def test_the_formgraders_autograde_button_refuses_a_linked_notebook_too(course):
    """The formgrader runs autograde in its own process, with the converters nbgrader_config.py installs there."""
    tom = submission_folder(course, "tom", ASSIGNMENT)
    os.symlink(course / "submitted" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", tom / f"{ASSIGNMENT}.ipynb")
    token = secrets.token_hex(16)
    server, base = start_formgrader(course, token)
    try:
        assert get_with_token(f"{base}/formgrader/api/status", token)[0] == 200
        status, body = post_with_token(f"{base}/formgrader/api/submission/{ASSIGNMENT}/tom/autograde", token)
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert status == 200 and json.loads(body)["success"], body[-3000:]
    assert sum(scores(course, ASSIGNMENT)["tom"].values()) == 0
    assert ALICE_MARK not in _outputs(course / "autograded" / "tom" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
