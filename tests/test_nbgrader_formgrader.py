"""The README's command opens nbgrader's formgrader on a course directory that uses the kit.

The command is read from the README ("The formgrader", under "Grading with nbgrader"; docs/nbgrader.md shows
the same, tests/test_docs_stay_true.py checks that), with only the kit's Python,
a free port and a token of the test's own; the server then answers with the scores the kit's
`nbgrader autograde` wrote (as tests/attacks/trusted_side/test_nbgrader_kernel_confined.py's
formgrader test does for the confined kernels' runs).
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
import socket
import subprocess
import sys

import nbformat
import pytest
from conftest import REPO
from formgrader_http import get_with_token
from nbgrader_courses import released_course, run_nbgrader

from autograder.integrations.release import nbgrader_environment

ASSIGNMENT = "01_immutable_updates"
STUDENTS = ("ana", "ben")


def readme_command() -> list[str]:
    """The README's formgrader command, as arguments (its `cd` line is the course directory: cwd here)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- formgrader command -->\s*```\n(.*?)```", readme, re.S)
    assert block, "README: the formgrader command, after its marker"
    lines = [line for line in block.group(1).replace("\\\n", " ").splitlines() if line.strip()]
    assert lines[0].strip().startswith("cd "), lines
    (command,) = lines[1:]
    words = shlex.split(command)
    assert words[0].endswith(".venv/bin/python"), words
    return [sys.executable, *words[1:]]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = released_course(tmp_path_factory.mktemp("course"), ASSIGNMENT, seed=2026)
    released = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student in STUDENTS:
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(released, folder / f"{ASSIGNMENT}.ipynb")
    autograded = run_nbgrader(root, "autograde", ASSIGNMENT, seed=2026)
    assert autograded.returncode == 0, autograded.stderr[-3000:]
    return root


def test_the_readmes_command_opens_the_formgrader_on_the_course(course):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    token = secrets.token_hex(16)
    command = [*readme_command(), f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]
    environment = nbgrader_environment() | {"JUPYTER_CONFIG_DIR": str(course / ".jupyter")}  # not this machine's
    server = subprocess.Popen(command, cwd=course, env=environment, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        status, body = get_with_token(f"http://127.0.0.1:{port}/formgrader/api/submissions/{ASSIGNMENT}", token)
        assert status == 200, body[:2000]
        scores = {entry["student"]: entry["score"] for entry in json.loads(body)}
        assert scores == {student: 0.0 for student in STUDENTS}, scores  # released stubs: every check at 0
        status, page = get_with_token(f"http://127.0.0.1:{port}/formgrader", token)
        assert status == 200 and "formgrader" in page.lower(), page[:2000]
    finally:
        server.terminate()
        server.wait(timeout=60)
