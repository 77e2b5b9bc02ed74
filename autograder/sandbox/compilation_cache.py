"""JAX's persistent compilation cache, for processes whose every writer is trusted by every reader.

Three uses, each with a directory of its own:
- "grade": the trusted side of `autograder grade`. Some suites compute their
  reference outputs with JAX (06_prng's exact-match references, for
  instance); a grading worker compiles those programs once, and a worker
  that starts later, or the next run, loads them. Student code never
  touches this directory: sandbox children get their own HOME, no cache
  setting, and an audit hook that refuses writes outside their working
  directory and reads outside the Python installation.
- "check": `autograder check`, which runs the student's code in its own
  process on the student's own machine. Everything it reads there, the same
  user's checks wrote; the student's next check loads the programs of the
  last one instead of compiling them again. Notebook check cells and
  nbgrader's kernels never use it, so one student's code cannot write what
  another's grading reads.
- "programs": not JAX's cache but beside it, the stores of JAX's own
  programs that `autograder grade` builds from the kit's solutions
  (sandbox.shared_programs.batch_store), kept for the next batch with the
  same settings.

And one cache with no shared directory at all: a notebook kernel's own
(enable_private), for check cells. A temporary directory that only that
kernel's process writes and reads, removed when it exits: a check cell run
again loads the programs its last run compiled (the student's functions
included) instead of compiling them again, and nothing one kernel wrote is
ever read by another.

Each directory holds one folder per kind of processor (`machine_kind`):
XLA's CPU programs are built for the processor that compiled them, and a
home directory can be shared by machines of several kinds.

On CPU, JAX caches only programs that took longer to compile than
jax_persistent_cache_min_compile_time_secs (1 s by default), which nearly
none of these do, hence 0. Every directory is capped. JAX caps a
directory that lives as long as its process ("grade", a kernel's own),
least recently used entries first, at the price of a lock and an
access-time file per read and a scan of the whole directory per write.
`autograder check` is a short process that compiles one small program per
operation the student's code runs eagerly, and the scans alone made a
first check half a second slower: its directory is capped here instead,
once, when the process starts (oldest entries first).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import platform
import sys
from pathlib import Path

# A directory, or "off" to compile everything every time.
ENVIRONMENT_VARIABLE = "AUTOGRADER_JAX_CACHE"
USES = ("grade", "check", "programs")
MAX_BYTES = 512 << 20
PRIVATE_MAX_BYTES = 128 << 20

_private_directory: Path | None = None


def kit_folder() -> Path:
    """The kit's folder in the user's cache ($XDG_CACHE_HOME, else ~/.cache): these caches, and
    autograder.warm_start's sockets."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "autograder"


def default_directory(use: str = "grade") -> Path:
    name = {"grade": "jax-compilation", "programs": "shared-programs"}.get(use, f"jax-compilation-{use}")
    return kit_folder() / name


def directory(use: str = "grade") -> Path | None:
    """`use`'s directory for this kind of machine (not created), or None if $AUTOGRADER_JAX_CACHE is "off"."""
    if use not in USES:
        raise ValueError(f"use must be one of {USES}, got {use!r}")
    setting = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if setting.lower() == "off":
        return None
    return ((Path(setting) / use) if setting else default_directory(use)) / machine_kind()


@functools.lru_cache(maxsize=1)
def machine_kind() -> str:
    """A short name for the processor JAX's CPU programs are compiled for: its architecture and instruction sets.

    XLA compiles a CPU program for the processor it runs on, and JAX's cache key names the platform ("cpu") but
    not the processor: a home directory that machines of several kinds share (a JupyterHub's nodes, CI runners)
    would hand one machine a program built for another's instructions, which crashes the process. Each kind
    of machine reads and writes a folder of its own.
    """
    features = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                name, _, value = line.partition(":")
                if name.strip() in ("flags", "Features"):  # x86, Arm
                    features = " ".join(sorted(value.split()))
                    break
    except OSError:  # not Linux: the processor's own name
        features = platform.processor()
    digest = hashlib.sha256(f"{platform.machine()}|{features}".encode()).hexdigest()[:12]
    return f"{platform.machine() or 'cpu'}-{digest}"


def enable(use: str = "grade") -> Path | None:
    """Point this process's JAX at `use`'s cache; returns the directory, or None if the cache is off.

    $AUTOGRADER_JAX_CACHE, if set to a directory, holds one subdirectory per use.
    """
    if use == "programs":
        raise ValueError("the shared programs' store is not JAX's cache: see sandbox.shared_programs.batch_store")
    found = directory(use)
    if found is None:
        return None
    try:
        found.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a read-only home, say: grading works the same, only slower
    if use == "grade":
        _point_jax_at(found, MAX_BYTES)
    else:
        _prune(found, MAX_BYTES)
        _point_jax_at(found, None)
    return found


def enable_private() -> Path | None:
    """Give this process a JAX cache of its own, for a notebook's check cells; returns its directory.

    A new temporary directory, removed when the process exits. Nothing
    happens (None) under nbgrader's autograde (each cell runs once there), if
    JAX already has a cache directory (the user's own choice wins, and a
    second call keeps the first directory), if $AUTOGRADER_JAX_CACHE is
    "off", or if no temporary directory can be made.
    The cache serves every later compilation in the process, the student's
    own cells included.
    """
    global _private_directory
    if _private_directory is not None:
        return _private_directory
    if os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower() == "off":
        return None
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        return None
    import shutil
    import tempfile  # here, with shutil: every `autograder check` reads kit_folder(), through autograder.warm_start

    import jax

    if getattr(jax.config, "jax_compilation_cache_dir", None):  # JAX types its flags by attribute only
        return None
    try:
        made = Path(tempfile.mkdtemp(prefix="autograder-kernel-jax-"))
    except OSError:
        return None
    atexit.register(shutil.rmtree, made, ignore_errors=True)
    _point_jax_at(made, PRIVATE_MAX_BYTES)
    from jax.experimental.compilation_cache import compilation_cache

    # Some JAX versions decide whether a process uses a cache at its first compilation, which in a
    # notebook came before its first check cell: make JAX decide again.
    compilation_cache.reset_cache()
    _private_directory = made
    return made


def _prune(directory: Path, max_bytes: int) -> None:
    """Remove the oldest entries of a cache one process uses at a time until it holds at most `max_bytes`."""
    try:
        entries = [(entry.stat(follow_symlinks=False), entry.path) for entry in os.scandir(directory)
                   if entry.is_file(follow_symlinks=False)]
    except OSError:
        return
    total = sum(status.st_size for status, _ in entries)
    for status, path in sorted(entries, key=lambda found: found[0].st_mtime):
        if total <= max_bytes:
            return
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= status.st_size


def _point_jax_at(directory: Path, max_bytes: int | None) -> None:
    """JAX's cache in `directory`, every program cached; capped by JAX at `max_bytes`, or not at all (None)."""
    settings = {"jax_compilation_cache_dir": str(directory), "jax_persistent_cache_min_compile_time_secs": 0.0,
                "jax_persistent_cache_min_entry_size_bytes": 0,
                "jax_compilation_cache_max_size": -1 if max_bytes is None else max_bytes}
    import importlib.util

    if max_bytes is not None and importlib.util.find_spec("filelock") is None:
        # JAX caps its cache's size only with filelock, and without it turns the whole cache off, silently (a
        # student package installed with --no-deps): uncapped is better than none.
        del settings["jax_compilation_cache_max_size"]
    if "jax" not in sys.modules:
        # JAX takes each flag's default from $JAX_<FLAG> when it is imported: no need to import it now (0.7 s
        # of CPU), nor at all in a grading worker whose suites compute no reference with JAX (01's).
        os.environ.update({name.upper(): str(value) for name, value in settings.items()})
        return
    import jax

    for name, value in settings.items():
        jax.config.update(name, value)
