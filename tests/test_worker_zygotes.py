"""A batch's workers get their zygotes as clones of one template; a worker without a usable clone starts its own.

The zygote's imports (JAX and the child's modules, about 1.6 s of CPU) are the
largest part of a worker's start: a batch pays them once, in the zygote
template, and each worker adopts a fork of it (sandbox/zygote_client.py). The
clone is only a way to start faster: a worker whose clone is refused or gone
grades the same, with a zygote of its own.
"""

from __future__ import annotations

import shutil
import socket

import pytest
from conftest import REPO

from autograder import grading_config
from autograder.grade import batch
from autograder.grade.run_options import RunOptions
from autograder.sandbox.zygote_client import ZygoteTemplate

CONFIG = grading_config.load()
ASSIGNMENT = "01_immutable_updates"


def _class(tmp_path):
    folder = tmp_path / "batch"
    folder.mkdir()
    shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder / f"alice_{ASSIGNMENT}.ipynb")
    shutil.copy(REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder / f"bob_{ASSIGNMENT}.ipynb")
    shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", folder / f"carol_{ASSIGNMENT}.ipynb")
    return folder


def _scores(results: list[dict]) -> dict[str, float]:
    return {r["extra_data"]["submission"].split("_")[0]: r["score"] for r in results}


class _CountingTemplate(ZygoteTemplate):
    handed_out = 0

    def channel_for_worker(self):
        type(self).handed_out += 1
        return super().channel_for_worker()


class _RefusingTemplate:
    """A template whose every clone is refused: the worker's end of the channel is closed at once."""

    def channel_for_worker(self) -> socket.socket:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        theirs.close()
        return ours

    def close(self) -> None:
        pass


def test_each_worker_adopts_a_clone_of_the_batch_template(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "ZygoteTemplate", _CountingTemplate)
    results = batch.grade_batch([_class(tmp_path)], tmp_path / "out", RunOptions(CONFIG, 5), jobs=2)
    assert _CountingTemplate.handed_out == 2, "one clone per worker started"
    assert _scores(results) == {"alice": 18.0, "bob": 0.0, "carol": 18.0}


@pytest.mark.parametrize("template", [_RefusingTemplate, None], ids=["clone refused", "no template"])
def test_a_worker_without_a_clone_grades_the_same_with_a_zygote_of_its_own(tmp_path, monkeypatch, template):
    monkeypatch.setattr(batch, "_zygote_template", lambda sandbox, programs: template and template())
    results = batch.grade_batch([_class(tmp_path)], tmp_path / "out", RunOptions(CONFIG, 5), jobs=2)
    assert _scores(results) == {"alice": 18.0, "bob": 0.0, "carol": 18.0}
    assert not any(r["extra_data"].get("problem") for r in results), [r["extra_data"] for r in results]


def test_a_worker_prepares_its_first_job_while_its_zygote_imports(tmp_path):
    import subprocess
    import sys

    # What grading a submission imports, ready before the first job; a missing solution is the build's to report.
    script = ("import sys\n"
              "from pathlib import Path\n"
              "from autograder import grading_config\n"
              "from autograder.grade import batch_worker\n"
              "config = grading_config.load()\n"
              "batch_worker._prepare_first_job(config, ['01_immutable_updates'])\n"
              "print(all(m in sys.modules for m in ('autograder.grade.pipeline', 'autograder.reports.out_dir')))\n"
              "import dataclasses\n"
              f"elsewhere = dataclasses.replace(config, source=Path({str(tmp_path)!r}) / 'grading.toml')\n"
              "batch_worker._prepare_first_job(elsewhere, ['01_immutable_updates'])\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["True"]
