"""The trusted side's JAX cache ("grade"): set without importing JAX, so a worker that needs no JAX never pays for it.

A grading worker points JAX at its cache first thing (compilation_cache.enable),
but 01's suite computes its references with NumPy alone and the store's build
learns JAX's primitives from the writing child: importing JAX (0.7 s of CPU)
would be spent for nothing. Runs in a fresh Python process, as a worker is.
"""

from __future__ import annotations

import io
import os
import platform
import subprocess
import sys

from conftest import REPO

from autograder.sandbox import compilation_cache

_WORKER_START = """
import sys
from autograder.sandbox import compilation_cache
found = compilation_cache.enable("grade")
imported_by_enable = "jax" in sys.modules
import jax
print(imported_by_enable, found, jax.config.jax_compilation_cache_dir,
      jax.config.jax_persistent_cache_min_compile_time_secs, jax.config.jax_persistent_cache_min_entry_size_bytes,
      jax.config.jax_compilation_cache_max_size)
"""


def test_the_grading_cache_is_set_without_importing_jax_and_jax_takes_it_when_imported(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "AUTOGRADER_JAX"))}
    env["AUTOGRADER_JAX_CACHE"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", _WORKER_START], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    imported, found, directory, min_seconds, min_bytes, max_bytes = done.stdout.split()
    assert imported == "False", "enable() imported JAX"
    assert found == directory == str(tmp_path / "grade" / compilation_cache.machine_kind())
    assert (float(min_seconds), int(min_bytes), int(max_bytes)) == (0.0, 0, 512 << 20)


def test_each_kind_of_processor_has_a_folder_of_its_own(tmp_path, monkeypatch):
    """XLA builds a CPU program for the processor that compiles it, and JAX's cache key says only "cpu": machines
    of two kinds sharing a home directory must never read each other's programs."""
    monkeypatch.setenv("AUTOGRADER_JAX_CACHE", str(tmp_path))
    here = compilation_cache.directory("check")
    assert here is not None and here.parent == tmp_path / "check"
    assert here.name == compilation_cache.machine_kind() and here.name.startswith(platform.machine())
    compilation_cache.machine_kind.cache_clear()
    try:
        real_open = open

        def other_processor(path, *args, **kwargs):
            if str(path) == "/proc/cpuinfo":
                return io.StringIO("processor\t: 0\nflags\t\t: fpu sse sse2\n")
            return real_open(path, *args, **kwargs)

        monkeypatch.setattr("builtins.open", other_processor)
        elsewhere = compilation_cache.directory("check")
    finally:
        monkeypatch.undo()
        compilation_cache.machine_kind.cache_clear()
    assert elsewhere is not None and elsewhere.parent == here.parent and elsewhere != here
    assert compilation_cache.machine_kind() == here.name, "the same processor, the same folder"
