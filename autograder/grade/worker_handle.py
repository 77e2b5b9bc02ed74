"""The batch parent's handle on one grading worker process (autograder.grade.batch_worker).

The worker lives for many submissions. The handle sends it one job at a
time and waits for its report with the submission's time limit; if the
worker dies, hangs or answers nonsense, the handle kills its process group
(the worker, its zygote and their children) and says why, and the next job
starts a fresh worker. So a failure costs the submission being graded, and
no other.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

READY_SECONDS = 300.0  # imports and collection, on a loaded machine
MAX_REPORT_BYTES = 1 << 20


class WorkerFailed(Exception):
    """The worker could not grade the job; the message says what happened."""


class WorkerHandle:
    def __init__(self, command: list[str]):
        self._command = command
        self._process: subprocess.Popen | None = None
        self._reports: int | None = None
        self._buffer = b""
        self._log: IO[bytes] | None = None
        self._ready = False

    def spawn(self) -> None:
        """Start the worker process without waiting for it: its imports overlap the caller's work.

        The first grade() waits for it to be ready (or fails that job, as a worker that cannot start does).
        """
        if self._process is None:
            self._spawn()

    def grade(self, job: dict, seconds: float) -> dict:
        """Have the worker grade `job`; returns its report, or raises WorkerFailed."""
        if self._process is not None and self._process.poll() is not None:
            self._failure("")  # it ended between jobs (not this job's doing): start afresh
        if self._process is None:
            self._spawn()
        if not self._ready:
            self._next_report(READY_SECONDS, "the grading worker did not start")
            self._ready = True
        jobs = self._process.stdin if self._process is not None else None
        try:
            if jobs is None:
                raise OSError("no worker")
            jobs.write((json.dumps(job) + "\n").encode())
            jobs.flush()
        except OSError:
            raise self._failure("the grading worker could not take the job") from None
        report = self._next_report(seconds, "the grading worker exceeded its time limit")
        if report.get("name") != job["name"]:
            raise self._failure(f"the grading worker answered for {report.get('name')!r}")
        if "failed" in report:
            raise self._failure(str(report["failed"]))
        return report

    def close(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()  # end of jobs: the worker finishes its session and exits
            if self._ready:  # one that never got a job is still starting: nothing of it to wait for
                process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._kill(process)
        if self._log is not None:
            self._log.close()
            self._log = None

    # --- internals -----------------------------------------------------------

    def _spawn(self) -> None:
        reports, theirs = os.pipe()
        self._log = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(
                [*self._command, "--report-fd", str(theirs)], pass_fds=(theirs,), stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=self._log, start_new_session=True,
            )
        finally:
            os.close(theirs)
        self._reports, self._buffer, self._ready = reports, b"", False

    def _next_report(self, seconds: float, timeout_detail: str) -> dict:
        deadline = time.monotonic() + seconds
        reports = self._reports
        if reports is None:
            raise self._failure("the grading worker is not running")
        while b"\n" not in self._buffer:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([reports], [], [], wait)[0]:
                raise self._failure(timeout_detail)
            chunk = os.read(reports, 65536)
            if not chunk or len(self._buffer) > MAX_REPORT_BYTES:
                raise self._failure("the grading worker ended")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            report = json.loads(line)
        except ValueError:
            raise self._failure("the grading worker sent an unreadable report") from None
        if not isinstance(report, dict):
            raise self._failure("the grading worker sent an unreadable report")
        return report

    def _failure(self, detail: str) -> WorkerFailed:
        """Kill the worker (the next job starts another) and describe what happened."""
        process, self._process = self._process, None
        if process is not None:
            self._kill(process)
            code = process.returncode
            if code is not None and code != 0:
                detail += f" (worker exit code {code})"
        if self._log is not None:
            self._log.seek(0)
            tail = self._log.read()[-500:].decode("utf-8", "replace").strip()
            self._log.close()
            self._log = None
            if tail:
                detail += f": {tail}"
        return WorkerFailed(detail)

    def _kill(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        process.wait()
        if self._reports is not None:
            os.close(self._reports)
            self._reports = None


def worker_command(config_path: Path, seed: int, assignment: str | None, sandbox: str,
                   programs_dir: Path | None = None, *, index: int = 0, workers: int = 1) -> list[str]:
    """The command of worker `index` of `workers` (which part of a store's build it starts with)."""
    command = [sys.executable, "-m", "autograder.grade.batch_worker", "--seed", str(seed),
               "--config", str(config_path), "--sandbox", sandbox,
               "--build-parts", str(workers), "--worker-index", str(index)]
    if assignment:
        command += ["--assignment", assignment]
    if programs_dir is not None:
        command += ["--programs-dir", str(programs_dir)]
    return command
