"""Asking a running formgrader (a Jupyter server the tests start) for a page."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from autograder.integrations.release import nbgrader_environment


def get_with_token(url: str, token: str, *, attempts: int = 600) -> tuple[int, str]:
    """GET with the token; while the server starts (no connection yet), try again, up to `attempts` times."""
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


def start_formgrader(root: Path, token: str) -> tuple[subprocess.Popen, str]:
    """A real Jupyter server with nbgrader's formgrader on the course `root`; (the server, its base URL)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "server", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--ServerApp.jpserver_extensions={'nbgrader.server_extensions.formgrader': True}"],
        cwd=root, env=nbgrader_environment() | {"JUPYTER_CONFIG_DIR": str(root / ".jupyter")},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return server, f"http://127.0.0.1:{port}"


def post_with_token(url: str, token: str) -> tuple[int, str]:
    """POST (no body) with the token, to a formgrader already answering."""
    request = urllib.request.Request(url, data=b"", method="POST", headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=3600) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
