"""The trusted side of the clean-room runner: starts it, sends it programs and inputs, replaces it when it fails.

A grading worker never deserializes, compiles or runs a program a student's
function exported. It hands the bytes to a runner (cleanroom.runner) that its
zygote forks into the same OS confinement as a submission's child (its own
uid from the UidPool, PID namespace, no network, seccomp, the OS limits), and
gets back facts (protocol.program_facts) and values (wire_format), checked
on arrival. One runner serves a worker across submissions: a program is
known by the hash of its bytes, JAX caches nothing on disk in the runner,
and no custom call is run, so one submission's program cannot change what
another's computes (docs/architecture.md says why). Whenever the runner
fails (a CPU-time limit, the wall-clock backstop, a crash, garbage on the
pipe) that one request fails with a `ProgramRunFailed` that says which, the
runner is killed, and the next request starts a fresh one.

How a wait is judged: while a request is held, its runner's CPU time is read
every CPU_POLL_SECONDS (through the zygote: the runner cannot forge it). A
runner that uses no CPU for as long as the request's CPU-time limit is not
computing but waiting (a program that waits for the host, say): that is the
student's timeout ("stalled"), decided then, never retried. Only when the
wall-clock backstop runs out or the runner idles and its threads were
measurably waiting for a CPU (sandbox.zygote_client.ForkedChild.starved) was
the machine too busy: then the request is tried once more in a fresh runner,
and the grader's problem if it happens again. No request outlives the
submission's own wall-clock deadline (`deadline`).

A runner's CPU time is the submission's too: what each request took (the
runner's own count around its answer; the whole limit for a request that ran
out of it; what the zygote read while a request that stalled was held) is
charged to the budget of the submission being graded (`budget`, its sandbox
transport), whose next request to its child fails as over budget once it is
spent. A request the machine was too busy for is not charged, as a child's is
not. One request can take the budget past its end by at most its own limit.
"""

from __future__ import annotations

import dataclasses
import os
import select
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Protocol

import numpy as np

from autograder.child.confinement import WORKDIR
from autograder.cleanroom.programs import MAX_PROGRAM_BYTES
from autograder.cleanroom.runner import EXIT_CPU_LIMIT
from autograder.protocol import framing, program_requests, wire_format
from autograder.protocol.errors import KitFault
from autograder.protocol.limits import ChildLimits
from autograder.protocol.placements import Placement
from autograder.protocol.program_facts import FactsError, ProgramFacts
from autograder.protocol.program_failures import REFUSAL_REASONS, ProgramRefused, ProgramRunFailed
from autograder.sandbox import os_isolation
from autograder.sandbox.zygote_client import ForkedChild, Zygote, ZygoteUnavailable, child_environment

# The wall-clock backstop is grading.toml's busy_factor times the CPU-time limit, plus room to start
# a runner. It catches a runner the machine was too busy to run (the request is tried once more in a
# fresh runner, then said to be the grader's problem); a runner that waits is caught long before it,
# by its idle CPU clock.
START_SECONDS = 60.0
# How often, in wall-clock seconds, the runner's CPU time is read while a request is held.
CPU_POLL_SECONDS = 0.2
IDLE = "idle"  # why _wait_for_answer gave up: the runner used no CPU for as long as the request's CPU-time limit
RUNNER_TMPFS_BYTES = 64 << 20
# A runner that has used this share of its lifetime CPU limit is replaced before the next request,
# so the lifetime limit never cuts a program short.
RETIRE_AT_SHARE = 0.5


class CpuBudget(Protocol):
    """Where a submission's CPU time is counted (parent.SandboxTransport)."""

    def charge(self, seconds: float) -> None:
        """Count `seconds` of CPU time spent outside the submission's child against its budget."""


@dataclasses.dataclass(frozen=True)
class LoadedProgram:
    """A program loaded in the runner: its handle there and the facts the runner read from its parsed module."""

    handle: str
    facts: ProgramFacts


class ConfinedProgramRunner:
    """Exported programs parsed and run in a confined runner process, never in this one."""

    @classmethod
    def for_config(cls, mode: str, config, *, zygote: Zygote | None = None) -> ConfinedProgramRunner:
        """A runner with grading.toml's limits: `[sandbox]` for its process, `busy_factor` for the backstop."""
        return cls(mode, zygote=zygote, limits=ChildLimits.from_config(config.sandbox),
                   busy_factor=config.limits.busy_factor)

    def __init__(self, mode: str, *, zygote: Zygote | None = None, limits: ChildLimits | None = None,
                 cpu_devices: int = 1, uids: os_isolation.UidPool | None = None, busy_factor: float = 10.0):
        """`mode`: "os" (the OS sandbox) or "process". `zygote`: a started zygote of that mode to fork
        the runner from (a grading worker's; settable later); without one the runner starts its own.
        `busy_factor`: the wall-clock backstop as a multiple of a request's CPU-time limit."""
        self.mode = mode
        self.zygote = zygote
        self._own_zygote: Zygote | None = None
        self._limits = limits or ChildLimits()
        self._cpu_devices = cpu_devices
        self._busy_factor = busy_factor
        self._uids = uids or (os_isolation.UidPool() if mode == "os" else None)
        self._uid: int | None = None
        self._process: ForkedChild | None = None
        self._fds: tuple[int, int] | None = None
        self._workdir: Path | None = None
        self._loaded: set[str] = set()  # handles the current runner holds
        self._cpu_used = 0.0
        self._parked: dict[int, dict[str, Any]] = {}  # device count -> a kept runner's _PROCESS_STATE
        # For tests and the benchmark: runners started, requests answered, seconds spent waiting for them.
        self.starts = 0
        self.requests = 0
        self.busy_seconds = 0.0
        self.too_busy = 0  # requests the machine was too busy for twice: the grader's problem
        # The monotonic time by which the current submission's requests must end (None: no bound); the
        # grading of one submission sets it to that submission's wall-clock deadline.
        self.deadline: float | None = None
        # Where the current submission's CPU time is counted (None: nowhere); set with `deadline`.
        self.budget: CpuBudget | None = None
        self.cpu_charged = 0.0  # for tests: CPU seconds charged to budgets, in all
        self._held_cpu: tuple[float | None, float | None] = (None, None)  # readings while a request was held

    # --- requests --------------------------------------------------------------

    def start_ahead(self) -> None:
        """Start a runner now if none is running, so its start overlaps the caller's other work.

        A runner that cannot start is left for the first request, whose check then says why."""
        if self._alive():
            return
        try:
            self._start()
        except ProgramRunFailed:
            pass

    def load(self, data: bytes, cpu_seconds: float) -> LoadedProgram:
        """Parse `data` in the runner; its handle and facts. Raises ProgramRefused or ProgramRunFailed."""
        return self._tried_twice_if_busy(lambda: self._load(data, cpu_seconds))

    def run(self, program: LoadedProgram, data: bytes, skeleton: Any, arrays: list[np.ndarray],
            cpu_seconds: float, gradient: bool = False) -> Any:
        """The program's outputs on its traced inputs ({"args", "kwargs"} encoded by wire_format), as NumPy arrays.

        `data` is the program's bytes, sent again if the runner was replaced since it was loaded. With
        `gradient`, the gradient of the output's sum with respect to the first argument instead, computed
        in the runner from the derivative program exported with it.
        """
        return self._tried_twice_if_busy(lambda: self._run(program, data, skeleton, arrays, cpu_seconds, gradient))[0]

    def run_placed(self, program: LoadedProgram, data: bytes, skeleton: Any, arrays: list[np.ndarray],
                   cpu_seconds: float) -> tuple[Any, list[Placement]]:
        """The program's outputs, as `run` gives them, and where the runner's devices hold each output leaf."""
        return self._tried_twice_if_busy(lambda: self._run(program, data, skeleton, arrays, cpu_seconds, False))

    def use_devices(self, cpu_devices: int) -> None:
        """Run the next programs with `cpu_devices` CPU devices.

        JAX fixes a process's device count when its backend starts, so each count has a runner of its own.
        An assignment graded with several counts switches between them for every submission: the runner
        of the other count is kept (parked), not ended, as one runner is kept from one submission to the
        next (see docs/architecture.md for why that is safe)."""
        if cpu_devices == self._cpu_devices:
            return
        self._parked[self._cpu_devices] = {name: getattr(self, name) for name in _PROCESS_STATE}
        self._cpu_devices = cpu_devices
        parked = self._parked.pop(cpu_devices, None)
        for name in _PROCESS_STATE:
            setattr(self, name, parked[name] if parked is not None else _idle_state(name))

    def _tried_twice_if_busy(self, request: Callable[[], Any]) -> Any:
        """A request whose wall-clock backstop ran out is tried once more in a fresh runner: no points hang on
        how busy the machine was. Twice too busy is counted in `too_busy` (the submission needs a look)."""
        try:
            return request()
        except ProgramRunFailed as failed:
            if failed.kind != "wall_clock":
                raise
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self.too_busy += 1  # no time left for another try: the submission is graded again later
                raise
        try:
            return request()
        except ProgramRunFailed as failed:
            if failed.kind == "wall_clock":
                self.too_busy += 1
            raise

    def _load(self, data: bytes, cpu_seconds: float) -> LoadedProgram:
        if len(data) > MAX_PROGRAM_BYTES:  # refused before it crosses: the pipe's frames are capped too
            raise ProgramRefused("too_large", f"{len(data) >> 20} MiB, more than {MAX_PROGRAM_BYTES >> 20} MiB")
        answer, _ = self._exchange(program_requests.LoadProgram(cpu_seconds=cpu_seconds),
                                   [np.frombuffer(data, dtype=np.uint8)], cpu_seconds)
        if answer.get("ok") is not True:
            refused = answer.get("refused")
            if isinstance(refused, str) and refused in REFUSAL_REASONS:
                raise ProgramRefused(refused, _text(answer.get("detail")))
            if isinstance(answer.get("kit_fault"), str):
                raise KitFault(_text(answer["kit_fault"]))
            raise ProgramRunFailed("bad_output", "the runner refused the program without a known reason")
        handle = answer.get("handle")
        if not isinstance(handle, str) or len(handle) != 64:
            raise self._failed("bad_output", "no handle in the answer")
        try:
            facts = ProgramFacts.from_wire(answer.get("facts"))
        except FactsError as error:
            raise self._failed("bad_output", str(error)) from None
        self._loaded.add(handle)
        return LoadedProgram(handle, facts)

    def _run(self, program: LoadedProgram, data: bytes, skeleton: Any, arrays: list[np.ndarray],
             cpu_seconds: float, gradient: bool = False) -> tuple[Any, list[Placement]]:
        if program.handle not in self._loaded or not self._alive():
            self._load(data, cpu_seconds)
        request = program_requests.RunProgram(handle=program.handle, args_skeleton=skeleton, cpu_seconds=cpu_seconds,
                                              gradient=gradient)
        answer, out = self._exchange(request, arrays, cpu_seconds)
        if answer.get("ok") is not True:
            raw = answer.get("error")
            error = raw if isinstance(raw, dict) else {}
            raise ProgramRunFailed("raised", _text(error.get("message")), _text(error.get("type"), 80) or "Error")
        try:
            value = wire_format.decode(answer.get("value_skeleton"), out, make_array=lambda a: a,
                                       make_key=lambda data, impl: data)
            raw = answer.get("placements", [])
            placements = [Placement.from_wire(p) for p in (raw if isinstance(raw, list) else [None])]
        except (wire_format.WireFormatError, ValueError) as error:
            raise self._failed("bad_output", str(error)) from None
        return value, placements

    def close(self) -> None:
        """End the runner, those of other device counts (and the zygote this object started, if any)."""
        self._stop()
        for count in list(self._parked):
            self.use_devices(count)
            self._stop()
        if self._own_zygote is not None:
            self._own_zygote.close()
            self._own_zygote = None

    # --- the runner process ------------------------------------------------------

    def _exchange(self, request: program_requests.ProgramRequest, arrays: list, cpu_seconds: float
                  ) -> tuple[dict, list]:
        if self._alive() and self._cpu_used > self._limits.cpu_seconds * RETIRE_AT_SHARE:
            self._stop()
        if not self._alive():
            started = time.monotonic()
            self._start()
            self.busy_seconds += time.monotonic() - started
        assert self._fds is not None
        request_fd, response_fd = self._fds
        backstop = cpu_seconds * self._busy_factor + START_SECONDS
        started = time.monotonic()
        ends = started + backstop if self.deadline is None else min(started + backstop, self.deadline)
        try:
            framing.write_message(request_fd, program_requests.header(request), arrays)
            self._wait_for_answer(response_fd, cpu_seconds, ends)
            answer, out = framing.read_message(response_fd, ends)
        except framing.ChannelTimeout as timeout:
            raise self._overrun(cpu_seconds, backstop, idle=str(timeout) == IDLE) from None
        except (framing.ChannelClosed, BrokenPipeError):
            raise self._died(cpu_seconds) from None
        except (framing.WireFormatError, RecursionError) as error:
            raise self._failed("bad_output", str(error)[:200]) from None
        self.requests += 1
        self.busy_seconds += time.monotonic() - started
        used = answer.get("cpu_used")
        if isinstance(used, (int, float)) and not isinstance(used, bool):
            self._cpu_used = float(used)
        took = answer.get("cpu_request")
        if isinstance(took, (int, float)) and not isinstance(took, bool):
            self._charge(min(float(took), cpu_seconds + 1.0))  # never more than the runner's own limit allowed
        return answer, out

    def _charge(self, seconds: float) -> None:
        """Count `seconds` of the runner's CPU time against the current submission's budget."""
        if self.budget is not None and seconds > 0:
            self.budget.charge(seconds)
            self.cpu_charged += seconds

    def _wait_for_answer(self, response_fd: int, cpu_seconds: float, ends: float) -> None:
        """Return once the answer starts to arrive (or the runner ended: the read then says so).

        Raises framing.ChannelTimeout at `ends`, or once the runner has used no CPU for `cpu_seconds` of
        wall-clock time: one tick in that long is what even a starved runner gets (see _overrun).
        """
        assert self._process is not None
        self._held_cpu = (None, None)
        if select.select([response_fd], [], [], CPU_POLL_SECONDS)[0]:
            return  # answered at once: no reading (the answer says what it took)
        last_used, idle_since = self._process.cpu_seconds(), time.monotonic()
        self._held_cpu = (last_used, last_used)
        while not select.select([response_fd], [], [], CPU_POLL_SECONDS)[0]:
            used, now = self._process.cpu_seconds(), time.monotonic()
            if used is not None and (last_used is None or used > last_used):
                last_used, idle_since = used, now
                self._held_cpu = (self._held_cpu[0] if self._held_cpu[0] is not None else used, used)
            if now - idle_since >= cpu_seconds:
                raise framing.ChannelTimeout(IDLE)
            if now >= ends:
                raise framing.ChannelTimeout()

    def _overrun(self, cpu_seconds: float, backstop: float, idle: bool) -> ProgramRunFailed:
        """Kill the runner that did not answer in time, and say whose time it was. An `idle` runner whose
        threads were not waiting for a CPU waited for something else: the student's ("stalled"; a regrade
        would wait again). Otherwise the machine was too busy ("wall_clock"), or the submission's own
        wall-clock deadline came while the program was still computing, which is not the student's either."""
        starved = self._process is not None and self._process.starved()
        if idle and not starved:
            self._charge_held()
            return self._failed("stalled", seconds=cpu_seconds)
        return self._failed("wall_clock", seconds=backstop)

    def _charge_held(self) -> None:
        """Charge what the zygote read the runner use while the request was held (its answer never came)."""
        first, last = self._held_cpu
        if first is not None and last is not None:
            self._charge(last - first)

    def _died(self, cpu_seconds: float) -> ProgramRunFailed:
        code = self._process.exit_status(timeout=2) if self._process is not None else None
        if code is not None and (-code == signal.SIGXCPU or code == EXIT_CPU_LIMIT):
            self._charge(cpu_seconds)  # all of the request's limit
            return self._failed("cpu_limit", seconds=cpu_seconds)
        self._charge_held()
        detail = ("it stopped answering" if code is None else
                  f"killed by signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}")
        return self._failed("crashed", detail)

    def _failed(self, kind: str, detail: str = "", seconds: float = 0.0) -> ProgramRunFailed:
        """Kill the runner (the next request starts another) and describe the failure."""
        self._stop()
        return ProgramRunFailed(kind, detail, seconds=seconds)

    def _alive(self) -> bool:
        """Whether the runner is still there, asked before every request: a look at this process's end of
        its answer pipe (closed at the other end once the runner is gone), not a round trip to the zygote."""
        return self._process is not None and self._fds is not None and not framing.writers_gone(self._fds[1])

    def _start(self) -> None:
        self._stop()
        request_read, request_write = os.pipe()
        response_read, response_write = os.pipe()
        output = os.open(os.devnull, os.O_WRONLY)  # a runner prints nothing anyone reads
        try:
            if self._uids is not None:
                self._uid = self._uids.take()
                workdir = WORKDIR
            else:
                self._workdir = Path(tempfile.mkdtemp(prefix="autograder-runner-"))
                workdir = str(self._workdir)
            self._process = self._fork(workdir, (request_read, response_write, output))
        except (ZygoteUnavailable, os_isolation.IsolationUnavailable, OSError) as error:
            for fd in (request_write, response_read):
                os.close(fd)
            self._release_uid()
            raise ProgramRunFailed("unavailable", str(error).splitlines()[0][:300] if str(error) else "") from None
        finally:
            for fd in (request_read, response_write, output):
                os.close(fd)
        self._fds = (request_write, response_read)
        self._loaded.clear()
        self._cpu_used = 0.0
        self.starts += 1

    def _fork(self, workdir: str, fds: tuple[int, int, int]) -> ForkedChild:
        env = child_environment(workdir)
        options = dict(uid=self._uid, tmpfs_bytes=RUNNER_TMPFS_BYTES, role="runner", cpu_devices=self._cpu_devices)
        if self.zygote is not None and self.zygote.alive:
            try:
                return self.zygote.fork(workdir, env, self._limits, fds, **options)  # type: ignore[arg-type]
            except ZygoteUnavailable:
                pass  # the worker's zygote failed: start one of our own
        if self._own_zygote is None or not self._own_zygote.alive:
            if self._own_zygote is not None:
                self._own_zygote.close()
            self._own_zygote = Zygote(mode=self.mode, start_seconds=START_SECONDS)
        return self._own_zygote.fork(workdir, env, self._limits, fds, **options)  # type: ignore[arg-type]

    def _stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.kill()
        if self._fds is not None:
            for fd in self._fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._fds = None
        self._release_uid()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None
        self._loaded.clear()

    def _release_uid(self) -> None:
        if self._uid is not None and self._uids is not None:
            self._uids.release(self._uid)  # only now: the runner and everything it started are gone
        self._uid = None


# What belongs to one runner process: kept aside while another device count's runner serves (use_devices).
_PROCESS_STATE = ("_process", "_fds", "_uid", "_workdir", "_loaded", "_cpu_used")


def _idle_state(name: str) -> Any:
    """`name`'s value when no runner process is started."""
    return set() if name == "_loaded" else 0.0 if name == "_cpu_used" else None


def _text(value: Any, cap: int = 300) -> str:
    return value[:cap] if isinstance(value, str) else ""
