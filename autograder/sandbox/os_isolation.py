"""The OS sandbox, trusted side: is it available, the bubblewrap command, a uid per child.

`autograder grade` runs every submission's child with isolation the kernel
enforces (the default, `--sandbox os`). A grading worker starts its zygote
inside bubblewrap (Debian's `bwrap`):

- its own PID, network (loopback only), IPC, UTS and cgroup namespaces;
- a filesystem view holding only /usr, the Python installation and the kit's
  child-side modules, all read-only; not the suites, grading.toml, the
  solutions, the out dir or the batch's other files; the batch's store of
  compiled programs read-only at /programs, if there is one;
- root with five capabilities inside that view, which the zygote needs to give
  each child its own PID namespace, private tmpfs and uid (see
  sandbox.confinement); no student code ever runs with them.

Each child runs as a uid taken from `UidPool`: unique among every child alive
on this machine (a lock file per uid, held while the child lives), never 0 and
never the grader's. So children cannot signal, trace or read one another, the
grader's processes or its files, and RLIMIT_NPROC counts each child alone.

Where this cannot be had (not Linux, not root, no bwrap, a kernel that refuses
the namespaces) `check_available` says what is missing and how to get it; the
grader then stops unless the user chose the weaker `--sandbox process`.
"""

from __future__ import annotations

import ast
import fcntl
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.child.confinement import WORKDIR

PROGRAMS_IN_VIEW = Path("/programs")  # where the batch's store of compiled programs appears, read-only
CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER")
FIRST_UID = 2_100_000_000  # far above any real account's uid
UID_SLOTS = 1 << 16
UID_LOCKS = Path("/run/autograder-uids") if Path("/run").is_dir() else Path("/tmp/autograder-uids")
_PACKAGE = Path(__file__).resolve().parents[1]  # the installed `autograder` package
# Modules from which the child side is found: the zygote imports everything a child runs.
_CHILD_ENTRY_MODULES = ("autograder.child.zygote", "autograder.child.main", "autograder.child.kernel_entry")


class IsolationUnavailable(RuntimeError):
    """This machine cannot run the OS sandbox; the message says what is missing and how to get it."""


def check_available(python: str = sys.executable) -> None:
    """Raise IsolationUnavailable unless a child can be started in the OS sandbox here."""
    if not sys.platform.startswith("linux"):
        raise IsolationUnavailable(
            f"the OS sandbox needs Linux (this is {sys.platform}); grade on a Linux machine or container, "
            "or pass --sandbox process to accept weaker isolation")
    if os.geteuid() != 0:
        raise IsolationUnavailable(
            "the OS sandbox needs root (it gives every child a uid of its own); run the grader as root "
            "(e.g. `sudo`, or in a container), or pass --sandbox process to accept weaker isolation")
    if shutil.which("bwrap") is None:
        raise IsolationUnavailable(
            "the OS sandbox needs bubblewrap: `apt-get install bubblewrap` (Debian/Ubuntu) or "
            "`dnf install bubblewrap`, or pass --sandbox process to accept weaker isolation")
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError) as error:
        raise IsolationUnavailable(
            f"the OS sandbox needs libseccomp and the pyseccomp package ({error}); "
            "`apt-get install libseccomp2` and reinstall the kit") from None
    probe = zygote_command(module_command(python, "autograder.child.confinement"), programs=None)
    try:
        completed = subprocess.run(probe, capture_output=True, text=True, timeout=120, env=_minimal_env())
    except (OSError, subprocess.TimeoutExpired) as error:
        _check_kit_importable(python)
        raise IsolationUnavailable(f"bubblewrap could not start a sandbox: {error}") from None
    if completed.returncode != 0:
        # The probe imports the kit's child side in the sandbox: only when it fails can the kit itself be
        # the reason, which this says first, outside the sandbox (one Python start fewer per batch).
        _check_kit_importable(python)
    if completed.returncode != 0 and "Error: " in completed.stderr and "Traceback" in completed.stderr:
        raise IsolationUnavailable(  # bubblewrap started; Python inside it failed
            f"{python} could not import the kit's child side inside the sandbox, from {_PACKAGE}: "
            f"{_last_line(completed)}. Keep the kit and that Python outside /tmp, /proc and /dev")
    if completed.returncode != 0:
        raise IsolationUnavailable(
            "bubblewrap could not start a sandbox here: "
            f"{(completed.stderr.strip().splitlines() or [str(completed.returncode)])[-1][:300]}. "
            "In a container, allow namespaces (e.g. docker --privileged or a seccomp profile that permits "
            "unshare/mount), or pass --sandbox process to accept weaker isolation")


def _check_kit_importable(python: str) -> None:
    """Raise IsolationUnavailable unless `python` imports the kit's child side from this process's copy of it."""
    try:
        completed = subprocess.run(module_command(python, "autograder.child.confinement"), capture_output=True,
                                   text=True, timeout=120, env=_minimal_env())
    except (OSError, subprocess.TimeoutExpired) as error:
        completed = subprocess.CompletedProcess([], 1, "", str(error))
    if completed.returncode != 0:
        raise IsolationUnavailable(
            f"this process imported the autograder package from {_PACKAGE}, but {python} cannot run it: "
            f"{_last_line(completed)}. Run the grader (or nbgrader) with the Python the kit is installed in "
            "(`pip install -e <the kit's repository>`, or `pip install` the kit), e.g. its .venv/bin/python")


def _last_line(completed: subprocess.CompletedProcess) -> str:
    return (completed.stderr.strip().splitlines() or [str(completed.returncode)])[-1][:300]


def zygote_command(command: list[str], programs: Path | None, extra_args: tuple[str, ...] = ()) -> list[str]:
    """`command` wrapped in bubblewrap with the child's filesystem view and namespaces.

    `extra_args`: more bubblewrap arguments (mounts), applied before the view is made read-only.
    """
    view = _View()
    for system in ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/lib32", "/libx32"):
        view.system_path(system)
    view.args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    if os.path.isfile("/etc/ld.so.cache"):  # how the zygote finds libseccomp (ctypes.util.find_library)
        view.read_only(Path("/etc/ld.so.cache"))
    for prefix in _outermost({sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))}):
        view.read_only(prefix)
    # Hide whatever of the kit lies in those prefixes (an installed kit has its suites
    # there), then show the child-side modules alone.
    view.directory(_PACKAGE.parent)
    view.args += ["--tmpfs", str(_PACKAGE)]
    view.made(_PACKAGE)
    for file in sorted(child_side_files()):
        view.directory(file.parent)
        view.args += ["--ro-bind", str(file), str(file)]
    view.args += [*extra_args, "--remount-ro", str(_PACKAGE), "--remount-ro", "/tmp"]
    if programs is not None:
        view.args += ["--ro-bind", str(programs), str(PROGRAMS_IN_VIEW)]
    view.directory(Path(WORKDIR))
    return ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", *[a for c in CAPABILITIES for a in ("--cap-add", c)],
            *view.args, "--chdir", WORKDIR, "--", *command]


def module_command(python: str, module: str, *args: str) -> list[str]:
    """`python -I -m module args`, importing the kit from where this process imported it.

    Isolated mode ignores PYTHONPATH and the working directory, so `-m` would
    import whichever kit is installed in that Python, not necessarily the copy
    this process runs (a clone of the repository used as the course directory
    with `python -m nbgrader`), and the sandbox shows only this copy's files.
    """
    bootstrap = ("import runpy, sys; path, module = sys.argv[1:3]; del sys.argv[1:3]; sys.path.insert(0, path); "
                 "runpy.run_module(module, run_name='__main__', alter_sys=True)")
    return [python, "-I", "-c", bootstrap, str(_PACKAGE.parent), module, *args]


class _View:
    """bubblewrap arguments for a read-only view, creating each parent directory once (world-readable)."""

    def __init__(self):
        self.args: list[str] = []
        self._made: set[Path] = {Path("/")}

    def system_path(self, path: str) -> None:
        if os.path.islink(path):
            self.args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            self.read_only(Path(path))

    def read_only(self, path: Path) -> None:
        self.directory(path.parent)
        self.args += ["--ro-bind", str(path), str(path)]
        self._made.add(path)

    def made(self, path: Path) -> None:
        self._made.add(path)

    def directory(self, path: Path) -> None:
        if path in self._made:
            return
        self.directory(path.parent)
        self.args += ["--perms", "0755", "--dir", str(path)]
        self._made.add(path)


def _outermost(paths: set[str]) -> list[Path]:
    """The paths not inside another of them."""
    resolved = sorted({Path(os.path.abspath(p)) for p in paths})
    return [p for p in resolved if not any(other != p and p.is_relative_to(other) for other in resolved)]


@functools.lru_cache(maxsize=1)
def child_side_files() -> frozenset[Path]:
    """The kit's source files that run inside the sandbox: every autograder module the child entry modules import.

    Read once per process (parsing them takes a large part of a second, on every zygote's start otherwise):
    the kit's files do not change while it grades."""
    files: set[Path] = set()
    pending = list(_CHILD_ENTRY_MODULES)
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        file = _module_file(module)
        if file is None:
            continue
        files.add(file)
        for package in _parent_packages(module):
            init = _module_file(package)
            if init is not None:
                files.add(init)
        pending.extend(_imported_kit_modules(file))
    # Data the child-side code reads: the message catalogs (feedback made in the child is translated too).
    files.update((_PACKAGE / "catalog" / "locale").glob("*.po"))
    # Each assignment's harnesses, which child/harnesses.py finds by name rather than by an import statement.
    files.update((_PACKAGE / "child").glob("harnesses_*.py"))
    return frozenset(files)


def _module_file(module: str) -> Path | None:
    parts = module.split(".")[1:]
    base = _PACKAGE.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _parent_packages(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _imported_kit_modules(file: Path) -> list[str]:
    """autograder modules imported anywhere in `file` (functions included: imports there are lazy, not absent)."""
    found = []
    for node in _import_statements(ast.parse(file.read_text(), str(file))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] == "autograder"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]  # from package import module
    return found


def _import_statements(node: ast.AST):
    """Every import statement under `node`, at any depth of statements (functions, classes, if, try, with...).

    Only statements are descended into: an import is never inside an expression, and expressions are most
    of a module's nodes (ast.walk over them took most of a zygote's start)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        elif isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
            yield from _import_statements(child)


def _minimal_env() -> dict[str, str]:
    return {k: os.environ[k] for k in ("PATH", "LANG") if k in os.environ}


class UidPool:
    """Unique uids for live children, machine-wide: uid N is taken while this process holds lock file N."""

    def __init__(self, first: int = FIRST_UID, slots: int = UID_SLOTS, locks: Path = UID_LOCKS):
        self._first, self._slots, self._locks = first, slots, locks
        self._held: dict[int, int] = {}
        self._next = os.getpid() % slots  # workers start their search at different places

    def take(self) -> int:
        """A uid no other live child has; hold it until release()."""
        directory = self._lock_directory()
        for step in range(self._slots):
            slot = (self._next + step) % self._slots
            uid = self._first + slot
            fd = os.open(os.path.join(directory, str(uid)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self._held[uid] = fd
            self._next = (slot + 1) % self._slots
            return uid
        raise IsolationUnavailable(f"all {self._slots} sandbox uids are in use")

    def release(self, uid: int) -> None:
        fd = self._held.pop(uid, None)
        if fd is not None:
            os.close(fd)  # closing drops the lock

    def _lock_directory(self) -> str:
        """The lock directory, made by root and writable by root alone (a child cannot reach it anyway)."""
        self._locks.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = os.lstat(self._locks)
        if status.st_uid != os.geteuid() or status.st_mode & 0o022 or not os.path.isdir(self._locks) \
                or os.path.islink(self._locks):
            raise IsolationUnavailable(f"{self._locks} must be a directory owned by uid {os.geteuid()}, "
                                       "writable by it alone; remove it and grade again")
        return str(self._locks)
