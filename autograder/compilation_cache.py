"""JAX's persistent compilation cache, for the trusted side of `autograder grade` only.

Some suites compute their reference outputs with JAX (06_prng's exact-match
references, for instance). A grading worker compiles those programs once and
reuses them for every submission it grades; with this cache, a worker that
starts later, or the next run, loads them instead of compiling them again.
On CPU, JAX caches only programs that took longer to compile than
jax_persistent_cache_min_compile_time_secs (1 s by default), which none of
these do, hence 0.

Student code never touches this cache: sandbox children get their own HOME,
no cache setting, and an audit hook that refuses writes outside their working
directory and reads outside the Python installation. So everything the
trusted side reads here, the trusted side wrote.
"""

from __future__ import annotations

import os
from pathlib import Path

# A directory, or "off" to compile everything in every worker.
ENVIRONMENT_VARIABLE = "AUTOGRADER_JAX_CACHE"


def default_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "autograder" / "jax-compilation"


def enable() -> Path | None:
    """Point this process's JAX at the cache; returns the directory, or None if the cache is off."""
    setting = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if setting.lower() == "off":
        return None
    directory = Path(setting) if setting else default_directory()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a read-only home, say: grading works the same, only slower
    import jax

    jax.config.update("jax_compilation_cache_dir", str(directory))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return directory
