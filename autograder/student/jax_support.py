"""The JAX versions the student package supports, and everything it does differently on each.

Students check their work with whatever JAX their runtime has (Colab's, a
JupyterHub's, a laptop's). The range below is tested release by release
(tests/test_jax_versions.py, the `jax_matrix` tier); outside it no check
runs: the first check says which JAX is there, which range is supported and
the line to run (`problem`), rather than give verdicts the checks were never
shown to get right.

Where JAX changed behaviour inside the range, `adapt` sets or names what the
checks need, and this is the only place that does so:

- `jax.monitoring.unregister_event_duration_listener` (trace counting) is
  public from 0.8.1; 0.5 to 0.8.0 have it under a private name.
- JAX's trace event names the traced function from 0.6 on; before, trace
  counting reads the name from the timer that reports the event
  (child/trace_counting.py).
- `jax.export` serializes typed PRNG keys from 0.6 on; before, a function
  with key arguments or results is exported over the keys' data
  (child/older_jax_exports.py).
- Before 0.7, shardings and shard_map's boundaries are custom calls for
  XLA's partitioner; the student's own process accepts those three
  (cleanroom/programs.py PARTITIONER_ANNOTATIONS).
- `jax.shard_map` is public from 0.6; before, `adapt` puts the same call
  (keyword-only specs, a mesh, `check_vma`) over
  `jax.experimental.shard_map.shard_map`, so 10_parallel's notebook runs
  (its replication check rejects some correct code with JAX's own error).
- `JAX_NUM_CPU_DEVICES` is read from 0.5.1 on; `autograder check` also sets
  XLA's host device count (student/device_checks.py).
- `jax.pmap` lowers through shard_map by default from 0.8
  (`jax_pmap_shmap_merge`); before, a program with a pmap cannot be
  exported, so the flag is on while a function is exported
  (child/older_jax_exports.py).
- Where outputs live is judged on the function called as the student calls
  it (no `jax.jit` around it). Before 0.8 (`pmap` not yet lowered through
  shard_map), indexing a `pmap` output by device (`new[0]`) returns that
  device's copy alone, where the grader's JAX returns it replicated; there
  a result that must be replicated and is on devices is also judged on the
  jitted function, whose outputs that JAX returns replicated
  (student/replay.py `_placed`).
- `jax.export` imports absl-py before 0.6 (a dependency of the package's
  metadata; `problem` names it when it is missing all the same).
- JAX's x64 mode (a second call in 64 bits, child/wider_floats.py) is
  `jax.enable_x64(True)` from 0.8 and `jax.experimental.enable_x64()`
  before.
- `Exported.mlir_module()` and jaxlib's deserializer return text before 0.10
  (cleanroom.module_walk parses it), and jaxlib's extension module is
  `xla_extension` before 0.6.1.

The range starts at 0.5.0: before it the random streams differ from the
recorded ones (`jax_threefry_partitionable` was off by default) and
10_parallel's notebook cannot set its device count (`jax_num_cpu_devices`
came in 0.5.0). It ends before 0.11, the first JAX that needs Python 3.12,
on which nothing here is tested.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys

from autograder.check.jax_api_versions import installed_version, parse_version

# The supported range: LOWEST <= version < BEYOND. TESTED lists the releases the matrix installs: the
# first of the range and the newest patch release of every minor one.
LOWEST = (0, 5, 0)
BEYOND = (0, 11)
TESTED = ("0.5.0", "0.5.3", "0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2")
ABSL_NEEDED_BEFORE = (0, 6)


def version_text(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def install_line(in_notebook: bool) -> str:
    """What to run to get a supported JAX (a notebook cell's `%pip`, or a terminal's `pip`)."""
    pip = "%pip" if in_notebook else "pip"
    return f'{pip} install "jax[cpu]>={version_text(LOWEST)},<{version_text(BEYOND)}"'


@dataclasses.dataclass(frozen=True)
class JaxProblem:
    """Why no check can run with this Python's JAX: a catalog key and the fields of its sentence."""

    key: str
    fields: dict[str, str]
    # The line to run in a notebook cell, and in a terminal; None: a supported JAX's (`install_line`).
    install: tuple[str, str] | None = None

    def sentence(self, in_notebook: bool) -> str:
        from autograder.catalog import messages

        notebook_line, terminal_line = self.install or (install_line(True), install_line(False))
        then = messages.text("student.jax_then_notebook" if in_notebook else "student.jax_then_command")
        return messages.text(self.key, **self.fields, install=notebook_line if in_notebook else terminal_line,
                             then=then)


def versions() -> str:
    """This Python's versions that a report of the kit's own failure needs: the package's, JAX's, jaxlib's."""
    found = {name: installed_version(name, module)
             for name, module in (("jax-exercises-student", "-"), ("jax", "jax"), ("jaxlib", "jaxlib.version"))}
    found["python"] = ".".join(map(str, sys.version_info[:3]))
    return ", ".join(f"{name} {version or '-'}" for name, version in found.items())


def problem() -> JaxProblem | None:
    """Why this Python's JAX cannot run the checks, or None when it can (then `adapt` has been applied)."""
    found = version_problem()
    if found is not None:
        return found
    try:
        import jax
        import jax.export  # noqa: F401  (the jit checks export programs; before 0.6 it needs absl-py)
    except Exception as error:  # a broken install: whatever it raises, the student reads it and the fix
        first_line = (str(error).strip().splitlines() or [""])[0][:300]
        return JaxProblem("student.jax_broken", {"error": f"{type(error).__name__}: {first_line}"})
    adapt()
    return None


def version_problem() -> JaxProblem | None:
    """What the installed versions alone say against running the checks (JAX not imported), or None."""
    jax_version = installed_version("jax", "jax")
    if jax_version is None:
        return JaxProblem("student.jax_missing", {})
    found = parse_version(jax_version)
    if not LOWEST <= found < BEYOND:
        return JaxProblem("student.jax_unsupported", {"found": jax_version, "lowest": version_text(LOWEST),
                                                      "beyond": version_text(BEYOND)})
    jaxlib_version = installed_version("jaxlib", "jaxlib.version")
    if jaxlib_version is not None and parse_version(jaxlib_version)[:2] != found[:2]:
        return JaxProblem("student.jax_mismatched", {"jax": jax_version, "jaxlib": jaxlib_version},
                          (f'%pip install "jax[cpu]=={jax_version}"', f'pip install "jax[cpu]=={jax_version}"'))
    if found < ABSL_NEEDED_BEFORE and importlib.util.find_spec("absl") is None:
        return JaxProblem("student.absl_missing", {"found": jax_version},
                          ("%pip install absl-py", "pip install absl-py"))
    return None


def adapt() -> None:
    """Make this JAX behave as the checks were recorded with (see the module's docstring). Idempotent."""
    import jax
    import jax.monitoring

    if not hasattr(jax, "shard_map"):
        jax.shard_map = _shard_map_over_the_experimental_one()  # type: ignore[attr-defined]
    if not hasattr(jax.monitoring, "unregister_event_duration_listener"):
        from jax._src import monitoring

        private = getattr(monitoring, "_unregister_event_duration_listener_by_callback", None)
        if private is not None:
            jax.monitoring.unregister_event_duration_listener = private


def indexes_pmap_outputs_as_the_grader() -> bool:
    """Whether indexing this JAX's `pmap` output by device (`new[0]`) returns it replicated, as grading's does
    (`pmap` lowered through shard_map), rather than that one device's copy."""
    import jax

    return parse_version(jax.__version__) >= (0, 8)


def _shard_map_over_the_experimental_one():
    """`jax.shard_map(f, *, out_specs, in_specs, mesh, check_vma=True)` on a JAX that has only the experimental one."""
    import functools

    from jax.experimental.shard_map import shard_map as experimental

    def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=frozenset(), check_vma=True):
        if f is None:
            return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                     axis_names=axis_names, check_vma=check_vma)
        # Its replication check rejects some code check_vma accepts (out_specs P() for a pmean's gradient),
        # with JAX's own error; without the check, that code's gradients come out wrong, and a wrong value
        # would get a hint with a false cause.
        return experimental(f, mesh, in_specs, out_specs, check_rep=check_vma)

    return shard_map
