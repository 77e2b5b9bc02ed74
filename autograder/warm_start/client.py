"""The command's side of a warm start: hand a check to a warm server, or start one after checking alone.

`run_check(entry, argv, main)` is how `autograder check` runs. A server of
the same identity runs the check if there is one; with none to run it
(none yet, a dead one, another user's socket, warm starts off), the command
starts one beside itself for the next check and checks on its own as
before. Nothing here ever turns a check into a failure: every problem
before the server has forked means "check here instead".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable

from autograder.warm_start import ending, identity, wire

COMMANDS = {"student": ("check",), "kit": ("check",)}
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
    """`main(argv)`'s exit code: run by a warm server where one can run it, else here, leaving a server behind."""
    found = identity.of_this_process(entry) if command_of(argv) in COMMANDS[entry] else None
    if found is not None:
        code = delegated(found, argv)
        if code is not None:
            return code
        # Started now, not after: it imports on another core while this check runs, ready for the next one.
        start_server(found)
    return main(argv)


def delegated(found: identity.Identity, argv: list[str]) -> int | None:
    """The exit code of `argv`'s check run by `found`'s server, or None if this process should check on its own."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with identity.socket_address(found.socket_path) as address:
            connection.connect(address)
        if wire.peer_uid(connection) != os.getuid():
            connection.close()
            return None
        request = wire.framed({"argv": argv, "program": sys.argv[0] if sys.argv else "autograder",
                               "cwd": os.getcwd(), "environment": dict(os.environ),
                               "encoding": sys.stdout.encoding or "utf-8"})
        socket.send_fds(connection, [request], [0, 1, 2])
        if wire.received(connection) is None:  # the server refused or died before forking: nothing ran
            connection.close()
            return None
    except (OSError, ValueError):
        connection.close()
        return None
    except KeyboardInterrupt:
        connection.close()
        return 130
    return _ended(connection, argv)


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


def start_server(found: identity.Identity) -> None:
    """Start `found`'s server for the next check, unless one is there. Detached: it outlives this process."""
    if _alive(found):
        return
    # The server imports from exactly this process's import path (its identity names it), not its own folder's.
    bootstrap = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
                 "from autograder.warm_start import server; server.run(sys.argv[2:5])")
    with contextlib.suppress(OSError):
        subprocess.Popen([sys.executable, "-c", bootstrap, json.dumps(found.import_path), found.entry,
                          str(found.socket_path), str(found.lock_path)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                         start_new_session=True, env=found.environment, cwd=found.folder)


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
