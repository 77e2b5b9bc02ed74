"""`nbgrader autograde` with the kit's configuration runs every student kernel in the OS sandbox.

A real course directory (the repository's nbgrader_config.py, a separate
folder with solutions/ and assignments/), real `nbgrader autograde`, real
kernels, students of 02_where:
  alice    the reference solutions, a data file next to her notebook and a
           cell that reads it and writes another (an honest notebook)
  bob      the reference solutions
  mallory  the reference solutions and a first cell that tries to
           (a) rewrite gradebook.db, (b) overwrite Alice's submitted and
           autograded notebooks and write a file at the course root,
           (c) change a file of the kit, (d) read a variable of nbgrader's
           environment, (e) connect to a port listening on this machine,
           (f) leave a process running after its kernel ends,
           and prints what each attempt did.
Alice and Bob are graded first; then Mallory alone, with a secret in
nbgrader's environment and a listening socket. Every attempt must fail,
nothing outside Mallory's own copy may change, and Alice's and Bob's grades
must stay full marks. Last, a copy of the repository used as the course
directory (run with `python -m nbgrader`, which imports that copy's kit, not
the installed one) grades an honest student with full marks.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import REPO, SEED
from formgrader_http import get_with_token
from nbgrader.api import Gradebook

from autograder import grading_config
from autograder.integrations.release import nbgrader_environment
from autograder.sandbox import os_isolation

ASSIGNMENT = "02_where"
CONFIG = grading_config.load()
TOTALS = {f"check_{f}": CONFIG.function_total(ASSIGNMENT, f) for f in CONFIG.functions(ASSIGNMENT)}
SECRET_VARIABLE = "AUTOGRADER_TEST_SECRET"
KIT_FILES = (REPO / "autograder" / "child" / "confinement.py", REPO / "autograder" / "grading_config.py")
DATA = "measurements, one a line\n1.5\n2.5\n"
READS_DATA = ("with open('data.txt') as f:\n    assert f.read() == %r\n"
              "with open('notes.txt', 'w') as f:\n    f.write('mine')\nprint('data file read')\n") % DATA

ATTACK = r'''
import json, os, socket, sqlite3, subprocess, sys
_outcome = {"uid": os.getuid()}
def _attempt(name, action):
    try:
        _outcome[name] = "done: " + str(action())
    except BaseException as error:
        _outcome[name] = "failed: " + type(error).__name__

def _rewrite_gradebook():
    db = sqlite3.connect("file:%(gradebook)s?mode=rw", uri=True)
    db.execute("UPDATE grade SET manual_score = 0")
    db.commit()
def _overwrite(path):
    with open(path, "w") as f:
        f.write("{}")
def _connect():
    socket.create_connection(("127.0.0.1", %(port)d), timeout=5).close()
def _outlive():
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", "%(marker)s"],
                            start_new_session=True).pid
def _readable(path):
    try:
        return open(path, "rb").read().decode(errors="replace")
    except OSError:
        return ""
def _environment():
    found = [p for p in os.listdir("/proc") if p.isdigit() and "%(variable)s" in _readable(f"/proc/{p}/environ")]
    return os.environ.get("%(variable)s", "") + "|".join(found)

_attempt("gradebook", _rewrite_gradebook)
_attempt("gradebook_file", lambda: open("%(gradebook)s", "ab").close())
_attempt("alice_submitted", lambda: _overwrite("%(alice_submitted)s"))
_attempt("alice_autograded", lambda: _overwrite("%(alice_autograded)s"))
_attempt("course_root", lambda: _overwrite("%(course_root)s/PWNED"))
_attempt("kit_child_file", lambda: os.close(os.open("%(kit_child)s", os.O_WRONLY | os.O_APPEND)))
_attempt("kit_trusted_file", lambda: os.close(os.open("%(kit_trusted)s", os.O_WRONLY | os.O_APPEND)))
_attempt("kit_new_file", lambda: _overwrite("%(kit_new)s"))
_attempt("network", _connect)
_attempt("outlive", _outlive)
_outcome["environment"] = _environment()
print("ATTACKS " + json.dumps(_outcome))
'''

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                reason="the confined kernel needs root and bubblewrap")


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _nbgrader(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED)} | (env or {})
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=environment, capture_output=True,
                          text=True, timeout=3600)


def _honest(root: Path) -> nbformat.NotebookNode:
    release = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    source = nbformat.read(root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    solutions = {_grade_id(c): c.source for c in source.cells if str(_grade_id(c)).endswith("_solution")}
    for cell in release.cells:
        if _grade_id(cell) in solutions:
            cell.source = solutions[_grade_id(cell)]
    return release


def _submit(root: Path, student: str, notebook, files: dict[str, str] | None = None) -> Path:
    folder = root / "submitted" / student / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{ASSIGNMENT}.ipynb")
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return folder


def _gradebook(root: Path) -> dict:
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        return {s.student_id: {g.name: g.score for g in gradebook.find_submission_notebook(
                    ASSIGNMENT, ASSIGNMENT, s.student_id).grades}
                for s in gradebook.assignment_submissions(ASSIGNMENT)}


def _files(root: Path) -> dict[str, str]:
    """Every file of the course but the gradebook and Mallory's own folders, with its hash."""
    skipped = (root / "gradebook.db", root / "autograded" / "mallory", root / "submitted" / "mallory")
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not any(p == s or s in p.parents for s in skipped)}


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course after both runs: (root, the honest run, Mallory's run, files and gradebook before Mallory,
    Mallory's attack outcome, her autograded notebook's text, the secret, whether the port was reached, marker)."""
    root = tmp_path_factory.mktemp("course")
    for name in ("nbgrader_config.py", "grading.toml"):  # a course directory: grading.toml beside nbgrader's config
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    generated = _nbgrader(root, "generate_assignment", ASSIGNMENT)
    assert generated.returncode == 0, generated.stderr
    honest = _honest(root)
    alice = copy.deepcopy(honest)
    alice.cells.append(nbformat.v4.new_code_cell(READS_DATA))
    _submit(root, "alice", alice, {"data.txt": DATA})
    _submit(root, "bob", honest)
    first = _nbgrader(root, "autograde", ASSIGNMENT)
    before = (_files(root), _gradebook(root))

    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    secret, marker = secrets.token_hex(16), f"outlive-{secrets.token_hex(8)}"
    fields = {"gradebook": root / "gradebook.db", "port": listener.getsockname()[1], "marker": marker,
              "variable": SECRET_VARIABLE, "course_root": root,
              "alice_submitted": root / "submitted" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
              "alice_autograded": root / "autograded" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
              "kit_child": KIT_FILES[0], "kit_trusted": KIT_FILES[1],
              "kit_new": REPO / "autograder" / "child" / f"{marker}.py"}
    mallory = copy.deepcopy(honest)
    mallory.cells.insert(1, nbformat.v4.new_code_cell(ATTACK % fields))
    _submit(root, "mallory", mallory)
    kit = {path: path.read_bytes() for path in KIT_FILES}
    second = _nbgrader(root, "autograde", ASSIGNMENT, "--student", "mallory", env={SECRET_VARIABLE: secret})
    try:
        listener.accept()[0].close()
        reached = True
    except BlockingIOError:
        reached = False
    finally:
        listener.close()
    path = root / "autograded" / "mallory" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = path.read_text() if path.exists() else ""
    printed = [o.text for c in nbformat.reads(text, as_version=4).cells if c.cell_type == "code"
               for o in c.outputs if o.get("text", "").startswith("ATTACKS ")] if text else []
    outcome = json.loads(printed[0][len("ATTACKS "):]) if printed else {}
    kit_unchanged = all(path.read_bytes() == content for path, content in kit.items())
    kit_new = fields["kit_new"]
    created = kit_new.exists()
    kit_new.unlink(missing_ok=True)  # never leave it in the shared tree, even when the test fails
    return dict(root=root, first=first, second=second, before=before, outcome=outcome, text=text, secret=secret,
                reached=reached, marker=marker, kit_unchanged=kit_unchanged and not created)


def test_the_runs_succeed(course):
    assert course["first"].returncode == 0, course["first"].stderr[-4000:]
    assert course["second"].returncode == 0, course["second"].stderr[-4000:]


def test_the_kernel_runs_as_its_own_uid(course):
    uid = course["outcome"]["uid"]
    assert uid >= os_isolation.FIRST_UID and uid != os.getuid()


def test_a_notebook_cannot_rewrite_the_gradebook_or_change_honest_grades(course):
    assert course["outcome"]["gradebook"].startswith("failed"), course["outcome"]
    assert course["outcome"]["gradebook_file"].startswith("failed"), course["outcome"]
    before = course["before"][1]
    assert before == {"alice": TOTALS, "bob": TOTALS}
    after = _gradebook(course["root"])
    assert {s: after[s] for s in ("alice", "bob")} == before


def test_a_notebook_cannot_change_other_students_folders_or_the_course(course):
    for attempt in ("alice_submitted", "alice_autograded", "course_root"):
        assert course["outcome"][attempt].startswith("failed"), (attempt, course["outcome"])
    assert _files(course["root"]) == course["before"][0], "nothing outside Mallory's own copy changes"


def test_a_notebook_cannot_change_the_kit(course):
    for attempt in ("kit_child_file", "kit_trusted_file", "kit_new_file"):
        assert course["outcome"][attempt].startswith("failed"), (attempt, course["outcome"])
    assert course["kit_unchanged"]


def test_a_notebook_cannot_read_nbgraders_environment(course):
    assert course["outcome"]["environment"] == ""
    assert course["secret"] not in course["text"]


def test_a_notebook_cannot_reach_the_network(course):
    assert course["outcome"]["network"].startswith("failed"), course["outcome"]
    assert not course["reached"]


def test_no_process_outlives_the_kernel(course):
    assert course["outcome"]["outlive"].startswith("done"), "the process started inside the sandbox"
    assert _processes_with(course["marker"]) == []


def test_an_honest_notebook_reads_its_data_file_and_keeps_full_marks(course):
    root = course["root"]
    notebook = nbformat.read(root / "autograded" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    last = notebook.cells[-1]
    assert [o.get("text") for o in last.outputs] == ["data file read\n"], last.outputs
    assert not (root / "submitted" / "alice" / ASSIGNMENT / "notes.txt").exists(), "its writes stay in its copy"
    assert _gradebook(root)["alice"] == TOTALS


def test_feedback_and_export_work_on_the_results(course):
    root = course["root"]
    feedback = _nbgrader(root, "generate_feedback", ASSIGNMENT, "--student", "alice")
    assert feedback.returncode == 0, feedback.stderr[-4000:]
    assert (root / "feedback" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file()
    exported = _nbgrader(root, "export", "--to", str(root / "grades.csv"))
    assert exported.returncode == 0, exported.stderr[-4000:]
    assert "alice" in (root / "grades.csv").read_text()


def _formgrader(root: Path, token: str) -> tuple[subprocess.Popen, str]:
    """A real Jupyter server with nbgrader's formgrader, on the course; (the server, its base URL)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "server", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--ServerApp.jpserver_extensions={'nbgrader.server_extensions.formgrader': True}"],
        cwd=root, env=nbgrader_environment() | {"JUPYTER_CONFIG_DIR": str(root / ".jupyter")},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return server, f"http://127.0.0.1:{port}"


def test_the_formgrader_shows_the_confined_runs_scores_and_notebooks(course):
    """nbgrader's formgrader (a real Jupyter server) reads the gradebook the confined kernels' runs wrote."""
    token = secrets.token_hex(16)
    server, base = _formgrader(course["root"], token)
    try:
        status, body = get_with_token(f"{base}/formgrader/api/submissions/{ASSIGNMENT}", token)
        assert status == 200, body[:2000]
        scores = {entry["student"]: entry["score"] for entry in json.loads(body)}
        assert scores["alice"] == scores["bob"] == sum(TOTALS.values()), scores
        status, body = get_with_token(f"{base}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}", token)
        assert status == 200, body[:2000]
        alice = next(entry for entry in json.loads(body) if entry["student"] == "alice")
        status, page = get_with_token(f"{base}/formgrader/submissions/{alice['id']}", token)
        assert status == 200, page[:2000]
        assert "data file read" in page, "the manual-grading page shows the confined kernel's output"
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_the_repository_as_course_directory_grades_with_its_own_kit(tmp_path):
    """A copy of the repository (what a fresh clone holds, plus this tree's uncommitted files) as the course."""
    clone = tmp_path / "clone"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for name in listed:
        if (REPO / name).is_file() and not name.startswith(("tests/", "benchmarks/", "examples/")):
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, clone / name)
    generated = _nbgrader(clone, "generate_assignment", ASSIGNMENT, "--force")
    assert generated.returncode == 0, generated.stderr[-4000:]
    _submit(clone, "carol", _honest(clone))
    graded = _nbgrader(clone, "autograde", ASSIGNMENT)
    assert graded.returncode == 0, graded.stderr[-4000:]
    assert _gradebook(clone)["carol"] == TOTALS


def _pip_installed_kit(tmp_path: Path) -> Path:
    """This environment's packages (hard links: seconds, no space) with the kit installed as `pip install` does,
    not editable: the Python of the new environment."""
    venv = tmp_path / "venv"
    subprocess.run(["cp", "-al", sys.prefix, str(venv)], check=True)
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    for path in site.glob("__editable__*autograder*"):
        path.unlink()
    for path in site.glob("autograder-*.dist-info"):
        shutil.rmtree(path)
    source = tmp_path / "kit-source"  # built outside the repository: pip leaves build files where it builds
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for name in listed:
        if (REPO / name).is_file() and name.startswith(("autograder/", "pyproject.toml", "README.md")):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    python = venv / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(source)],
                               capture_output=True, text=True, timeout=1800)
    assert installed.returncode == 0, installed.stderr[-4000:]
    return python


def test_a_kit_installed_with_pip_grades_a_separate_course_directory(tmp_path):
    """The third documented layout: the kit installed with pip (no repository anywhere), and a course directory
    holding nbgrader_config.py, grading.toml and solutions/; nbgrader run there confines its kernels."""
    python = _pip_installed_kit(tmp_path)
    course = tmp_path / "course"
    for name in ("nbgrader_config.py", "grading.toml"):
        (course / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, course / name)
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, course / "solutions" / ASSIGNMENT)
    environment = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: str(SEED),
                                            "PATH": f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def nbgrader(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(python), "-m", "nbgrader", *args], cwd=course, env=environment,
                              capture_output=True, text=True, timeout=3600)

    where = subprocess.run([str(python), "-c", "import autograder; print(autograder.__file__)"], cwd=course,
                           capture_output=True, text=True, env=environment)
    assert where.stdout.startswith(str(tmp_path / "venv")), where.stdout + where.stderr
    generated = nbgrader("generate_assignment", ASSIGNMENT)
    assert generated.returncode == 0, generated.stderr[-4000:]
    erin = _honest(course)
    erin.cells.insert(1, nbformat.v4.new_code_cell("import os\nprint('UID', os.getuid())"))
    _submit(course, "erin", erin)
    graded = nbgrader("autograde", ASSIGNMENT)
    assert graded.returncode == 0, graded.stderr[-4000:]
    assert _gradebook(course)["erin"] == TOTALS
    text = (course / "autograded" / "erin" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    uid = int(text.split("UID ")[1].split("\\n")[0])
    assert uid >= os_isolation.FIRST_UID and uid != os.getuid(), "the kernel ran confined, as its own uid"
