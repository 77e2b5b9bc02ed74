"""The clean-room runner: a confined process that parses, compiles and runs exported programs.

A grading worker's zygote forks it (`role="runner"`) into the same OS
confinement as a submission's child: its own uid, PID namespace, no network,
a read-only view, seccomp and the OS limits. It never runs student Python: it
reads `LoadProgram` and `RunProgram` requests (protocol.program_requests)
from a pipe and answers with facts and values in the data-only wire format.

Before each request it sets its own CPU-time limit (RLIMIT_CPU's soft limit,
which the kernel enforces with SIGXCPU) to what it has used so far plus the
request's `cpu_seconds`: a program that runs too long ends the runner, and
the worker, which sees the signal, fails that one check and starts another
runner. CPU time, not wall-clock time, so a busy machine costs no points.
Each answer says how much CPU time it took (`cpu_request`), which the worker
charges to the budget of the submission whose program it was.
JAX's persistent compilation cache is off here: nothing is written to disk.
"""

from __future__ import annotations

import math
import os
import resource
import signal

from autograder.cleanroom.programs import ProgramTable
from autograder.protocol import framing, program_requests, wire_format
from autograder.protocol.errors import KitFault
from autograder.protocol.placements import placement_of
from autograder.protocol.program_failures import ProgramRefused
from autograder.protocol.requests import RequestError


def serve(request_fd: int, response_fd: int, devices: int = 1) -> None:
    """Answer program requests until the worker closes the pipe."""
    import jax

    _serve_below_the_namespace_init(request_fd, response_fd)

    # Before the backend starts (the zygote never starts one): the device count is fixed by then.
    if devices > 1:
        jax.config.update("jax_num_cpu_devices", devices)
    jax.config.update("jax_enable_compilation_cache", False)
    # The backend starts now, while the worker is busy elsewhere (it starts runners ahead of need), not
    # on the first program's clock.
    jax.devices()
    table = ProgramTable(devices)
    while True:
        try:
            header, arrays = framing.read_message(request_fd)
        except framing.ChannelClosed:
            return
        before = _cpu_used()
        answer, out = _answer(table, header, arrays)
        answer["cpu_used"] = round(_cpu_used(), 3)
        # What answering took: charged to the submission whose program it was (program_runner.CpuBudget).
        answer["cpu_request"] = round(max(0.0, answer["cpu_used"] - before), 3)
        try:
            framing.write_message(response_fd, answer, out)
        except framing.WireFormatError as error:
            framing.write_message(response_fd, {"ok": False, "error": {"type": "BadOutput", "message": str(error)}},
                                  [])


# How PID 1 of the runner's namespace reports that the server ran out of CPU time (128 + the signal, as shells do).
EXIT_CPU_LIMIT = 128 + signal.SIGXCPU


def _serve_below_the_namespace_init(request_fd: int, response_fd: int) -> None:
    """In the OS sandbox the runner is PID 1 of its namespace, which the kernel never sends SIGXCPU or an
    RLIMIT_CPU SIGKILL to: fork, serve in the child, and let PID 1 wait and pass on how it ended."""
    if os.getpid() != 1:
        return
    server = os.fork()
    if server == 0:
        return
    for fd in (0, 1, 2, request_fd, response_fd):  # the worker sees the pipe close when the server dies
        os.close(fd)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == server:
            break
    if os.WIFSIGNALED(status):
        os._exit(EXIT_CPU_LIMIT if os.WTERMSIG(status) == signal.SIGXCPU else 128 + os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


def _answer(table: ProgramTable, header: dict, arrays: list) -> tuple[dict, list]:
    try:
        request = program_requests.parse(header)
    except RequestError as error:
        return {"ok": False, "error": {"type": "BadRequest", "message": str(error)}}, []
    _limit_cpu(request.cpu_seconds)
    try:
        if isinstance(request, program_requests.LoadProgram):
            return _load(table, arrays)
        return _run(table, request, arrays)
    finally:
        _limit_cpu(None)


def _load(table: ProgramTable, arrays: list) -> tuple[dict, list]:
    if len(arrays) != 1 or arrays[0].dtype.kind != "u" or arrays[0].ndim != 1:
        return {"ok": False, "refused": "unreadable", "detail": "no program bytes"}, []
    try:
        handle, facts = table.load(arrays[0].tobytes())
    except ProgramRefused as refused:
        return {"ok": False, "refused": refused.reason, "detail": refused.detail[:300]}, []
    except KitFault as fault:  # the kit's reading of a parsed program failed: said as such, not as a refusal
        return {"ok": False, "kit_fault": str(fault)[:300]}, []
    return {"ok": True, "handle": handle, "facts": facts.to_wire()}, []


def _run(table: ProgramTable, request: program_requests.RunProgram, arrays: list) -> tuple[dict, list]:
    import jax

    try:
        inputs = wire_format.decode(request.args_skeleton, arrays, make_array=jax.device_put,
                                    make_key=lambda data, impl: jax.random.wrap_key_data(data, impl=impl))
    except (wire_format.WireFormatError, ValueError, TypeError) as error:
        return {"ok": False, "error": {"type": "BadRequest", "message": str(error)[:300]}}, []
    if not isinstance(inputs, dict):
        return {"ok": False, "error": {"type": "BadRequest", "message": "inputs must be {args, kwargs}"}}, []
    try:
        out = table.run(request.handle, list(inputs.get("args", ())), dict(inputs.get("kwargs", {})),
                        gradient=request.gradient is True)
    except KeyError:
        return {"ok": False, "error": {"type": "UnknownHandle", "message": "the program is not loaded"}}, []
    except Exception as error:  # the program's own failure (shapes that disagree, a failed compile): data
        return {"ok": False, "error": {"type": type(error).__name__, "message": _first_line(error)}}, []
    try:
        skeleton, out_arrays = wire_format.encode(out, wire_format.leaf_to_array)
    except wire_format.WireFormatError as error:
        return {"ok": False, "error": {"type": "BadOutput", "message": str(error)[:300]}}, []
    # Where each result leaf lives on this process's devices: facts for sharding checks (protocol.placements).
    placements = [placement_of(leaf).to_wire() for leaf in jax.tree.leaves(out) if isinstance(leaf, jax.Array)]
    return {"ok": True, "value_skeleton": skeleton, "placements": placements}, out_arrays


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _limit_cpu(seconds: float | None) -> None:
    """The soft CPU limit: what was used so far plus `seconds`, or back to the hard limit (None)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if seconds is None:
        soft = hard
    else:
        soft = math.ceil(_cpu_used() + seconds)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines()[0] if text else "")[:300]
