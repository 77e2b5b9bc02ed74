"""The trusted side of the sandbox: starts the child and carries requests.

Each submission's code runs in a child process forked by a zygote (see
sandbox.zygote), which has imported JAX once for all of them. In the OS
sandbox (`mode="os"`, the default of `autograder grade`) the zygote lives in
bubblewrap and every child gets its own uid, PID namespace and private tmpfs
(sandbox.os_isolation, sandbox.confinement); in `mode="process"` the child is
an ordinary process with OS limits, an audit hook and a fresh temporary
directory, which protects against accidents, not against an attacker.

Everything crosses the boundary through pipes: the submission's bytes go in
with the load request, answers come back as data-only messages (framing),
and what student code prints comes through a pipe the parent reads up to a
cap. The parent never opens a file the child could have written. A child that
dies or hangs costs the current check; the next check gets a fresh child, so
one endless loop does not zero the other exercises.

Time limits (grading.toml [limits]) count CPU time, not wall-clock time, so a
busy machine costs no points: while it waits for an answer the parent reads,
through the zygote, the CPU time of the child and every process below it
(zygote.tree_cpu_seconds; the child cannot forge it). A call that uses more
than `call_seconds` of it is stopped (TIMEOUT), a load more than
`load_seconds`, and a submission whose children used more than
`submission_seconds` in all, with the CPU time the clean-room runner spent on
its programs (`charge`, from program_runner), gets no further checks (BUDGET). `busy_factor`
times each limit, in wall-clock seconds, is only a backstop: when it runs out
first, the parent looks at what the child was doing: if its threads were
waiting, runnable, for a CPU, the machine was too busy, which is nobody's
score. The request is then tried once more in a fresh child (loaded again;
neither the unfinished request nor the reload counts against the budget); if
the backstop runs out again, the request fails as BUSY and the submission is
marked "grader_error", to be graded again. A child that was not trying to
run (it sleeps, or waits for input) gets the student's TIMEOUT ("stalled"),
already once it used no CPU at all for as long as its CPU-time limit.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from autograder.catalog import messages
from autograder.child.cell_execution import LoadReport
from autograder.child.confinement import WORKDIR
from autograder.grading_config import Limits
from autograder.load import regular_file
from autograder.protocol import framing, program_store, requests
from autograder.protocol.errors import ChildError, ErrorKind, TransportFailure
from autograder.protocol.limits import ChildLimits
from autograder.sandbox import os_isolation
from autograder.sandbox.zygote_client import ForkedChild, Zygote, ZygoteUnavailable, child_environment

MODES = ("os", "process")
STALLED = "stalled"  # a TIMEOUT's detail: the wall-clock backstop ran out while the child was not using its CPU time
OUTPUT_CAP_BYTES = 1 << 20
SUBMISSION_CAP_BYTES = 32 << 20
TMPFS_BYTES = 512 << 20  # the OS sandbox child's whole writable space
# How often, in wall-clock seconds, the parent reads a working child's CPU time; a limit is
# overshot by at most this much CPU time per core (a reading costs the zygote a walk of /proc).
CPU_POLL_SECONDS = 0.2


class SandboxTransport:
    """Requests to one submission running in a sandbox child."""

    def __init__(self, submission_path: Path, limits: Limits, *, mode: str = "os", python: str = sys.executable,
                 child_limits: ChildLimits | None = None, zygote: Zygote | None = None,
                 skip_cells: frozenset[int] = frozenset(), programs: Path | None = None,
                 write_programs_to: Path | None = None, uids: os_isolation.UidPool | None = None,
                 cpu_devices: int = 0):
        """`zygote`: a started zygote of the same mode to fork children from (a
        grading worker's); without one the transport starts its own.
        `skip_cells`: the cell numbers the child does not run (see example_cells).
        `programs`: the batch's store of JAX's compiled programs for this
        assignment, which the child copies and reads (see sandbox.shared_programs);
        `write_programs_to`: a directory that receives, at close(), the
        programs the child compiled (to build such a store).
        `cpu_devices`: the CPU devices the child's JAX starts with before any student code (0: JAX's
        default), also its `JAX_NUM_CPU_DEVICES`, which a notebook's setup line defers to."""
        if mode not in MODES:
            raise ValueError(f"sandbox mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.call_seconds = limits.call_seconds
        self.submission_seconds = limits.submission_seconds
        self._limits = limits
        self._child_limits = child_limits or ChildLimits()
        self._python = python
        self._zygote = zygote
        self._own_zygote: Zygote | None = None
        self._uids = uids or (os_isolation.UidPool() if mode == "os" else None)
        self._uid: int | None = None
        self._source_path = Path(submission_path)
        # Only the backstop: the budget itself is CPU time (cpu_spent).
        self._wall_deadline = time.monotonic() + limits.backstop(limits.submission_seconds)
        self._cpu_charged = 0.0  # CPU seconds of this submission's ended children, charged to its budget
        self._child_cpu = 0.0  # the current child's CPU seconds at the last reading
        self._child_uncharged = 0.0  # the current child's CPU seconds not charged (a regrade's reload)
        self._process: ForkedChild | None = None
        self._output = _OutputDrain(OUTPUT_CAP_BYTES)
        self.child_maxrss_kb = 0  # peak resident memory of this submission's children
        self._workdir: Path | None = None  # process mode only: the OS sandbox child's is its own tmpfs
        self._load_failure: str | None = None
        # Why loading failed, for the batch's summary: "timeout", "exited", "sandbox_failed", "child_failed";
        # or "grader_error" once the machine was too busy twice for one request (the submission needs a look).
        self.load_problem: str | None = None
        self.load_report: LoadReport | None = None
        self._skip_cells = sorted(skip_cells)
        self._programs = programs
        self._write_programs_to = write_programs_to
        self.cpu_devices = cpu_devices

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> LoadReport:
        """Start the child and load the submission; returns the load report.

        If loading fails, every later request fails with the same feedback.
        """
        report = self._spawn_and_load()
        self.load_report = report
        return report

    def close(self) -> None:
        if self._write_programs_to is not None and self._load_failure is None:
            self._receive_programs()
        self._kill()
        if self._own_zygote is not None:
            self._own_zygote.close()
            self._own_zygote = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)  # fd-based: never follows the child's symlinks
            self._workdir = None

    def __enter__(self) -> "SandboxTransport":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def zygote(self) -> Zygote | None:
        """The zygote this transport's children come from (the worker's, or its own once started)."""
        return self._zygote or self._own_zygote

    @property
    def wall_deadline(self) -> float:
        """The monotonic time by which this submission's grading ends, whatever the machine's load: its
        program runner's requests are held to it too (program_runner.ConfinedProgramRunner.deadline)."""
        return self._wall_deadline

    def captured_output(self) -> str:
        """What the student's code printed (capped), for the feedback only."""
        return self._output.text()

    # --- requests ------------------------------------------------------------

    def charge(self, seconds: float) -> None:
        """Count `seconds` of CPU time this submission used outside its child (the clean-room runner ran its
        programs for that long) against its budget: its next request fails as BUDGET once that is spent."""
        self._cpu_charged += max(0.0, seconds)

    @property
    def cpu_spent(self) -> float:
        """CPU seconds charged to this submission's budget so far (as of the last reading)."""
        return self._cpu_charged + max(0.0, self._child_cpu - self._child_uncharged)

    def request(self, request: requests.Request, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]:
        if self._load_failure is not None:
            raise TransportFailure(ErrorKind.LOAD_FAILED, self._load_failure)
        if self.cpu_spent >= self._limits.submission_seconds:
            raise TransportFailure(ErrorKind.BUDGET)
        if time.monotonic() >= self._wall_deadline:
            raise self._too_busy()
        try:
            answer, out = self._request_once(request, arrays)
        except TransportFailure as failure:
            if failure.kind is not ErrorKind.BUSY:
                raise
            if time.monotonic() >= self._wall_deadline:
                raise self._too_busy() from None
            try:
                answer, out = self._request_once(request, arrays, regrade=True)  # the machine's fault: once more
            except TransportFailure as again:
                raise self._too_busy() if again.kind is ErrorKind.BUSY else again from None
        if answer.get("tampered"):
            # The answer may have been shaped by the change: it earns nothing.
            tampered = ChildError(ErrorKind.TAMPERED, changes=tuple(_strings(answer["tampered"])))
            return {"ok": False, "error": tampered.to_wire()}, []
        return answer, out

    # --- internals -----------------------------------------------------------

    def _request_once(self, request: requests.Request, arrays: list, regrade: bool = False) -> tuple[dict, list]:
        """One try: a child that is loaded (a fresh one if the last ended), then the request.

        `regrade`: the last try ran out of wall-clock time; the fresh child's load is not charged.
        """
        if self._process is None or framing.writers_gone(self._response_fd):  # it ended: a fresh one
            self._spawn_and_load(regrade=regrade)
            if self._load_failure is not None:
                raise TransportFailure(ErrorKind.LOAD_FAILED, self._load_failure)
        return self._exchange(request, arrays, self._limits.call_seconds)

    def _too_busy(self) -> TransportFailure:
        """The machine was too busy to grade a request: a grader's problem, and the submission needs a look."""
        self._kill()
        self.load_problem = self.load_problem or "grader_error"
        return TransportFailure(ErrorKind.BUSY)

    def _exchange(self, request: requests.Request, arrays: list, seconds: float) -> tuple[dict, list]:
        """Send one request and wait for its answer while the child has CPU time left (`seconds` of it).

        Raises TransportFailure: TIMEOUT past `seconds` of CPU time, BUDGET past the submission's,
        BUSY when the wall-clock backstop runs out first (the child is killed in each case).
        """
        started = self._read_child_cpu()
        backstop = min(time.monotonic() + self._limits.backstop(seconds), self._wall_deadline)
        try:
            framing.write_message(self._request_fd, requests.header(request), arrays)
            self._wait_for_answer(started, seconds, backstop)
            answer = framing.read_message(self._response_fd, backstop)
        except framing.ChannelTimeout:
            raise self._overrun(started, seconds) from None
        except (framing.ChannelClosed, BrokenPipeError):
            detail = self._exit_detail()
            self._kill()
            raise TransportFailure(ErrorKind.EXITED, detail) from None
        except framing.WireFormatError as error:
            self._kill()
            raise TransportFailure(ErrorKind.EXITED, f"sent malformed data: {error}") from None
        self._read_child_cpu()
        return answer

    def _wait_for_answer(self, started: float, seconds: float, backstop: float) -> None:
        """Return once the answer starts to arrive; read the child's CPU time meanwhile.

        Raises framing.ChannelTimeout when a CPU-time limit or the backstop runs out (see _overrun).
        """
        last_used, idle_since = 0.0, time.monotonic()
        while not select.select([self._response_fd], [], [], CPU_POLL_SECONDS)[0]:
            used, now = self._read_child_cpu() - started, time.monotonic()
            if used > last_used:
                last_used, idle_since = used, now
            over_budget = self.cpu_spent >= self._limits.submission_seconds
            # Idle: not one CPU tick in `seconds` of wall-clock time, which a starved child always gets.
            idle = now - idle_since >= seconds
            if used >= seconds or over_budget or idle or now >= backstop:
                raise framing.ChannelTimeout()

    def _overrun(self, started: float, seconds: float) -> TransportFailure:
        """Kill the child that did not answer in time, and say whose fault it was.

        CPU time decides: past its limit it is the student's (TIMEOUT, or BUDGET for the
        submission's total). With CPU time left, a child that was starved of CPU means the
        machine was too busy (BUSY; the unfinished request is not charged), and one that was
        not trying to run stalled (TIMEOUT, detail "stalled").
        """
        used = self._read_child_cpu() - started
        failure = TransportFailure(ErrorKind.TIMEOUT)
        if used >= seconds:
            pass
        elif self.cpu_spent >= self._limits.submission_seconds:
            failure = TransportFailure(ErrorKind.BUDGET)
        elif self._starved():
            failure = TransportFailure(ErrorKind.BUSY)
            self._child_cpu = started  # charge only what the child used before this request
        else:
            failure = TransportFailure(ErrorKind.TIMEOUT, STALLED)
        self._kill()
        return failure

    def _starved(self) -> bool:
        """Whether the child's threads are waiting, runnable, for a CPU (the machine is too busy for it)."""
        return self._process is not None and self._process.starved()

    def _read_child_cpu(self) -> float:
        """The current child's CPU seconds (its whole process tree), as the zygote reads them; kept for cpu_spent."""
        if self._process is not None:
            reading = self._process.cpu_seconds()
            if reading is not None:
                self._child_cpu = max(self._child_cpu, reading)
        return self._child_cpu

    def _spawn_and_load(self, regrade: bool = False) -> LoadReport:
        """A fresh child with the submission loaded; a load the machine was too busy for is tried once more.

        `regrade`: the child replaces one the machine was too busy for; its load is not charged.
        """
        self._kill()
        try:
            submission = regular_file.read(self._source_path, SUBMISSION_CAP_BYTES)
        except OSError as error:
            key, fields = regular_file.reason(error)
            self._load_failure = messages.text("load.not_a_file", file=self._source_path.name,
                                               why=messages.text(key, **fields), limit_mib=SUBMISSION_CAP_BYTES >> 20)
            self.load_problem = "child_failed"
            return LoadReport(notes=[self._load_failure], not_implemented_cells=[])
        report = self._fork_and_load(submission)
        if self.load_problem == "busy" and time.monotonic() < self._wall_deadline:
            # The busy try was charged nothing (see _overrun); this load is charged as a quiet machine's would be.
            self._load_failure = self.load_problem = None
            report = self._fork_and_load(submission)
        if self.load_problem == "busy":
            self.load_problem = "grader_error"  # twice too busy: the grader's problem, and a look at it
        elif regrade and self._load_failure is None:
            self._child_uncharged = self._read_child_cpu()
        return report

    def _fork_and_load(self, submission: bytes) -> LoadReport:
        """Fork a child and send it the submission; a failure sets _load_failure and load_problem."""
        self._kill()
        try:
            self._fork_child()
        except (ZygoteUnavailable, os_isolation.IsolationUnavailable, OSError) as error:
            # The grader's fault, not the student's: said plainly, and this submission alone scores 0.
            self._kill()
            self._load_failure = messages.text("load.sandbox_failed", detail=str(error).splitlines()[0][:300])
            self.load_problem = "sandbox_failed"
            return LoadReport(notes=[self._load_failure], not_implemented_cells=[])
        load = requests.Load(name="submission" + self._source_path.suffix.lower()[:8],
                             skip_cells=tuple(self._skip_cells), compilation_cache=self._cache_mode(),
                             programs=self._programs_as_the_child_sees_them(), language=messages.language(),
                             cpu_devices=self.cpu_devices)
        try:
            answer, _ = self._exchange(load, [np.frombuffer(submission, dtype=np.uint8)], self._limits.load_seconds)
        except TransportFailure as failure:
            self._load_failure = _load_failure_feedback(failure, self._limits, self.captured_output())
            self.load_problem = _LOAD_PROBLEMS.get(failure.kind, "exited")
            return LoadReport(notes=[self._load_failure], not_implemented_cells=[])
        if answer.get("ok") is not True:
            refusal = ChildError.from_wire(answer.get("error"))
            self._load_failure = refusal.message or messages.text("load.child_failed", detail=refusal.kind.value)
            self.load_problem = "child_failed"
            return LoadReport(notes=[self._load_failure], not_implemented_cells=[])
        report = LoadReport.from_json(answer.get("report", {}))
        for change in _strings(answer.get("tampered", [])):
            report.notes.append(messages.text("load.tampered", change=change))
        return report

    def _programs_as_the_child_sees_them(self) -> str | None:
        if self._programs is None:
            return None
        if self.mode == "os":
            return str(os_isolation.PROGRAMS_IN_VIEW / self._programs.name)
        return str(self._programs)

    def _cache_mode(self) -> str | None:
        if self._programs is not None:
            return program_store.READ
        return program_store.WRITE if self._write_programs_to is not None else None

    def _fork_child(self) -> None:
        """A fresh child with new pipes; its output goes to this transport's drain."""
        if self._uids is not None:  # the OS mode's uid pool
            self._uid = self._uids.take()
            workdir = WORKDIR
        else:
            if self._workdir is None:
                self._workdir = Path(tempfile.mkdtemp(prefix="autograder-"))
            workdir = str(self._workdir)
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        output_read, output_write = os.pipe()
        try:
            self._process = self._fork_from_zygote(workdir, (request_read, response_write, output_write))
        finally:
            for fd in (request_read, response_write, output_write):
                os.close(fd)
        self._output.follow(output_read)
        self._request_fd, self._response_fd = request_write, response_read

    def _fork_from_zygote(self, workdir: str, fds: tuple[int, int, int]) -> ForkedChild:
        env = child_environment(workdir)
        if self.cpu_devices:
            env["JAX_NUM_CPU_DEVICES"] = str(self.cpu_devices)
        if self._zygote is not None:
            try:
                return self._zygote.fork(workdir, env, self._child_limits, fds, uid=self._uid, tmpfs_bytes=TMPFS_BYTES)
            except ZygoteUnavailable:
                self._zygote = None  # the worker's zygote failed: this submission starts its own
        if self._own_zygote is None or not self._own_zygote.alive:
            self._own_zygote = Zygote(self._python, mode=self.mode, programs=_programs_root(self._programs))
        return self._own_zygote.fork(workdir, env, self._child_limits, fds, uid=self._uid, tmpfs_bytes=TMPFS_BYTES)

    def _receive_programs(self) -> None:
        """The programs the child compiled, over the pipe, into `write_programs_to` (names checked, sizes capped)."""
        from autograder.sandbox import shared_programs

        if self._process is None or self._process.exit_status() is not None:
            return
        try:
            answer, arrays = self._exchange(requests.CompiledPrograms(), [], self._limits.call_seconds)
        except TransportFailure:
            return
        names = answer.get("names") if answer.get("ok") is True else None
        if isinstance(names, list) and len(names) == len(arrays) and self._write_programs_to is not None:
            shared_programs.write_received(self._write_programs_to, names, arrays, answer.get("primitives"))

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            self._cpu_charged += max(0.0, self._child_cpu - self._child_uncharged)
            self._child_cpu = self._child_uncharged = 0.0
            process.kill()
            self.child_maxrss_kb = max(self.child_maxrss_kb, process.maxrss_kb or 0)
            for fd in (self._request_fd, self._response_fd):
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._output.stop()
        if self._uid is not None and self._uids is not None:
            self._uids.release(self._uid)  # only now: the child and everything it started are gone
            self._uid = None

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


class _OutputDrain:
    """Reads a child's stdout and stderr pipe in a thread, keeping the first `cap` bytes.

    Reading continuously means a child that prints a lot never blocks on a
    full pipe. At the cap the pipe is closed, so the child's next write fails
    (BrokenPipeError) instead of printing forever. `text()` first takes what
    is already in the pipe, so it includes everything printed before the
    child's last answer.
    """

    def __init__(self, cap: int):
        self._cap = cap
        self._chunks: list[bytes] = []
        self._kept = 0
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def follow(self, fd: int) -> None:
        self.stop()
        os.set_blocking(fd, False)
        self._fd = fd
        self._stopping.clear()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop reading (the child is dead); what arrived stays."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stopping.set()
            thread.join(timeout=5)
        with self._lock:
            if self._fd is not None:
                self._take_available()
                os.close(self._fd)
                self._fd = None

    def text(self) -> str:
        with self._lock:
            if self._fd is not None:
                self._take_available()
            return b"".join(self._chunks).decode("utf-8", "replace")

    def _follow(self) -> None:
        while not self._stopping.is_set():
            fd = self._fd
            try:
                # A grandchild may hold the pipe open after the child is killed (process mode).
                readable = select.select([fd], [], [], 0.2)[0] if fd is not None else []
            except (OSError, ValueError):
                return
            if readable:
                with self._lock:
                    if self._fd is None:
                        return
                    if self._take_available():
                        os.close(self._fd)
                        self._fd = None
                        return

    def _take_available(self) -> bool:
        """Read what the pipe holds now (lock held); True once the writer has closed it or the cap is reached."""
        while self._fd is not None:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not chunk:
                return True
            room = self._cap - self._kept
            self._chunks.append(chunk[:room])
            self._kept += min(room, len(chunk))
            if self._kept >= self._cap:
                return True
        return True  # already closed


def _programs_root(programs: Path | None) -> Path | None:
    """The batch's whole store (its parent), which an OS-sandbox zygote shows read-only."""
    return programs.parent if programs is not None else None


# What a failed load is, for the batch's summary ("busy" is tried again, and becomes "grader_error").
_LOAD_PROBLEMS = {ErrorKind.TIMEOUT: "timeout", ErrorKind.BUDGET: "timeout", ErrorKind.BUSY: "busy"}


def _load_failure_feedback(failure: TransportFailure, limits: Limits, printed: str) -> str:
    if failure.kind is ErrorKind.TIMEOUT and failure.detail == STALLED:
        return messages.text("load.stalled", seconds=limits.load_seconds)
    if failure.kind in (ErrorKind.TIMEOUT, ErrorKind.BUDGET):
        return messages.text("load.timeout", seconds=limits.load_seconds)
    if failure.kind is ErrorKind.BUSY:
        return messages.text("load.busy", seconds=limits.backstop(limits.load_seconds))
    feedback = messages.text("load.exited", detail=failure.detail or failure.kind)
    tail = printed.strip()[-600:]
    if tail:
        feedback += "\n" + messages.text("load.last_output", output=tail)
    return feedback


def _strings(values) -> list[str]:
    return [str(v)[:300] for v in values][:20] if isinstance(values, list) else ["(unreadable report)"]
