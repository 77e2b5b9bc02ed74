"""The trusted side's JAX cache ("grade"): set without importing JAX, so a worker that needs no JAX never pays for it.

A grading worker points JAX at its cache first thing (compilation_cache.enable),
but 01's suite computes its references with NumPy alone and the store's build
learns JAX's primitives from the writing child: importing JAX (0.7 s of CPU)
would be spent for nothing. Runs in a fresh Python process, as a worker is.
"""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO

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
    assert found == directory == str(tmp_path / "grade")
    assert (float(min_seconds), int(min_bytes), int(max_bytes)) == (0.0, 0, 512 << 20)
