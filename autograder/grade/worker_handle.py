"""The batch parent's handle on one grading worker process (autograder.grade.batch_worker).

The worker lives for many submissions. The handle sends it one job at a
time and waits for its report with the submission's time limit; if the
worker dies, hangs or answers nonsense, the handle kills its process group
(the worker, its zygote and their children) and says why, and the next job
starts a fresh worker. So a failure costs the submission being graded, and
no other.

No worker outlives the batch parent, however the parent ends: the worker asks
the kernel for SIGKILL when its parent dies (`die_with_parent`, first thing in
its main), and everything the worker starts dies with it (bubblewrap's
--die-with-parent, the zygote's own parent-death signal). Linux sends that
signal when the *thread* that started the worker ends, so a handle's worker
must be started by a thread that outlives it: the batch's main thread, or a
thread of the batch's pool, which ends only after every handle is closed
(batch._Ending).
`stop()`, from any thread, ends the worker at once and refuses to start
another: what the batch does on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Callable

READY_SECONDS = 300.0  # imports and collection, on a loaded machine
MAX_REPORT_BYTES = 1 << 20
_PR_SET_PDEATHSIG = 1


class WorkerFailed(Exception):
    """The worker could not grade the job; the message says what happened."""


class WorkerStopped(WorkerFailed):
    """The handle was stopped (the batch is ending): no result for this job, and no further worker."""


class WorkerHandle:
    def __init__(self, command: list[str], zygote_channel: Callable[[], socket.socket | None] | None = None, *,
                 run: str = ""):
        """`command` starts the worker; `zygote_channel`, if given, makes a channel to a zygote for each
        worker started (a clone of the batch's, see zygote_client.ZygoteTemplate), or None: the worker
        then starts its own. `run` is the run's options as one JSON line (run_options.RunOptions.to_json),
        the first thing each worker reads, before any job."""
        self._command = command
        self._run = run
        self._zygote_channel = zygote_channel
        self._process: subprocess.Popen | None = None
        self._reports: int | None = None
        self._buffer = b""
        self._log: IO[bytes] | None = None
        self._ready = False
        self._stopped = False
        self._lock = threading.Lock()  # stop() may come from another thread than the one grading
        self._closing: subprocess.Popen | None = None  # a worker close() waits for: stop() ends it too

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

    def stop(self) -> None:
        """Kill the worker's process group now and start no other; safe from any thread.

        The thread in grade() then gets WorkerStopped; close() still reaps.
        """
        with self._lock:
            self._stopped = True
            for process in (self._process, self._closing):  # a closing worker has reported all it graded
                if process is not None and process.returncode is None:
                    _kill_group(process.pid)

    def finish(self) -> None:
        """No more jobs: the worker finishes its session and exits by itself; close() waits for that."""
        process = self._process
        if process is not None and process.stdin is not None:
            try:
                process.stdin.close()
            except OSError:
                pass

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
            self._closing = process
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
        self._closing = None
        if self._log is not None:
            self._log.close()
            self._log = None

    # --- internals -----------------------------------------------------------

    def _spawn(self) -> None:
        with self._lock:  # no worker starts after stop(), which would kill none started after it
            if self._stopped:
                raise WorkerStopped("the batch is ending")
            reports, theirs = os.pipe()
            self._log = tempfile.TemporaryFile()
            zygote = self._zygote_channel() if self._zygote_channel is not None else None
            command = [*self._command, "--report-fd", str(theirs), "--parent-pid", str(os.getpid())]
            if zygote is not None:
                command += ["--zygote-fd", str(zygote.fileno())]
            try:
                # Its own session: a worker's group (it, its children) is killed as one; its zygote
                # (a clone of the batch's) ends, with the zygote's children, when the worker's end closes.
                # --parent-pid: the worker arranges to die with this process (die_with_parent).
                self._process = subprocess.Popen(
                    command, pass_fds=(theirs,) if zygote is None else (theirs, zygote.fileno()),
                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._log, start_new_session=True,
                )
            finally:
                os.close(theirs)
                if zygote is not None:
                    zygote.close()
            self._reports, self._buffer, self._ready = reports, b"", False
            self._send_run()

    def _send_run(self) -> None:
        """The run's options, once, before any job; a worker that cannot take them fails its first job."""
        try:
            if self._run and self._process is not None and self._process.stdin is not None:
                self._process.stdin.write((self._run + "\n").encode())
                self._process.stdin.flush()
        except OSError:
            pass  # it ended already: the first grade() says so

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
        return WorkerStopped(detail) if self._stopped else WorkerFailed(detail)

    def _kill(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            _kill_group(process.pid)
        process.wait()
        if self._reports is not None:
            os.close(self._reports)
            self._reports = None


def die_with_parent(parent: int | None) -> None:
    """Have the kernel SIGKILL this process when `parent` (the batch parent's pid) dies; exit if it already has.

    Called first thing in the worker's main. If the parent died before the
    request took effect, this process already has another parent: checking
    after the request leaves no gap.
    """
    if parent is None:  # started by hand, not by a batch
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:
        os._exit(1)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def worker_command(programs_dir: Path | None = None, *, index: int = 0, workers: int = 1,
                   collect: list[str] | None = None) -> list[str]:
    """The command of worker `index` of `workers` (which part of a store's build it starts with);
    `collect`: the assignments whose suites it collects at start (None: all). What it grades with (seed,
    grading.toml, sandbox, language...) is not on it: the handle sends the run's options (`run`)."""
    command = [sys.executable, "-m", "autograder.grade.batch_worker",
               "--build-parts", str(workers), "--worker-index", str(index)]
    if collect:
        command += ["--collect", ",".join(collect)]
    if programs_dir is not None:
        command += ["--programs-dir", str(programs_dir)]
    return command
