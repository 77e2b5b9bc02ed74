"""The command's side of a warm start: hand a check to a warm server, starting one if there is none.

`run_check(entry, argv, main)` is how `autograder check` runs. A server of
the same identity runs the check if there is one; with none to run it
(none yet), the command starts one and hands it the check: the server
imports JAX and the kit, as the command would have, then forks the check,
its parts (student.check_processes) and the next checks. Nothing here ever
turns a check into a failure: every problem before the server has forked
(a dead server, another user's socket, warm starts off, a server that does
not greet within READY_SECONDS) means "check here instead".
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from autograder.warm_start import ending, identity, wire

COMMANDS = {"student": ("check",), "kit": ("check",)}
# How long a command waits for a server's greeting: a server starting beside it greets once it has imported
# JAX and the kit, which takes about as long as importing them here would (1 s on a laptop, longer on a busy
# one). Longer than this, and the check runs here.
READY_SECONDS = 60.0
BIND_SECONDS = 5.0  # a server binds its socket before it imports anything: it is there within 0.1 s
# In a warm server's fork, the server's socket: the check's parts (student.check_processes) are forked by it too
# (`forked_check`). Set by the server as it forks; None in a process that runs its check itself.
server_socket: Path | None = None
# The kit's options that take a value and may come before the command (autograder.cli._add_common_options).
VALUED_OPTIONS = ("--config", "--lang", "--hints")


def command_of(argv: list[str]) -> str | None:
    """The command `argv` runs (`check`, `grade`, ...), or None when it asks for help or a version."""
    if any(token in ("-h", "--help", "--version") for token in argv):
        return None
    waiting_for_value = False
    for token in argv:
        if waiting_for_value:
            waiting_for_value = False
        elif token in VALUED_OPTIONS:
            waiting_for_value = True
        elif not token.startswith("-"):
            return token
    return None


def run_check(entry: str, argv: list[str], main: Callable[[list[str]], int]) -> int:
    """`main(argv)`'s exit code: run by a warm server where one can run it (starting one if there is none),
    else here."""
    found = identity.of_this_process(entry) if command_of(argv) in COMMANDS[entry] else None
    if found is None or found.unforkable_path.exists():
        return main(argv)
    code = delegated(found, argv)
    if code is None and not os.environ.get(identity.PART_VARIABLE):  # a part leaves starting one to its command
        # With none to run it, start one and hand it this check: it imports what this process would import
        # here, in as long, and from then on forks this check's parts and the next checks.
        server = start_server(found)
        if server is not None and _bound(found, server):
            code = delegated(found, argv)
    return main(argv) if code is None else code


def delegated(found: identity.Identity, argv: list[str]) -> int | None:
    """The exit code of `argv`'s check run by `found`'s server, or None if this process should check on its own."""
    try:
        connection = _handed_over(found.socket_path, argv, dict(os.environ), sys.stdout.encoding or "utf-8",
                                  [0, 1, 2])
    except KeyboardInterrupt:
        return 130
    return None if connection is None else _ended(connection, argv)


def _handed_over(socket_path: Path, argv: list[str], environment: dict[str, str], encoding: str,
                 streams: list[int]) -> socket.socket | None:
    """The connection to the fork that runs `argv` with `environment` and `streams` (stdin, stdout, stderr),
    forked by the server at `socket_path`; None if none forked it (nothing ran)."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with identity.socket_address(socket_path) as address:
            connection.connect(address)
        if wire.peer_uid(connection) != os.getuid():
            connection.close()
            return None
        # The server greets once it can serve (a starting one, once it has imported). Nothing is sent before:
        # a check that stops waiting runs here, and the server finds nothing to fork.
        connection.settimeout(READY_SECONDS)
        if not isinstance(wire.received(connection), dict):
            connection.close()
            return None
        connection.settimeout(None)
        request = wire.framed({"argv": argv, "program": sys.argv[0] if sys.argv else "autograder",
                               "cwd": os.getcwd(), "environment": environment, "encoding": encoding})
        socket.send_fds(connection, [request], streams)
        if wire.received(connection) is None:  # the server refused or died before forking: nothing ran
            connection.close()
            return None
    except (OSError, ValueError):
        connection.close()
        return None
    except BaseException:
        connection.close()
        raise
    return connection


class ForkedCheck:
    """A check forked for this process by its warm server, in place of a new process (`forked_check`): what
    check_processes uses of subprocess.Popen. It ends, with all it started, when `kill` closes its connection."""

    def __init__(self, connection: socket.socket, stdout: int, stderr: int):
        self.connection = connection
        self.stdout, self.stderr = open(stdout, encoding="utf-8"), open(stderr, encoding="utf-8", errors="replace")
        self.returncode: int | None = None

    def communicate(self) -> tuple[str, str]:
        """What it printed to stdout and stderr, once it has ended; its exit code is then `returncode` (minus the
        signal that ended it, as Popen's; None if its end was not told)."""
        errors: list[str] = []
        reader = threading.Thread(target=lambda: errors.append(self.stderr.read()), daemon=True)
        reader.start()
        out = self.stdout.read()
        reader.join()
        with self.connection:
            ended = wire.received(self.connection)
        if ended is not None and isinstance(ended.get("status"), int):
            self.returncode = os.waitstatus_to_exitcode(ended["status"])
        return out, "".join(errors)

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        self.connection.close()  # the fork watches it, and ends its process group when it closes

    def wait(self) -> None:
        pass  # not this process's child: its server reaps it


def forked_check(argv: list[str], environment: dict[str, str]) -> ForkedCheck | None:
    """`autograder <argv>` with `environment`, forked by the warm server this process was forked by (no new
    interpreter, no imports: 0.1 s sooner than a new process, and no CPU spent beside the others); None where
    this process is no fork, or the server is gone (check in a new process then)."""
    if server_socket is None:
        return None
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    nothing_in = os.open(os.devnull, os.O_RDONLY)
    try:
        connection = _handed_over(server_socket, argv, environment, "utf-8", [nothing_in, write_out, write_err])
    finally:
        for descriptor in (nothing_in, write_out, write_err):
            os.close(descriptor)
    if connection is None:
        os.close(read_out)
        os.close(read_err)
        return None
    return ForkedCheck(connection, read_out, read_err)


def _ended(connection: socket.socket, argv: list[str]) -> int:
    """Wait for the fork to end and end as it did; Ctrl-C or a kill here ends the fork too (it watches us)."""
    with connection:
        try:
            ended = wire.received(connection)  # the first status: the fork's own, or the server's for a signal
        except KeyboardInterrupt:
            return 130
    if ended is None or not isinstance(ended.get("status"), int):  # killed by a signal, with its server gone
        from autograder.catalog import messages

        with messages.speaking(messages.asked_for(argv)):
            print(messages.text("warm.lost", variable=identity.ENVIRONMENT_VARIABLE), file=sys.stderr)
        return 2
    if os.WIFSIGNALED(ended["status"]):  # as if this process had died of it, for the shell and for callers
        number = os.WTERMSIG(ended["status"])
        ending.flush()
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    return os.waitstatus_to_exitcode(ended["status"])


def start_server(found: identity.Identity) -> subprocess.Popen | None:
    """Start `found`'s server, unless one is there (None then, or if it could not be started). Detached: it
    outlives this process."""
    if _alive(found):
        return None
    # The server imports from exactly this process's import path (its identity names it), not its own folder's.
    bootstrap = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
                 "from autograder.warm_start import server; server.run(sys.argv[2:5])")
    try:
        return subprocess.Popen([sys.executable, "-c", bootstrap, json.dumps(found.import_path), found.entry,
                                 str(found.socket_path), str(found.lock_path)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                                start_new_session=True, env=found.environment, cwd=found.folder)
    except OSError:
        return None


def _bound(found: identity.Identity, server: subprocess.Popen) -> bool:
    """Wait until a server listens on `found`'s socket (this one, or the one that took the lock first); False
    if `server` ended first, or none listens within BIND_SECONDS."""
    deadline = time.monotonic() + BIND_SECONDS
    while time.monotonic() < deadline:
        if found.socket_path.exists() and _alive(found):
            return True
        if server.poll() is not None:  # another server took the lock first, or this one failed
            return found.socket_path.exists() and _alive(found)
        time.sleep(0.005)
    return False


def _alive(found: identity.Identity) -> bool:
    """Whether a server of `found`'s identity holds its lock (starting, serving or about to exit)."""
    try:
        lock = os.open(found.lock_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # not ours to replace
    try:
        fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(lock)
