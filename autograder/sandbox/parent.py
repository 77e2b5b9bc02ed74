"""The trusted side of the sandbox: starts the child and carries requests.

Each submission gets its own child process in a fresh working directory with
an allow-listed environment, in its own process group so that a timeout
kills everything it started. A child that dies or hangs costs the current
check; the next check gets a fresh child, so one endless loop does not zero
the other exercises. The child is spawned (`python -I -m
autograder.sandbox.child`), or, when a zygote is given, forked from that
pre-started process that has already imported JAX (see sandbox.zygote): the
same isolated child without a Python start-up and `import jax` of its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from autograder import messages
from autograder.cell_execution import LoadReport
from autograder.grading_config import Limits
from autograder.sandbox import framing, shared_programs, strict_mode
from autograder.sandbox.limits import ChildLimits
from autograder.sandbox.zygote_client import ForkedChild, ZygoteUnavailable
from autograder.submission import TransportFailure

OUTPUT_CAP_BYTES = 1 << 20
_ENV_ALLOWED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")


def child_environment(home: Path) -> dict[str, str]:
    """The whole environment of a child: the allow-listed variables, its own HOME and TMPDIR, JAX on CPU."""
    env = {k: os.environ[k] for k in _ENV_ALLOWED if k in os.environ}
    env.update(HOME=str(home), TMPDIR=str(home), JAX_PLATFORMS="cpu")
    return env


class SandboxTransport:
    """Requests to one submission running in a child process."""

    def __init__(self, submission_path: Path, limits: Limits, python: str = sys.executable,
                 child_limits: ChildLimits | None = None, strict: bool = False, zygote=None,
                 skip_cells: frozenset[int] = frozenset(), programs: Path | None = None,
                 write_programs_to: Path | None = None):
        """`skip_cells`: the cell numbers the child does not run (see example_cells).
        `programs`: JAX's compiled programs to give the child, which then reads
        them (see sandbox.shared_programs); `write_programs_to`: a directory
        that receives, at close(), the programs the child compiled (to build
        such a store)."""
        self.call_seconds = limits.call_seconds
        self._child_limits = child_limits or ChildLimits()
        self._strict = strict
        self.submission_seconds = limits.submission_seconds
        self._limits = limits
        self._python = python
        # Strict mode starts the child through unshare and setpriv, which a fork cannot.
        self._zygote = None if strict else zygote
        self._source_path = Path(submission_path).resolve()
        self._deadline = time.monotonic() + limits.submission_seconds
        self._process: _SpawnedChild | ForkedChild | None = None
        self.child_maxrss_kb = 0  # peak resident memory of this submission's children (forked ones)
        self._workdir: Path | None = None
        self._load_failure: str | None = None
        self.load_report: LoadReport | None = None
        self._skip_cells = sorted(skip_cells)
        self._programs = programs
        self._write_programs_to = write_programs_to
        self._compilation_cache = (shared_programs.READ if programs is not None
                                   else shared_programs.WRITE if write_programs_to is not None else None)

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> LoadReport:
        """Start the child and load the submission; returns the load report.

        If loading fails, every later request fails with the same feedback.
        """
        report = self._spawn_and_load()
        self.load_report = report
        return report

    def close(self) -> None:
        self._kill()
        if self._workdir is not None:
            if self._write_programs_to is not None:
                shared_programs.take_from_child(self._workdir, self._write_programs_to)
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> "SandboxTransport":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def captured_output(self) -> str:
        """What the student's code printed (capped), for the feedback only."""
        if self._workdir is None:
            return ""
        path = self._workdir / "output.txt"
        try:
            with open(path, "rb") as handle:
                return handle.read(OUTPUT_CAP_BYTES).decode("utf-8", "replace")
        except OSError:
            return ""

    # --- requests ------------------------------------------------------------

    def request(self, header: dict, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]:
        if self._load_failure is not None:
            raise TransportFailure("load_failed", self._load_failure)
        if time.monotonic() > self._deadline:
            raise TransportFailure("budget")
        if self._process is None or self._process.exit_status() is not None:
            self._spawn_and_load()
            if self._load_failure is not None:
                raise TransportFailure("load_failed", self._load_failure)
        answer, out = self._exchange(header, arrays, self._limits.call_seconds)
        if answer.get("tampered"):
            # The answer may have been shaped by the change: it earns nothing.
            return {"ok": False, "error": {"kind": "tampered", "changes": _strings(answer["tampered"])}}, []
        return answer, out

    # --- internals -----------------------------------------------------------

    def _exchange(self, header: dict, arrays: list, seconds: float) -> tuple[dict, list]:
        deadline = min(time.monotonic() + seconds, self._deadline)
        try:
            framing.write_message(self._request_fd, header, arrays)
            return framing.read_message(self._response_fd, deadline)
        except framing.ChannelTimeout:
            self._kill()
            if time.monotonic() >= self._deadline:
                raise TransportFailure("budget") from None
            raise TransportFailure("timeout") from None
        except (framing.ChannelClosed, BrokenPipeError):
            detail = self._exit_detail()
            self._kill()
            raise TransportFailure("exited", detail) from None
        except framing.WireFormatError as error:
            self._kill()
            raise TransportFailure("exited", f"sent malformed data: {error}") from None

    def _spawn_and_load(self) -> LoadReport:
        self._kill()
        if self._workdir is None:
            self._workdir = Path(tempfile.mkdtemp(prefix="autograder-"))
        submission = self._workdir / self._source_path.name
        if not submission.exists():
            shutil.copyfile(self._source_path, submission)
        if self._programs is not None:
            shared_programs.give_to_child(self._programs, self._workdir)  # afresh for every child
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        output = open(self._workdir / "output.txt", "wb")
        env = child_environment(self._workdir)
        try:
            self._process = None
            if self._zygote is not None:
                try:
                    self._process = self._zygote.fork(self._workdir, env, self._child_limits,
                                                      (request_read, response_write, output.fileno()))
                except ZygoteUnavailable:
                    self._zygote = None  # spawn this submission's children instead
            if self._process is None:
                self._process = self._spawn(request_read, response_write, output, env)
        finally:
            os.close(request_read)
            os.close(response_write)
            output.close()
        self._request_fd, self._response_fd = request_write, response_read
        try:
            answer, _ = self._exchange({"op": "load", "path": str(submission), "skip_cells": self._skip_cells,
                                        "compilation_cache": self._compilation_cache}, [], self._limits.load_seconds)
        except TransportFailure as failure:
            self._load_failure = _load_failure_feedback(failure, self._limits, self.captured_output())
            return LoadReport(notes=[self._load_failure], not_implemented_cells=[])
        if answer.get("ok") is not True:
            error = answer.get("error", {})
            self._load_failure = str(error.get("message") or messages.text("load.child_failed", detail=error))
            return LoadReport(notes=[self._load_failure], not_implemented_cells=[])
        report = LoadReport.from_json(answer.get("report", {}))
        for change in _strings(answer.get("tampered", [])):
            report.notes.append(messages.text("load.tampered", change=change))
        return report

    def _spawn(self, request_read: int, response_write: int, output, env: dict) -> "_SpawnedChild":
        command = [self._python, "-I", "-m", "autograder.sandbox.child", str(request_read), str(response_write)]
        if self._strict:
            command = strict_mode.wrap(command, self._workdir)
        return _SpawnedChild(subprocess.Popen(
            command, pass_fds=(request_read, response_write),
            stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            cwd=self._workdir, env=env, start_new_session=True, preexec_fn=self._child_limits.apply,
        ))

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.kill()
        self.child_maxrss_kb = max(self.child_maxrss_kb, process.maxrss_kb or 0)
        for fd in (self._request_fd, self._response_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    def _exit_detail(self) -> str:
        process = self._process
        if process is None:
            return "the process ended"
        code = process.exit_status(timeout=2)
        if code is None:
            return "the process stopped answering"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit code {code}"


class _SpawnedChild:
    """A child started with subprocess (the same methods as a zygote's ForkedChild)."""

    maxrss_kb = None

    def __init__(self, process: subprocess.Popen):
        self._process = process
        self.pid = process.pid

    def exit_status(self, timeout: float = 0.0) -> int | None:
        try:
            return self._process.wait(timeout=timeout) if timeout else self._process.poll()
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Kill the child's process group and reap the child."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._process.wait()


def _load_failure_feedback(failure: TransportFailure, limits: Limits, printed: str) -> str:
    if failure.kind in ("timeout", "budget"):
        return messages.text("load.timeout", seconds=limits.load_seconds)
    feedback = messages.text("load.exited", detail=failure.detail or failure.kind)
    tail = printed.strip()[-600:]
    if tail:
        feedback += "\n" + messages.text("load.last_output", output=tail)
    return feedback


def _strings(values) -> list[str]:
    return [str(v)[:300] for v in values][:20] if isinstance(values, list) else ["(unreadable report)"]
