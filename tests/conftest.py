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


@pytest.fixture(scope="session")
def config():
    return grading_config.load()


@pytest.fixture(scope="session")
def seed():
    return SEED


def run_cli(*args: str, cwd: Path = REPO, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run the real `autograder` command line in a subprocess."""
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)
