"""Which warm server may run a check for this process, and where it listens.

A fork inherits what its server imported, and JAX reads its `JAX_*`
settings when it is imported: a server may serve only a command that would
have imported the same things the same way. So its identity is a digest of
the interpreter, its import path, the kit's own files (their names, sizes
and modification times) and the environment, less the variables that are
read only after the fork (below) and a shell's own bookkeeping.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from autograder.sandbox import compilation_cache

ENVIRONMENT_VARIABLE = "AUTOGRADER_WARM_CHECKS"  # "on" or "off"; unset: on, except in CI pipelines
PROTOCOL = 2  # 2: the server greets a connection once it can serve it
# Read only after the fork, where the check starts JAX's backend: a part's process (a device count of
# 10_parallel, half a notebook's exercises) may use the same server as any other check. The server itself is
# started without them. (student.check_processes sets them; its module is not imported here, to keep every
# check's client small.)
PART_VARIABLE = "AUTOGRADER_CHECK_PART"
READ_AFTER_FORK = ("XLA_FLAGS", "JAX_NUM_CPU_DEVICES", "AUTOGRADER_CHECK_DEVICES", "AUTOGRADER_CHECK_CLAIMS",
                   PART_VARIABLE)
SHELL_BOOKKEEPING = ("PWD", "OLDPWD", "SHLVL", "_", "COLUMNS", "LINES")
# AF_UNIX addresses hold at most 107 bytes on Linux: a longer socket path is reached through its folder's
# descriptor (`socket_address`).
MAX_SOCKET_PATH = 100
ENTRIES = ("student", "kit")  # which command's main() a fork runs: the student package's, or the kit's


@dataclasses.dataclass(frozen=True)
class Identity:
    entry: str
    digest: str
    folder: Path
    # What a server of this identity is started with: this process's import path and environment, as they
    # were when the command started (a check adds to its own environment as it runs).
    import_path: tuple[str, ...]
    environment: dict[str, str] = dataclasses.field(compare=False, hash=False)

    @property
    def socket_path(self) -> Path:
        return self.folder / f"{self.entry}-{self.digest}.sock"

    @property
    def lock_path(self) -> Path:
        """Held by the one server of this identity while it lives; it holds the server's process id."""
        return self.folder / f"{self.entry}-{self.digest}.lock"

    @property
    def unforkable_path(self) -> Path:
        """Left by a server of this identity that could not fork safely: its checks run on their own."""
        return unforkable_path(self.socket_path)


def unforkable_path(socket_path: Path) -> Path:
    return socket_path.with_suffix(".unforkable")


def enabled() -> bool:
    """On where forking is safe, unless turned off; off by default in CI pipelines (CI=true), where every
    check is a first one and no process should outlive the job: "on" turns it on there."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork") and hasattr(os, "pidfd_open")):
        return False
    setting = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    if setting in ("on", "off"):
        return setting == "on"
    return os.environ.get("CI", "").strip().lower() in ("", "0", "false", "no")


def of_this_process(entry: str) -> Identity | None:
    """This process's identity for `entry`, or None where warm starts are off or cannot be used safely."""
    if entry not in ENTRIES or not enabled():
        return None
    folder = _own_folder()
    if folder is None:
        return None
    environment = server_environment(os.environ)
    facts = {
        "protocol": PROTOCOL,
        "executable": sys.executable,
        "path": sys.path,
        "kit": _kit_files_digest(),
        "environment": sorted(environment.items()),
    }
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:16]
    return Identity(entry, digest, folder, tuple(sys.path), environment)


@contextlib.contextmanager
def socket_address(socket_path: Path | str) -> Iterator[str]:
    """An address for `socket_path` that fits AF_UNIX: the path itself, or the same file reached through an open
    descriptor of its folder (/proc/self/fd/N/NAME) while the context lasts."""
    socket_path = Path(socket_path)
    if len(str(socket_path)) <= MAX_SOCKET_PATH:
        yield str(socket_path)
        return
    folder = os.open(socket_path.parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{folder}/{socket_path.name}"
    finally:
        os.close(folder)


def server_environment(environment: Mapping[str, str]) -> dict[str, str]:
    """The environment a server is started with, and that its identity names."""
    return {name: value for name, value in environment.items()
            if name not in READ_AFTER_FORK and name not in SHELL_BOOKKEEPING}


def _own_folder() -> Path | None:
    """The user's warm-start folder, made if missing; None unless it is a real folder of this user's, closed to
    everyone else (a folder anyone else can write in could hold another user's socket)."""
    folder = compilation_cache.kit_folder() / "warm-checks"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        found = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or found.st_mode & 0o077:
        return None
    return folder


def _kit_files_digest() -> str:
    """The kit's own modules as installed: an edited or upgraded kit gets a new server."""
    root = Path(__file__).resolve().parent.parent
    listed = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                found = os.stat(os.path.join(folder, name))
                listed.append(f"{folder}/{name}:{found.st_size}:{found.st_mtime_ns}")
    return hashlib.sha256("\n".join(listed).encode()).hexdigest()
