"""The zygote: a pre-started process that forks one fresh sandbox child per submission.

Spawning `python -I -m autograder.child.main` costs a Python start-up and
`import jax` for every submission. The zygote is started exactly like such
a child (isolated mode, the allow-listed environment), pays those imports
once, and then forks on request. It never starts a JAX backend: forking after
a backend has started deadlocks (its thread pools do not survive fork), so
before every fork it checks that it still has one thread and no backend, and
refuses otherwise (the trusted side then spawns the child instead).

After fork, the child makes itself what a spawned child is: its own session
and process group, the OS limits, its fresh working directory, only the
allow-listed environment, stdin from /dev/null, stdout and stderr to the
capture file and no other inherited descriptor; then sandbox.child installs
the audit hook and serves as usual. The zygote runs no student code and holds
no grading data: a request carries a working directory, an environment,
limits and the child's ends of its pipes (passed with SCM_RIGHTS).

In the OS sandbox (`--sandbox os`, the zygote started inside bubblewrap by
sandbox.os_isolation) a fork request carries a uid: the fork then makes a new
PID and mount namespace and forks once more; that second process, PID 1 of
the namespace, confines itself (sandbox.confinement: private tmpfs, the uid,
no capabilities, seccomp, limits) and serves, while the first stays outside
as root, waits for it and ends with its status, so that the zygote's
accounting (status, reap, peak memory) sees the child as before.

Protocol (SOCK_SEQPACKET, one JSON object per message, answered in order):
  ready (sent once at start-up) -> {"ready": true, "pid"}
  {"op": "fork", "workdir", "env", "limits", "uid" (OS sandbox) or null,
      "tmpfs_bytes", "role" ("child", the default, or "runner": the clean-room
      runner, cleanroom.runner), "cpu_devices" (a runner's)} + fds (request read end, response write end, the write
      end of the output pipe) -> {"pid"} or {"refused": why}
  {"op": "status", "pid", "timeout"} -> {"returncode": int or null} (does not reap)
  {"op": "reap", "pid"} -> {"returncode", "maxrss_kb", "zygote_maxrss_kb"} (kills the
      child's group first; peak resident memory of the child and of the zygote)
  {"op": "cpu", "pid"} -> {"cpu_seconds": float} (CPU time, user and system, of the child
      and every live process below it, with what they already waited for: the
      trusted side's measure of a submission's time limits, sandbox.parent)
  {"op": "run_queue", "pid"} -> {"wait_seconds": float} (how long the threads of those
      processes waited, runnable, for a CPU: a starved child's grows, a sleeping one's not)
  {"op": "clone"} + fd (one end of a new channel) -> {"pid"} or {"refused": why}: a fork of
      this zygote becomes a zygote of its own on that channel (it sends "ready" there, serves
      there, and is not one of this zygote's children for the ops above). A batch starts one
      zygote and gives each grading worker a clone: the imports are paid once, not per worker.
When the trusted side closes the socket (or dies), the zygote kills every
child (and clone) it started and exits.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import resource
import signal
import socket
import sys
import threading
import time
import traceback

from autograder.protocol.limits import ChildLimits

MAX_MESSAGE_BYTES = 64 * 1024
FDS_PER_CHILD = 3  # request read end, response write end, output pipe
REQUEST_FD, RESPONSE_FD = 3, 4  # where the child finds its pipes
_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)
_EXIT = os._exit  # kept before any student code exists, which could replace os._exit

_children: set[int] = set()
_clones: set[int] = set()
_import_environment: dict[str, str] = {}
_confined = "--confined" in sys.argv  # started inside the OS sandbox: children get uids and namespaces


def main(socket_fd: int) -> None:
    channel = socket.socket(fileno=socket_fd)
    _die_with_parent(os.getppid())
    environment = dict(os.environ)
    snapshot = _preload()
    # What the imports added to the environment (JAX sets TF_CPP_MIN_LOG_LEVEL...):
    # a spawned child has it too, so every forked child gets it back.
    _import_environment.update({k: v for k, v in os.environ.items() if environment.get(k) != v})
    _serve_until_closed(channel, snapshot)


def _serve_until_closed(channel: socket.socket, snapshot) -> None:
    """Say ready, serve `channel` until the trusted side closes it, end every child and clone; ends the process."""
    channel.send(json.dumps({"ready": True, "pid": os.getpid()}).encode())
    try:
        _serve(channel, snapshot)
    finally:
        for pid in list(_children) + list(_clones):
            _kill_group(pid)
    # The worker waits for this exit at the end of every batch: interpreter shutdown with JAX
    # imported (0.3 s) only delays it. Nothing is left to write (children are gone, logs unbuffered).
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    _EXIT(0)


def _preload():
    """Import what every child needs, and record the grading machinery once for all of them."""
    import jax  # noqa: F401
    import jax.numpy  # noqa: F401
    from jax import lax, random  # noqa: F401

    from autograder.child import confinement, harnesses, main, tamper  # noqa: F401  (executor, framing...)
    from autograder.cleanroom import module_walk, runner  # noqa: F401  (what a runner fork serves with)
    from autograder.load.submission_source import _transformer, nbformat

    _transformer()  # IPython's input transformer (0.1 s to import), for cells with % or !

    if _confined:
        import pyseccomp  # noqa: F401  (loads libseccomp while the whole view is readable)

    # nbformat compiles its schema validator on first use: once here, not once per child.
    nbformat.validate(nbformat.v4.new_notebook())
    _load_what_jax_loads_on_first_use()
    return tamper.take()


def _load_what_jax_loads_on_first_use() -> None:
    """What JAX would otherwise load in every child, on its first programs: the MLIR dialect modules its
    contexts register, and the LAPACK kernels `jax.export` registers (scipy's, a quarter of a second).
    Neither starts a thread (fork_hazard checks before every fork); with a JAX that lacks them, children
    load what they need as before."""
    try:
        from jax._src.interpreters import mlir
        from jax._src.lax import linalg

        for dialect in ("mhlo", "chlo", "hlo", "sdy", "mpmd"):
            getattr(mlir.dialects, dialect, None)
        linalg.initialize_lapack()
    except (ImportError, AttributeError):
        pass


def _serve(channel: socket.socket, snapshot) -> None:
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(channel, MAX_MESSAGE_BYTES, FDS_PER_CHILD)
        except (OSError, ValueError):
            return
        if not data:
            return  # the trusted side is gone
        try:
            request = json.loads(data)
            answer = _handle(request, fds, channel, snapshot)
        except Exception as error:  # a malformed request from the trusted side: say so, keep serving
            answer = {"error": f"{type(error).__name__}: {error}"}
        finally:
            for fd in fds:
                os.close(fd)  # the child has its own copies
        channel.send(json.dumps(answer).encode())


def _handle(request: dict, fds: list[int], channel: socket.socket, snapshot) -> dict:
    op = request.get("op")
    if op == "fork":
        if len(fds) != FDS_PER_CHILD:
            raise ValueError(f"fork needs {FDS_PER_CHILD} descriptors, got {len(fds)}")
        problem = fork_hazard()
        if problem:
            return {"refused": problem}
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            if request.get("uid") is not None:
                _become_confined_child(request, fds, channel, snapshot)  # never returns
            _become_child(request, fds, channel, snapshot)  # never returns
        _children.add(pid)
        return {"pid": pid}
    if op == "clone":
        return _clone(fds, channel, snapshot)
    pid = int(request.get("pid", 0))
    if pid not in _children:
        raise ValueError(f"{pid} is not a child of this zygote")
    if op == "status":
        return {"returncode": _peek(pid, float(request.get("timeout", 0)))}
    if op == "reap":
        return _reap(pid, confined=request.get("confined") is True)
    if op == "cpu":
        return {"cpu_seconds": tree_cpu_seconds(pid)}
    if op == "run_queue":
        return {"wait_seconds": tree_run_queue_seconds(pid)}
    raise ValueError(f"unknown op {op!r}")


def _clone(fds: list[int], channel: socket.socket, snapshot) -> dict:
    """Fork a zygote of its own that serves the channel fds[0]; the ended clones are reaped first."""
    if len(fds) != 1:
        raise ValueError(f"clone needs 1 descriptor, got {len(fds)}")
    for pid in list(_clones):
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            _clones.discard(pid)
    problem = fork_hazard()
    if problem:
        return {"refused": problem}  # its channel closes with this answer: the worker starts a zygote itself
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _become_clone(fds[0], channel, snapshot)  # never returns
    _clones.add(pid)
    return {"pid": pid}


def _become_clone(fd: int, template_channel: socket.socket, snapshot) -> None:
    """Turn this fork into a zygote serving the channel `fd`, with no children yet; always ends the process."""
    try:
        template = os.getppid()
        template_channel.close()
        os.setsid()  # its own group: the template ends it, and all below it, as it ends a child
        _die_with_parent(template)
        _children.clear()
        _clones.clear()
        _serve_until_closed(socket.socket(fileno=fd), snapshot)
    except BaseException:
        _print_traceback()
    finally:
        _EXIT(0)


def _print_traceback() -> None:
    """Print the exception being handled to stderr (the capture file), if stderr still works at all."""
    try:
        traceback.print_exc()
    except BaseException:
        pass


def fork_hazard() -> str | None:
    """Why forking now would not give a sound child, or None if it would."""
    from jax._src import xla_bridge

    if xla_bridge.backends_are_initialized():
        return "a JAX backend has started in the zygote"
    if threading.active_count() != 1 or len(os.listdir("/proc/self/task")) != 1:
        return "the zygote has more than one thread"
    return None


# --- the child, right after fork ------------------------------------------------

def _become_confined_child(request: dict, fds: list[int], channel: socket.socket, snapshot) -> None:
    """Fork PID 1 of a new namespace, confine it and let it serve; stay outside, wait, pass on its end."""
    from autograder.child import confinement

    status = 1
    try:
        zygote = os.getppid()
        os.setsid()
        _die_with_parent(zygote)
        if request.get("uid") in (None, 0) or not _confined:
            raise confinement.ConfinementError(
                "a confined child needs a nonzero uid and a zygote inside the OS sandbox")
        confinement.enter_pid_namespace()
        alive_read, alive_write = os.pipe()
        inner = os.fork()
        if inner == 0:
            os.close(alive_write)
            _become_child(request, fds, channel, snapshot, confine=lambda: confinement.confine(
                int(request["uid"]), ChildLimits(**request["limits"]), int(request["tmpfs_bytes"]), alive_read))
        os.close(alive_read)
        channel.close()
        for fd in fds:
            os.close(fd)
        # The zygote's reap asks with SIGTERM, so the inner child is waited for and its memory counted.
        signal.signal(signal.SIGTERM, lambda *_: os.kill(inner, signal.SIGKILL))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _, wait_status = os.waitpid(inner, 0)
        if os.WIFSIGNALED(wait_status):
            signal.signal(os.WTERMSIG(wait_status), signal.SIG_DFL)
            os.kill(os.getpid(), os.WTERMSIG(wait_status))
        status = os.waitstatus_to_exitcode(wait_status)
    except BaseException:
        _print_traceback()
    finally:
        _EXIT(status)


def _become_child(request: dict, fds: list[int], channel: socket.socket, snapshot, confine=None) -> None:
    """Turn this fork into a sandbox child and serve; always ends the process.

    `confine`, in the OS sandbox, makes the process a confined child (its
    own tmpfs as working directory, uid, limits, seccomp); otherwise it gets
    the OS limits and the working directory the request names.
    """
    status = 1
    try:
        channel.close()
        if confine is not None:
            confine()
        else:
            zygote = os.getppid()
            os.setsid()  # own session and process group: the parent kills the group at the deadline
            _die_with_parent(zygote)
            os.chdir(request["workdir"])
        _settle_descriptors(*fds)
        _replace_environment(request["env"])
        # The dispositions a fresh Python starts with (the zygote ignores SIGINT).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if confine is None:
            ChildLimits(**request["limits"]).apply()
        if request.get("role") == "runner":  # the clean room: exported programs, never student Python
            from autograder.cleanroom import runner

            runner.serve(REQUEST_FD, RESPONSE_FD, int(request.get("cpu_devices") or 1))
        else:
            from autograder.child import main as child

            child.serve(REQUEST_FD, RESPONSE_FD, snapshot)  # installs the audit hook first
        status = 0
    except BaseException:
        _print_traceback()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        _EXIT(status)


def _settle_descriptors(request_fd: int, response_fd: int, output_fd: int) -> None:
    """stdin /dev/null, stdout and stderr the capture file, the pipes at 3 and 4, nothing else."""
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 100) for fd in (request_fd, response_fd, output_fd)]
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(high[2], 1)
    os.dup2(high[2], 2)
    os.dup2(high[0], REQUEST_FD)
    os.dup2(high[1], RESPONSE_FD)
    os.closerange(RESPONSE_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _replace_environment(env: dict) -> None:
    """Exactly the environment a spawned child would have once its imports are done."""
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    for name, value in _import_environment.items():
        os.environ.setdefault(name, value)
    if "tempfile" in sys.modules:
        import tempfile

        tempfile.tempdir = None  # it caches the zygote's TMPDIR


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process when its parent dies, so nothing outlives the grader."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the request took effect
        _EXIT(1)


# --- children's CPU time --------------------------------------------------------------

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds of `root` and every live process below it, read from /proc.

    Per process: utime + stime (all its threads: JAX's thread pools count)
    plus cutime + cstime (its children that ended and were waited for). In
    the OS sandbox every process a child starts stays below it (orphans go
    to the namespace's PID 1); elsewhere an orphan that left the tree, or a
    child nobody waited for, no longer counts. The zygote reads /proc as the
    trusted side's agent: nothing here comes from the child.
    """
    stats = _process_stats()
    return sum(stats[pid][1] for pid in _tree(root, stats)) / _CLOCK_TICKS


def tree_run_queue_seconds(root: int) -> float:
    """Seconds the threads of `root` and the live processes below it spent runnable, waiting for a CPU.

    From /proc/<pid>/task/<tid>/schedstat (its second field, in ns): it grows
    while the machine is too busy to run a child that wants to, not while
    the child sleeps or waits for input.
    """
    total = 0
    for pid in _tree(root, _process_stats()):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as handle:
                    total += int(handle.read().split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return total / 1e9


def _tree(root: int, stats: dict[int, tuple[int, int]]) -> list[int]:
    """`root` and every process below it, of those in `stats`."""
    below: dict[int, list[int]] = {}
    for pid, (parent, _) in stats.items():
        below.setdefault(parent, []).append(pid)
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        if pid in stats:
            found.append(pid)
        pending.extend(below.get(pid, ()))
    return found


def _process_stats() -> dict[int, tuple[int, int]]:
    """Every visible process: pid -> (parent pid, its CPU clock ticks with its waited-for children's)."""
    stats = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                line = handle.read()
        except OSError:  # ended meanwhile
            continue
        fields = line[line.rfind(b")") + 2:].split()  # after the command name, which may hold spaces
        if len(fields) > 14:
            # fields[1] is the parent pid; 11-14: utime, stime, cutime, cstime (stat fields 14-17)
            stats[int(name)] = (int(fields[1]), sum(int(f) for f in fields[11:15]))
    return stats


# --- children's ends ----------------------------------------------------------------

def _peek(pid: int, timeout: float) -> int | None:
    """The child's exit code (negative: killed by that signal) once it ends, else None; leaves it unreaped."""
    deadline = time.monotonic() + min(max(timeout, 0.0), 60.0)
    while True:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None and info.si_pid == pid:
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def _reap(pid: int, confined: bool = False) -> dict:
    # Killing before reaping: while the child is unreaped its process group
    # id cannot be reused, so the group killed is certainly the child's.
    if confined:  # ask the outer process first: it kills and waits for the inner one, whose memory then counts
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        _peek(pid, 2.0)
    _kill_group(pid)
    _, status, usage = os.wait4(pid, 0)
    _children.discard(pid)
    return {"returncode": os.waitstatus_to_exitcode(status), "maxrss_kb": usage.ru_maxrss,
            "zygote_maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def _kill_group(pid: int) -> None:
    for kill in (os.killpg, os.kill):  # the group, and the child itself if it had no time to make one
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the trusted side's business
    main(int(sys.argv[1]))
