"""The child's side of the batch's compiled programs: JAX's cache in its own working directory.

A reading child copies the batch's store in before the submission loads and
never writes to it; the writing child (the kit's solution, building the store)
sends what JAX wrote back over the pipe. See sandbox.shared_programs for why
the trust model holds.
"""

from __future__ import annotations

import dataclasses
import os
import shutil

from autograder.protocol.program_store import ENTRY, MAX_BYTES, READ, WRITE

CACHE_DIRECTORY = ".jax-cache"  # inside a child's working directory


def written_in_child() -> tuple[dict, list]:
    """In a writing child: the entries of its JAX cache, as names and byte arrays for the pipe."""
    import numpy as np

    names, arrays, total = [], [], 0
    for entry in sorted(os.scandir(CACHE_DIRECTORY), key=lambda e: e.name) if os.path.isdir(CACHE_DIRECTORY) else []:
        if entry.is_file(follow_symlinks=False) and ENTRY.match(entry.name):
            with open(entry.path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
            total += len(data)
            if total > MAX_BYTES:
                break
            names.append(entry.name)
            arrays.append(np.frombuffer(data, dtype=np.uint8))
    return {"ok": True, "names": names, "primitives": lowerable_primitives()}, arrays


def lowerable_primitives() -> list[str]:
    """The names of the primitives this JAX can lower (empty if it does not say).

    The trusted side keeps a program named exactly after one in the store (shared_programs.is_library_program);
    it learns them from the writing child, which runs the kit's solution, so that a grading worker whose
    suites need no JAX never imports it.
    """
    try:
        from jax._src.interpreters import mlir

        lowered = set(mlir._lowerings)
        for table in mlir._platform_specific_lowerings.values():
            lowered.update(table)
        return sorted(str(primitive.name) for primitive in lowered)
    except Exception:
        return []


def use_in_child(mode: str | None, snapshot, programs: str | None = None):
    """In the child, before the submission loads: point JAX's cache at its working directory.

    A reading child first copies the store `programs` there (never a link:
    the child may write to its own files, never to the store, which the OS
    sandbox shows read-only anyway). Returns the tamper snapshot with these
    settings as the recorded ones, so that only a change made by student code
    counts as tampering.
    """
    if mode not in (READ, WRITE):
        return snapshot
    import jax

    if mode == READ and programs is not None and os.path.isdir(programs):
        shutil.copytree(programs, CACHE_DIRECTORY, symlinks=False, dirs_exist_ok=True)

    settings = {
        "jax_compilation_cache_dir": os.path.abspath(CACHE_DIRECTORY),
        # Reading: nothing compiles for a billion seconds, so nothing is ever written.
        "jax_persistent_cache_min_compile_time_secs": 0.0 if mode == WRITE else 1e9,
        "jax_persistent_cache_min_entry_size_bytes": 0,
        # JAX's GPU caches would put the directory's path into every cache key.
        "jax_persistent_cache_enable_xla_caches": "",
    }
    for name, value in settings.items():
        jax.config.update(name, value)
    return dataclasses.replace(snapshot, config=dict(snapshot.config,
                                                     **{name: jax.config.values[name] for name in settings}))
