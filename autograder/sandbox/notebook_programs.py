"""The released notebook's compiled programs, given to every sandbox child of its assignment.

Every submission of an assignment runs the same locked cells of the released
notebook (imports, demonstrations), so every sandbox child used to compile
the same XLA programs: a third to a half of a submission's JAX work, and
nearly all of a stub's. A grading worker now compiles them once per
assignment: it loads the released stub in a sandbox child whose JAX
persistent compilation cache writes into the child's working directory, and
keeps those files. Each later child of that assignment gets a fresh copy in
its own working directory and reads it, never writing to it. A program of
the submission that is exactly one of these is loaded instead of compiled;
every other program compiles as before, so no grade changes.

Why the trust model holds: the files come from running kit code only (the
released notebook, never a submission); a child reads only its own copy,
inside its own directory; nothing a child writes is read by anyone (its
directory is deleted with it); and the programs are the public notebook's,
so they tell a student nothing they do not already have.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

CACHE_DIRECTORY = ".jax-cache"  # inside a child's working directory
MAX_BYTES = 64 << 20  # a released notebook compiles a few hundred KiB; more is not a notebook's demos
READ, WRITE = "read", "write"


class NotebookPrograms:
    """One grading worker's store: assignment -> the released notebook's cache files, built on first use.

    `build(assignment, directory)` fills `directory` (see build_with_sandbox).
    """

    def __init__(self, build: Callable[[str, Path], None]):
        self._build = build
        self._root = Path(tempfile.mkdtemp(prefix="autograder-programs-"))
        self._built: dict[str, Path | None] = {}

    def for_assignment(self, assignment: str) -> Path | None:
        """The directory to copy into each child of `assignment`, or None if there is nothing to share."""
        if assignment not in self._built:
            directory = self._root / assignment
            directory.mkdir()
            try:
                self._build(assignment, directory)
            except Exception:  # no shared programs: every child compiles them, as before
                shutil.rmtree(directory, ignore_errors=True)
                directory = None
            self._built[assignment] = directory if directory is not None and any(directory.iterdir()) else None
        return self._built[assignment]

    def close(self) -> None:
        shutil.rmtree(self._root, ignore_errors=True)


def build_with_sandbox(stub: Path, make_transport: Callable[..., object], directory: Path) -> None:
    """Load the released `stub` in a sandbox child that writes its compiled programs; keep them in `directory`."""
    transport = make_transport(stub, compilation_cache=WRITE)
    try:
        report = transport.start()
        if transport.load_failed:
            raise RuntimeError(f"the released notebook did not load: {report.notes}")
        written = transport.workdir / CACHE_DIRECTORY
        total = 0
        for entry in sorted(written.iterdir()) if written.is_dir() else []:
            if entry.is_file() and not entry.is_symlink():
                total += entry.stat().st_size
                if total > MAX_BYTES:
                    raise RuntimeError("the released notebook's compiled programs are unexpectedly large")
                shutil.copyfile(entry, directory / entry.name)
    finally:
        transport.close()


def give_to_child(programs: Path, workdir: Path) -> None:
    """A fresh copy (never a link: a child may write to its own files) in the child's working directory."""
    target = workdir / CACHE_DIRECTORY
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(programs, target)


def use_in_child(mode: str | None, snapshot):
    """In the child, before the submission loads: point JAX's cache at the working directory's copy.

    Returns the tamper snapshot with these settings as the recorded ones, so
    that only a change made by student code counts as tampering.
    """
    if mode not in (READ, WRITE):
        return snapshot
    import jax

    settings = {
        "jax_compilation_cache_dir": os.path.join(os.getcwd(), CACHE_DIRECTORY),
        # Reading: nothing compiles for a billion seconds, so nothing is ever written.
        "jax_persistent_cache_min_compile_time_secs": 0.0 if mode == WRITE else 1e9,
        "jax_persistent_cache_min_entry_size_bytes": 0,
        # JAX's GPU caches would put the directory's path into every cache key.
        "jax_persistent_cache_enable_xla_caches": "",
    }
    for name, value in settings.items():
        jax.config.update(name, value)
    return dataclasses.replace(snapshot, config=dict(snapshot.config, **{name: jax.config.values[name] for name in settings}))
