"""JAX's own compiled programs at the batch's hidden shapes, built once per assignment, read by every sandbox child.

Every sandbox child starts with empty JAX caches, so every submission used to
compile the same programs of JAX's own operations (arithmetic, indexing,
random-number kernels) at the same hidden shapes: most of a correct
submission's time (06_prng's random kernels alone take seconds). A batch now
builds them once per assignment: it grades the kit's solution in a sandbox
child whose JAX persistent compilation cache writes into that child's working
directory, and keeps only the programs of JAX's own operations. Each later
child of that assignment gets a fresh copy in its own working directory and
reads it, never writing to it. A submission's program that is exactly one of
these is loaded instead of compiled; every other program compiles as before,
so no grade changes.

Why the trust model holds:
- the files are written only while kit code runs (the solution notebook and
  the suite's requests), in a sandbox child, and checked by name before they
  are kept;
- a child reads only its own copy, inside its own directory (the child's side
  is child/compiled_programs.py); what it writes
  there is deleted with it and read by no one;
- no program of the answer key reaches a child: a program named after
  anything the solution defines (its functions, lambdas, the kit's wrappers
  around them) is dropped, and so is every control-flow or call primitive
  that carries a function inside it (cond, while, scan, pjit, custom_jvp...).
  What the kept ones tell, which JAX operations run at which shapes, a
  submission can learn by printing its own inputs.
"""

from __future__ import annotations

import ast
import hashlib
import os
import platform
import re
import shutil
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Callable

from filelock import FileLock, Timeout

from autograder.protocol.program_store import ENTRY, MAX_BYTES
from autograder.sandbox import compilation_cache

# Beside a writing child's programs: the primitive names it listed, one per line (not a program: ENTRY
# does not match it, so it is never kept in a store).
PRIMITIVES_FILE = "lowerable-primitives.txt"
MAX_PRIMITIVES = 4096
_PRIMITIVE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
KEPT_STORES = 8  # a batch keeps at most this many earlier stores (the newest) ...
STORE_IDLE_SECONDS = 24 * 3600  # ... and never removes one used within this time (a batch may be reading it)

# Primitives whose compiled program holds a function the program's caller passed in.
FUNCTION_CARRIERS = frozenset({
    "cond", "switch", "while", "while_loop", "fori_loop", "scan", "map", "pjit", "jit", "closed_call", "core_call",
    "remat", "remat2", "checkpoint", "custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr", "custom_lin",
    "custom_transpose_call", "linear_call", "shard_map", "xla_call", "xla_pmap", "run_state", "for", "named_call",
})


def defined_names(sources: list[str]) -> frozenset[str]:
    """Every name the code in `sources` defines: functions, classes, and the targets of assignments."""
    names = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return frozenset(names)


def is_library_program(entry: str, defined: frozenset[str], primitives: frozenset[str] = frozenset()) -> bool:
    """Whether the cache file `entry` holds a program of JAX's own operations only.

    `primitives`: the names of JAX's primitives (see primitive_names). A program named exactly after one
    is JAX's eager dispatch of that primitive, kept even if a defined name is part of it (the
    solution's `dot` in `dot_general`); one named exactly after a defined name is dropped all the same.
    """
    match = ENTRY.match(entry)
    if match is None:
        return False
    name = match.group("name")
    if name in FUNCTION_CARRIERS or "lambda" in name or "autograder" in name or name in defined:
        return False
    if name in primitives:
        return True
    return not any(len(own) >= 3 and own in name for own in defined)


def primitive_names(written: Path | None = None) -> frozenset[str]:
    """The names of the primitives JAX can lower: as the writing child listed them beside the programs it
    wrote in `written` (write_received), else from this process's JAX (importing it); empty if JAX does not say."""
    listed = written / PRIMITIVES_FILE if written is not None else None
    if listed is not None and listed.is_file() and not listed.is_symlink():
        return frozenset(listed.read_text().split())
    from autograder.child.compiled_programs import lowerable_primitives

    return frozenset(lowerable_primitives())


def batch_store(config, seed: int, sandbox: str) -> tuple[Path, bool]:
    """Where a batch's workers build and read the shared programs; True if the batch must delete it at its end.

    With the compilation caches on (compilation_cache "programs"), a directory
    named after everything the built programs depend on: the kit's code,
    grading.toml, the solutions, the seed, the sandbox and the JAX and Python
    versions. A later batch with the same settings finds every assignment
    built (its `<assignment>.done`) and skips the build; any change, even to
    a comment, builds afresh. Reusing one is as safe as within a batch: only
    the kit's solutions ever wrote to it, through the same filter, and JAX
    loads a program only where its own cache key (the whole program, compile
    options, versions) matches. Otherwise ($AUTOGRADER_JAX_CACHE=off, or no
    writable cache), a temporary directory.
    """
    root = compilation_cache.directory("programs")
    if root is not None:
        store = root / _store_key(config, seed, sandbox)
        try:
            store.mkdir(mode=0o755, parents=True, exist_ok=True)
            os.utime(store)  # the newest; see _forget_old_stores
            _forget_old_stores(root, keep=store)
            return store, False
        except OSError:
            pass
    store = Path(tempfile.mkdtemp(prefix="autograder-programs-"))
    store.chmod(0o755)  # children read it (through a read-only view) as uids of their own
    return store, True


def _store_key(config, seed: int, sandbox: str) -> str:
    digest = hashlib.sha256()
    for part in (str(seed), sandbox, platform.python_version(), *_versions("jax", "jaxlib"), config.source.read_text()):
        digest.update(part.encode() + b"\0")
    kit = Path(__file__).resolve().parent.parent
    solutions = [config.solution_notebook(a) for a in config.assignments]
    course_suites = sorted(config.course.suites.glob("*.py"))  # a course's own assignments' suites
    for path in [*sorted(kit.rglob("*.py")), *course_suites, *solutions]:
        digest.update(str(path).encode() + b"\0")
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()[:32]


def _versions(*distributions: str) -> list[str]:
    found = []
    for name in distributions:
        try:
            found.append(metadata.version(name))
        except metadata.PackageNotFoundError:
            found.append("")
    return found


def _forget_old_stores(root: Path, keep: Path) -> None:
    """Delete the stores beyond the KEPT_STORES newest that no batch used for STORE_IDLE_SECONDS."""
    stores = sorted((entry for entry in root.iterdir() if entry.is_dir() and not entry.is_symlink()),
                    key=lambda entry: entry.stat().st_mtime, reverse=True)
    for store in stores[KEPT_STORES:]:
        if store != keep and time.time() - store.stat().st_mtime > STORE_IDLE_SECONDS:
            shutil.rmtree(store, ignore_errors=True)


class SharedPrograms:
    """A batch's store: <root>/<assignment>/ holds that assignment's programs, built by the workers that need them.

    `build(assignment, directory, part=p, parts=n)` fills `directory` with
    part p of n (a grading worker grades the solution's checks of every n-th
    function with `write_programs_to`, then calls keep_library_programs). The
    batch's workers share `root`, and each part has a lock of its own: a
    worker builds every part no other worker is building, starting with part
    `first_part`, then waits for the others, so workers that need the same
    assignment at the same time build it together instead of one building
    while the others wait. The parts are then merged into <root>/<assignment>/.
    A failed part adds nothing, and a failed build leaves nothing to share
    (every child compiles everything, as without a store); neither is retried.
    """

    def __init__(self, root: Path, build: Callable[..., None], *, parts: int = 1, first_part: int = 0):
        self.root = root
        self._build = build
        self._parts = max(1, parts)
        self._first_part = first_part % self._parts

    def for_assignment(self, assignment: str) -> Path | None:
        """The directory to copy into each child of `assignment`, or None if there is nothing to share."""
        directory = self.root / assignment
        done = self.root / f"{assignment}.done"
        if not done.exists():
            order = [(self._first_part + k) % self._parts for k in range(self._parts)]
            for part in order:  # the parts nobody is building yet
                self._build_part(assignment, part, wait=False)
            for part in order:  # then wait for the others (or build one whose builder died)
                self._build_part(assignment, part, wait=True)
        with FileLock(str(self.root / f"{assignment}.lock")):
            if not done.exists():
                shutil.rmtree(directory, ignore_errors=True)
                directory.mkdir(mode=0o755, parents=True)
                try:
                    for part in range(self._parts):
                        built = self._part_directory(assignment, part)
                        for entry in sorted(built.iterdir()) if built.is_dir() else []:
                            shutil.copyfile(entry, directory / entry.name)
                except OSError:
                    shutil.rmtree(directory, ignore_errors=True)
                done.touch()
        return directory if directory.is_dir() and any(directory.iterdir()) else None

    def _part_directory(self, assignment: str, part: int) -> Path:
        return self.root / f"{assignment}.part{part}"

    def _build_part(self, assignment: str, part: int, *, wait: bool) -> None:
        lock = FileLock(str(self.root / f"{assignment}.part{part}.lock"))
        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            return  # another worker is building it
        try:
            done = self.root / f"{assignment}.part{part}.done"
            if done.exists():
                return
            directory = self._part_directory(assignment, part)
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(mode=0o755, parents=True)
            try:
                self._build(assignment, directory, part=part, parts=self._parts)
            except Exception:  # no solution, a failing check: this part shares nothing
                shutil.rmtree(directory, ignore_errors=True)
            done.touch()
        finally:
            lock.release()


def keep_library_programs(written: Path, defined: frozenset[str], directory: Path) -> None:
    """Copy from the child's cache directory `written` into `directory` the programs of JAX's own operations."""
    total = 0
    primitives = primitive_names(written)
    for entry in sorted(written.iterdir()) if written.is_dir() else []:
        if entry.is_file() and not entry.is_symlink() and is_library_program(entry.name, defined, primitives):
            total += entry.stat().st_size
            if total > MAX_BYTES:
                return
            shutil.copyfile(entry, directory / entry.name)


def write_received(target: Path, names: list, arrays: list, primitives: object = None) -> None:
    """In the trusted parent: write the entries a writing child sent (unfiltered: see keep_library_programs),
    and the primitive names it listed (identifiers only, at most MAX_PRIMITIVES) into PRIMITIVES_FILE."""
    target.mkdir(parents=True, exist_ok=True)
    for name, data in zip(names, arrays, strict=True):
        if isinstance(name, str) and ENTRY.match(name) and "/" not in name:
            (target / name).write_bytes(data.tobytes())
    if isinstance(primitives, list):
        kept = [p for p in primitives[:MAX_PRIMITIVES] if isinstance(p, str) and _PRIMITIVE.fullmatch(p)]
        (target / PRIMITIVES_FILE).write_text("\n".join(kept))
