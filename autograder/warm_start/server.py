"""The warm server: imports what a check imports, then forks one process per check it is handed.

Started by `client.start_server` (`run(ENTRY SOCKET LOCK)`), detached from the terminal, with the
environment `identity.server_environment` gives. It takes LOCK first (a
second server of the same identity exits at once), listens on SOCKET,
imports, and from then on:
- a connection brings a check: the client's command line, working folder,
  environment, text encoding and its standard input, output and error;
- the server forks; the fork becomes that command (`_become`) and runs it;
- the fork sends the client its exit status as it exits; the server sends
  it the status it reaps, the one that tells a fork killed by a signal.
One event loop and no threads, so every fork starts from a process with
one thread, as forking requires. It exits after IDLE_SECONDS without a
check, or once its socket is no longer the file it bound.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import selectors
import signal
import socket
import sys
import threading
import time
from pathlib import Path

from autograder.warm_start import client, ending, identity, wire

IDLE_SECONDS = 600.0
LOOK_EVERY_SECONDS = 5.0
MAX_REQUEST_BYTES = 1 << 20
# What a check imports before it has its result, per entry (measured: the modules a fork of a server that had
# imported none of them added), imported once here instead of in every check. A module missing from an older
# JAX or from the student package is skipped. None may start JAX's backend (`_forkable` makes sure).
_JAX = ("jax", "jax.numpy", "jax.extend", "jax.experimental.key_reuse", "jax.experimental.shard_map",
        "jax.experimental.multihost_utils", "jaxlib.mlir.dialects.mhlo", "numpy", "nbformat", "polib",
        "encodings.unicode_escape")
_CHECKING = tuple(f"autograder.{name}" for name in (
    "check.calls_shown", "check.cause_first", "check.compare", "check.expectations", "check.exported_program",
    "check.function_claims", "check.gated_checks", "check.jax_error_hints", "check.placement_checks",
    "check.retrace_explanations",
    "check.rounding_relation", "check.said_once", "check.submission", "check.typed_key", "check.value_relations",
    "child.harness_types", "child.harnesses", "child.harnesses_07_vmap_pytrees", "child.harnesses_08_scan_purity",
    "child.harnesses_09_autodiff", "child.jaxpr_walk", "child.older_jax_exports", "child.wider_floats",
    "cleanroom.allowed_operations", "cleanroom.module_walk", "cleanroom.programs", "protocol.placements",
    "protocol.program_facts", "protocol.program_failures", "sandbox.compile_speed", "sandbox.compilation_cache",
    "sandbox.inprocess", "load.submission_source", "load.example_cells", "student.device_checks",
    "student.check_processes", "student.exercise_halves"))
PRELOAD = {
    "student": (*_JAX, *_CHECKING, *(f"autograder.student.{name}" for name in (
        "cli", "checking", "recorded", "jax_support", "replay", "replayed_mistakes", "learned_sentences"))),
    "kit": (*_JAX, *_CHECKING, "pytest", "unittest", "pdb", "faulthandler", "xml.etree.ElementTree",
            "autograder.cli", "autograder.course_suites", "autograder.grade.pipeline",
            "autograder.check.known_mistakes", "autograder.check.pytest_plugin", "autograder.reports.terminal_table",
            "autograder.suites.api", "autograder.suites.expect"),
}
MAIN = {"student": "autograder.student.cli", "kit": "autograder.cli"}


def serve(entry: str, socket_path: str, lock_path: str) -> int:
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server of this identity is alive
    os.ftruncate(lock, 0)
    os.write(lock, str(os.getpid()).encode())
    try:
        listener = _listen(socket_path)
    except OSError:  # a folder whose file system has no Unix sockets (some network homes)
        _mark_unforkable(socket_path)
        return 1
    bound = os.stat(socket_path).st_ino
    for name in PRELOAD[entry]:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if not _forkable():
        _mark_unforkable(socket_path)
        os.unlink(socket_path)
        return 1
    main = importlib.import_module(MAIN[entry]).main
    _loop(listener, socket_path, bound, main, lock)
    return 0


def _mark_unforkable(socket_path: str) -> None:
    """Said once, for every later check of this identity: a check waits for a server it starts, and one that
    cannot serve would cost each of them the wait and then its own imports."""
    with contextlib.suppress(OSError):
        os.close(os.open(identity.unforkable_path(Path(socket_path)),
                         os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))


def _listen(socket_path: str) -> socket.socket:
    try:
        os.unlink(socket_path)  # a dead server's; a live one holds the lock taken above
    except FileNotFoundError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        with identity.socket_address(socket_path) as address:
            listener.bind(address)
    finally:
        os.umask(old_mask)
    listener.listen(16)
    return listener


def _forkable() -> bool:
    """Whether a fork of this process starts as a new process would: one thread, and JAX's backend not started."""
    from jax._src import xla_bridge

    return threading.active_count() == 1 and not getattr(xla_bridge, "_backends", {})


def _loop(listener: socket.socket, socket_path: str, bound: int, main, lock: int) -> None:
    events = selectors.DefaultSelector()
    events.register(listener, selectors.EVENT_READ, None)
    running: dict[int, tuple[int, socket.socket]] = {}  # pidfd: (pid, the client's connection)
    last_check = time.monotonic()
    while True:
        for key, _ in events.select(LOOK_EVERY_SECONDS):
            if key.data is None:
                connection, _ = listener.accept()
                # Not for a fork to hold: the server's own, and the other checks' pidfds and connections.
                own = [lock, events.fileno(), *running, *(other.fileno() for _, other in running.values())]
                started = _start(connection, listener, own, main, socket_path)
                if started is None:
                    connection.close()
                    continue
                pidfd = os.pidfd_open(started)
                running[pidfd] = (started, connection)
                events.register(pidfd, selectors.EVENT_READ, started)
            else:
                pid, connection = running.pop(key.fd)
                events.unregister(key.fd)
                os.close(key.fd)
                _, status = os.waitpid(pid, 0)
                wire.send(connection, {"status": status})
                connection.close()
            last_check = time.monotonic()
        if not running and (time.monotonic() - last_check > IDLE_SECONDS or not _still_bound(socket_path, bound)):
            return


def _still_bound(socket_path: str, bound: int) -> bool:
    try:
        return os.stat(socket_path).st_ino == bound
    except OSError:
        return False


def _start(connection: socket.socket, listener: socket.socket, own: list[int], main, socket_path: str) -> int | None:
    """Fork the check `connection` asks for; its pid, or None for a request that is not one."""
    if wire.peer_uid(connection) != os.getuid():
        return None
    # Only now, with everything imported: a command waits for this before it hands over its terminal, so one
    # that stopped waiting (client.READY_SECONDS) has sent nothing a fork could run.
    wire.send(connection, {"ready": identity.PROTOCOL})
    connection.settimeout(5.0)
    try:
        request, descriptors = _receive(connection)
    except (OSError, ValueError):
        return None
    if request is None or len(descriptors) != 3:
        for descriptor in descriptors:
            os.close(descriptor)
        return None
    connection.settimeout(None)
    pid = os.fork()
    if pid == 0:
        try:
            listener.close()
            for descriptor in own:
                os.close(descriptor)
            _become(request, descriptors, connection)
            client.server_socket = Path(socket_path)  # the check's parts are forked here too
            code = main(request["argv"])
        except SystemExit as leaving:
            code = leaving.code if isinstance(leaving.code, int) else 1
        except BaseException:  # noqa: BLE001 - the command's own failures are its to print; this is a last resort
            import traceback

            traceback.print_exc()
            code = 1
        # The fork says its own exit status (the server could be gone by now); the server says only a signal's.
        ending.flush()
        wire.send(connection, {"status": (code & 0xFF) << 8})
        ending.end_process(code)
    for descriptor in descriptors:
        os.close(descriptor)
    wire.send(connection, {"started": pid})
    return pid


def _receive(connection: socket.socket) -> tuple[dict | None, list[int]]:
    """The client's request and its three descriptors (stdin, stdout, stderr); None for a malformed request."""
    first, descriptors, _, _ = socket.recv_fds(connection, 65536, 3)
    request = wire.received(connection, first, MAX_REQUEST_BYTES)
    fields = {"argv": list, "program": str, "cwd": str, "environment": dict, "encoding": str}
    if request is None or any(not isinstance(request.get(k), t) for k, t in fields.items()):
        return None, descriptors
    return request, descriptors


def _become(request: dict, descriptors: list[int], connection: socket.socket) -> None:
    """Turn this fork into the client's command: its streams, folder, environment, random state and process group.
    The fork ends, with whatever it started, when the client goes away (Ctrl-C, or killed)."""
    os.setpgid(0, 0)
    for target, descriptor in enumerate(descriptors):
        os.dup2(descriptor, target)
        os.close(descriptor)
    for number, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):  # the client's encoding and buffering
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):
                reconfigure(encoding=request["encoding"], errors="backslashreplace" if number == 2 else "strict",
                            line_buffering=os.isatty(number))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["environment"])
    sys.argv = [request["program"], *request["argv"]]
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD):
        signal.signal(number, signal.default_int_handler if number == signal.SIGINT else signal.SIG_DFL)
    _new_random_state()
    threading.Thread(target=_end_with_client, args=(connection,), daemon=True).start()


def _new_random_state() -> None:
    """A fork would otherwise repeat its server's random numbers in every check (Python's, NumPy's global)."""
    import random

    random.seed()
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def _end_with_client(connection: socket.socket) -> None:
    try:
        while connection.recv(1):
            pass
    except OSError:
        pass
    os.killpg(0, signal.SIGKILL)


def run(arguments: list[str]) -> None:
    """The server process: ENTRY SOCKET LOCK."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a detached process: the terminal's Ctrl-C is not for it
    sys.exit(serve(*arguments))
