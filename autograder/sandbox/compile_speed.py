"""XLA flags for processes that compile many small programs and run each a few times: sandbox children and
`autograder check`.

A check runs a student's function eagerly, so XLA compiles one small
program per operation and shape (176 for 09's solution): compile time is
most of a first check. Three flags change code generation only, not XLA's
graph passes, so values agree with the default's to the last bits or
within compare.TOLERANCES' tightest float32 tolerance (rtol 1e-5, atol 1e-6):

- LLVM's optimization level 0 halves the compile time of JAX's heavier
  programs (a threefry sampler: 3.2 -> 1.4 s for eight shapes) and runs
  them a few per cent slower. On batches of eight solutions: 5 to 9 % less
  wall time for 03, 06, 07 and 09.
- XLA:CPU's older elemental emitters instead of its MLIR fusion emitters
  (the default since jaxlib 0.5.3 or so): 30 to 40 % less CPU per small
  program (06's first check: 3.7 -> 2.3 s of CPU). An unknown flag aborts
  XLA, and jaxlib 0.5.0 has no such flag: it is set only where it exists.
- One piece of LLVM code per program instead of several compiled on
  threads of their own: a small program gains nothing from the threads, and
  a check's two processes (student.exercise_halves) already keep both cores
  busy. 06's check in one process: 2.84 -> 2.65 s, and 3.95 -> 3.67 s of CPU
  (three runs each, alternately). Every jaxlib of the supported range has it.
"""

from __future__ import annotations

import functools
from collections.abc import MutableMapping

from autograder.check.jax_api_versions import installed_version, parse_version

LEVEL_ZERO = "--xla_backend_optimization_level=0"
ELEMENTAL_EMITTERS = "--xla_cpu_use_fusion_emitters=false"
ELEMENTAL_EMITTERS_FLAG_SINCE = (0, 5, 3)  # the oldest jaxlib tested to know it (0.5.0 does not)
ONE_CODEGEN_PIECE = "--xla_cpu_parallel_codegen_split_count=1"


def flags(jaxlib_version: str | None = None) -> str:
    """The flags for `jaxlib_version` (default: the installed jaxlib), as XLA_FLAGS holds them."""
    version = jaxlib_version or _installed_jaxlib()
    if parse_version(version) >= ELEMENTAL_EMITTERS_FLAG_SINCE:
        return f"{LEVEL_ZERO} {ONE_CODEGEN_PIECE} {ELEMENTAL_EMITTERS}"
    return f"{LEVEL_ZERO} {ONE_CODEGEN_PIECE}"


def add_to_environment(environment: MutableMapping[str, str], jaxlib_version: str | None = None) -> None:
    """Append the flags that `environment["XLA_FLAGS"]` does not already set (a user's own value wins)."""
    present = environment.get("XLA_FLAGS", "")
    missing = [flag for flag in flags(jaxlib_version).split() if flag.split("=")[0] not in present]
    environment["XLA_FLAGS"] = " ".join([present, *missing]).strip()


@functools.cache
def _installed_jaxlib() -> str:
    """Read once per process: a grading worker builds a child's environment for every submission."""
    return installed_version("jaxlib", "jaxlib") or "0"
