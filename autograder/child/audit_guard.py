"""A Python audit hook for the sandbox child, installed before student code runs.

Audit hooks cannot be removed once added. This one refuses what graded code
never needs: starting processes (fork bombs, shell escapes), sockets,
loading native libraries through ctypes, writing or deleting outside the
working directory, and reading files outside the Python installation and the
working directory (the repository's tests and solutions, for instance).
It is one layer among several: the OS limits and the parent's data-only
verdicts hold even if it is bypassed.
"""

from __future__ import annotations

import os
import sys

_BLOCKED_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
    "subprocess.Popen", "os.kill", "os.killpg", "pty.spawn",
    "socket.connect", "socket.bind", "socket.sendto",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
})
_PATH_EVENTS = frozenset({
    "os.remove", "os.rmdir", "os.rename", "shutil.rmtree", "os.truncate", "os.chmod", "os.chown",
    "os.link", "os.symlink", "os.mkdir", "os.utime", "shutil.move", "shutil.copyfile",
})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
MAX_CREATED_FILES = 64
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def install(workdir: str, readable: tuple[str, ...], hidden: tuple[str, ...], uncounted: tuple[str, ...] = ()) -> None:
    """Confine the rest of this process; `hidden` wins over `readable`.

    Writes into `uncounted` (directories inside `workdir`) do not count towards MAX_CREATED_FILES: a child
    that runs only the kit's code and writes JAX's cache there (child.compiled_programs' writing child).
    """
    workdir = os.path.realpath(workdir)
    readable = tuple(os.path.realpath(p) for p in (*readable, workdir))
    hidden = tuple(os.path.realpath(p) for p in hidden)
    created = [0]

    def inside(path: str, roots: tuple[str, ...]) -> bool:
        return any(path == root or path.startswith(root + os.sep) for root in roots)

    uncounted = tuple(real for real in map(os.path.realpath, uncounted) if inside(real, (workdir,)))

    def resolve(path) -> str | None:
        if isinstance(path, int):
            return None  # an already-open descriptor
        try:
            return os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return "<unknown>"

    def hook(event: str, args: tuple) -> None:
        if event in _BLOCKED_EVENTS:
            raise PermissionError(f"{event} is not allowed while grading")
        if event == "open":
            path = resolve(args[0])
            if path is None:
                return
            mode, flags = args[1] or "", args[2] or 0
            writing = any(c in str(mode) for c in "wax+") or bool(flags & _WRITE_FLAGS)
            if writing:
                if not inside(path, (workdir,)):
                    raise PermissionError(f"writing {path} is not allowed while grading")
                if inside(path, uncounted):
                    return
                created[0] += 1
                if created[0] > MAX_CREATED_FILES:
                    raise PermissionError("too many files written while grading")
            elif inside(path, hidden) or not inside(path, readable):
                raise PermissionError(f"reading {path} is not allowed while grading")
        elif event in _PATH_EVENTS:
            for candidate in args:
                path = resolve(candidate) if isinstance(candidate, (str, bytes, os.PathLike)) else None
                if path is not None and not inside(path, (workdir,)):
                    raise PermissionError(f"{event} on {path} is not allowed while grading")

    sys.addaudithook(hook)


def default_readable() -> tuple[str, ...]:
    """The Python installation, system libraries and the device/proc files libraries read."""
    import sysconfig

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sysconfig.get_paths()["purelib"],
             sysconfig.get_paths()["platlib"], "/usr", "/lib", "/lib64", "/etc", "/dev", "/proc/self",
             "/sys/devices/system/cpu", "/sys/fs/cgroup"}
    roots.add(_PACKAGE)
    return tuple(sorted(roots))


def default_hidden() -> tuple[str, ...]:
    """Parts of the kit a submission must not read: the checks and their reference code."""
    return (os.path.join(_PACKAGE, "suites"),)
