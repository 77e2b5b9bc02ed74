"""Loading and running exported programs: the clean room's work, in whichever process hosts it.

`ProgramTable.load` deserializes a `jax.export` program, reads its facts
from the parsed module (module_walk) and refuses what the grader does not
run: any custom call (native code that trusts the shapes it is given, so a
student's program could make it write past its buffers), a program for
another platform or device count, or one that is too large. `run` calls a
loaded program on inputs. No persistent compilation cache is used: nothing a
submission built is written anywhere.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
from typing import Any

import numpy as np

from autograder.cleanroom.module_walk import ModuleUnreadable
from autograder.protocol.errors import KitFault
from autograder.protocol.program_facts import ProgramFacts
from autograder.protocol.program_failures import ProgramRefused

MAX_PROGRAM_BYTES = 64 << 20
MAX_LOADED = 256  # programs kept loaded; the least recently used go first
# Custom-call targets of JAX's own Python callbacks: refused like any custom call, explained differently.
PYTHON_CALLBACK_TARGETS = frozenset({"xla_python_cpu_callback", "xla_ffi_python_cpu_callback",
                                     "xla_python_gpu_callback", "xla_ffi_python_gpu_callback",
                                     "xla_ffi_partitioned_python_cpu_callback"})
# Custom calls that are annotations for XLA's partitioner, removed before anything runs. JAX before 0.7
# writes shardings and shard_map's boundaries this way (from 0.7, as Shardy operations); only a student's
# own process accepts them (InProcessPrograms, for JAX in the student package's range): the grader's
# runner, on the pinned JAX, has no honest use for them and refuses every custom call.
PARTITIONER_ANNOTATIONS = frozenset({"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"})


class ProgramTable:
    """Loaded programs by handle (the SHA-256 of their bytes), for one process."""

    def __init__(self, devices: int = 1, annotations: frozenset[str] = frozenset()):
        self._devices = devices
        self._annotations = annotations  # custom-call targets accepted as partitioner annotations
        # handle -> (the deserialized program, its facts)
        self._loaded: collections.OrderedDict[str, tuple[Any, ProgramFacts]] = collections.OrderedDict()
        # One jit object per loaded multi-device program: jit caches its compilation by the function, and
        # `exported.call` is a new bound method at every access.
        self._calls: dict[str, Any] = {}

    def load(self, data: bytes) -> tuple[str, ProgramFacts]:
        """Deserialize and check `data`; its handle and facts.

        Raises ProgramRefused for a program that is not run (unreadable bytes among them), KitFault when
        the kit fails to read the facts of a program that parsed.
        """
        from jax import export

        if len(data) > MAX_PROGRAM_BYTES:
            raise ProgramRefused("too_large", f"{len(data) >> 20} MiB, more than {MAX_PROGRAM_BYTES >> 20} MiB")
        handle = hashlib.sha256(data).hexdigest()
        if handle in self._loaded:
            # The same bytes as a program loaded before (students who wrote the same code export the
            # same program): the same program and facts, so it is neither parsed nor checked again.
            self._loaded.move_to_end(handle)
            return handle, self._loaded[handle][1]
        exported = None
        try:
            exported = export.deserialize(bytearray(data))
            facts = _facts(exported)
        except RecursionError:
            raise ProgramRefused("unreadable", "nested too deeply") from None
        except (ProgramRefused, KitFault):
            raise
        except ModuleUnreadable as unreadable:
            raise ProgramRefused("unreadable", str(unreadable)) from None
        except Exception as error:
            if exported is None:  # malformed bytes: whatever the deserializer raises, it is not a program we run
                raise ProgramRefused("unreadable", type(error).__name__) from None
            # The program parsed; reading its facts failed: the kit's code, not the student's program.
            raise KitFault(f"reading the program's facts failed: {type(error).__name__}: {error}"[:300]) from None
        _refuse_what_the_grader_does_not_run(exported, facts, self._devices, self._annotations)
        self._loaded[handle] = (exported, facts)
        while len(self._loaded) > MAX_LOADED:
            self._calls.pop(self._loaded.popitem(last=False)[0], None)
        return handle, facts

    def input_types(self, handle: str) -> tuple:
        """The loaded program's flat input types (`Exported.in_avals`). KeyError if `handle` is not loaded."""
        return tuple(self._loaded[handle][0].in_avals)

    def _call_of(self, handle: str, exported: Any) -> Any:
        if exported.nr_devices <= 1:
            return exported.call
        if handle not in self._calls:
            self._calls[handle] = _multi_device_call(exported)
        return self._calls[handle]

    def run(self, handle: str, args: list, kwargs: dict, gradient: bool = False) -> Any:
        """The loaded program's outputs (JAX arrays, computed) on `args` and `kwargs`, its traced arguments.

        With `gradient`, instead `jax.grad` of the sum of its output with respect to its first argument,
        computed through the derivative program serialized with it (ValueError if it has none).
        KeyError if `handle` is not loaded; anything the program raises (shapes that disagree with the
        inputs, a failed compilation) propagates.
        """
        import jax
        import jax.numpy as jnp

        exported, _ = self._loaded[handle]
        self._loaded.move_to_end(handle)
        place = _placer(exported.nr_devices)
        args, kwargs = [place(a) for a in args], {k: place(v) for k, v in kwargs.items()}
        call = self._call_of(handle, exported)
        with _without_lapack_kernels():
            if not gradient:
                return jax.block_until_ready(call(*args, **kwargs))
            if not exported.has_vjp() or not args:
                raise ValueError("the program was exported without its derivative, or takes no positional argument")
            summed = lambda first, *rest: jnp.sum(call(first, *rest, **kwargs))  # noqa: E731
            return jax.block_until_ready(jax.grad(summed)(*args))


@contextlib.contextmanager
def _without_lapack_kernels():
    """While a loaded program runs, JAX does not load its LAPACK kernels for it.

    From JAX 0.10, lowering a call of an exported program registers the LAPACK kernels first (scipy's
    BLAS and LAPACK, about 0.2 s of CPU, once per process), in case the program calls them. A loaded
    program calls none: every custom call is refused at `load`. A JAX without that step runs as it is.
    """
    try:
        from jax._src.export import _export
    except ImportError:
        yield
        return
    ensure = getattr(_export, "_ensure_backends_initialized", None)
    if ensure is None:
        yield
        return
    _export._ensure_backends_initialized = lambda platforms: None
    try:
        yield
    finally:
        _export._ensure_backends_initialized = ensure


def _multi_device_call(exported) -> Any:
    """A program for several devices runs on as many of this process's devices, under jit so that XLA
    places its results as the program says (which is what the runner then reports)."""
    import jax

    return jax.jit(exported.call)


def _facts(exported) -> ProgramFacts:
    """The program's facts; the custom calls of its serialized derivative program (if any) count as its own.

    Structure facts come from the function's own program only: its derivative is JAX's work, not the
    student's. But the runner runs the derivative program too (`run(..., gradient=True)`), so what it
    refuses in one it refuses in the other. A program carries at most one level of derivative.
    """
    import dataclasses

    from autograder.cleanroom.module_walk import facts_of

    facts = facts_of(exported)
    if not exported.has_vjp():
        return facts
    try:
        derivative = exported.vjp()
    except Exception as error:  # the derivative program's bytes: the program's, like its own
        raise ModuleUnreadable(f"derivative program: {type(error).__name__}") from None
    if derivative.has_vjp():
        raise ProgramRefused("unreadable", "derivative programs nested more than one level deep")
    targets = facts.custom_call_targets | facts_of(derivative).custom_call_targets
    return dataclasses.replace(facts, custom_call_targets=targets)


def _refuse_what_the_grader_does_not_run(exported, facts: ProgramFacts, devices: int,
                                         annotations: frozenset[str]) -> None:
    if "cpu" not in exported.platforms:
        raise ProgramRefused("platform", ", ".join(map(str, exported.platforms))[:100])
    if facts.nr_devices > devices:
        raise ProgramRefused("devices", f"{facts.nr_devices} > {devices}")
    callbacks = facts.custom_call_targets & PYTHON_CALLBACK_TARGETS
    if callbacks:
        raise ProgramRefused("callback", ", ".join(sorted(callbacks)))
    native = facts.custom_call_targets - annotations
    if native:
        raise ProgramRefused("custom_call", ", ".join(sorted(native))[:200])


def _placer(devices: int):
    """How inputs are put on devices: on one (the default device), or replicated over the first `devices`.

    A program exported for several devices says in its own input shardings how it wants them (a
    row-sharded argument, say); jit moves replicated inputs there, so the runner needs no more than the
    device count to run it.
    """
    import jax

    target = None
    if devices > 1:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        target = NamedSharding(Mesh(np.array(jax.devices()[:devices]), ("data",)), PartitionSpec())

    def place(value: Any) -> Any:
        return jax.tree.map(lambda leaf: jax.device_put(leaf, target)
                            if isinstance(leaf, (np.ndarray, np.generic, jax.Array)) else leaf, value)

    return place

