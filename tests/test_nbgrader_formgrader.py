"""The README's command opens nbgrader's formgrader on a course directory that uses the kit.

The command is read from the README (step 6 of "Grading with nbgrader"), with only the kit's Python,
a free port and a token of the test's own; the server then answers with the scores the kit's
`nbgrader autograde` wrote (as tests/attacks/trusted_side/test_nbgrader_kernel_confined.py's
formgrader test does for the confined kernels' runs).
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import nbformat
import pytest
from conftest import REPO

from autograder import grading_config
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


def _nbgrader(root, *args: str) -> subprocess.CompletedProcess:
    environment = nbgrader_environment() | {grading_config.SEED_ENVIRONMENT_VARIABLE: "2026"}
    return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    shutil.copy(REPO / "nbgrader_config.py", root / "nbgrader_config.py")
    shutil.copytree(REPO / "solutions" / ASSIGNMENT, root / "solutions" / ASSIGNMENT)
    generated = _nbgrader(root, "generate_assignment", ASSIGNMENT)
    assert generated.returncode == 0, generated.stderr[-3000:]
    released = nbformat.read(root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for student in STUDENTS:
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(released, folder / f"{ASSIGNMENT}.ipynb")
    autograded = _nbgrader(root, "autograde", ASSIGNMENT)
    assert autograded.returncode == 0, autograded.stderr[-3000:]
    return root


def _get(url: str, token: str, attempts: int = 600) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()
        except (ConnectionError, urllib.error.URLError):
            time.sleep(0.5)
    raise AssertionError(f"the formgrader never answered {url}")


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
        status, body = _get(f"http://127.0.0.1:{port}/formgrader/api/submissions/{ASSIGNMENT}", token)
        assert status == 200, body[:2000]
        scores = {entry["student"]: entry["score"] for entry in json.loads(body)}
        assert scores == {student: 0.0 for student in STUDENTS}, scores  # released stubs: every check at 0
        status, page = _get(f"http://127.0.0.1:{port}/formgrader", token)
        assert status == 200 and "formgrader" in page.lower(), page[:2000]
    finally:
        server.terminate()
        server.wait(timeout=60)
