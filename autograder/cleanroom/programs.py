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
import hashlib
from typing import Any

import numpy as np

from autograder.protocol.program_facts import ProgramFacts
from autograder.protocol.program_failures import ProgramRefused

MAX_PROGRAM_BYTES = 64 << 20
MAX_LOADED = 256  # programs kept loaded; the least recently used go first
# Custom-call targets of JAX's own Python callbacks: refused like any custom call, explained differently.
PYTHON_CALLBACK_TARGETS = frozenset({"xla_python_cpu_callback", "xla_ffi_python_cpu_callback",
                                     "xla_python_gpu_callback", "xla_ffi_python_gpu_callback",
                                     "xla_ffi_partitioned_python_cpu_callback"})


class ProgramTable:
    """Loaded programs by handle (the SHA-256 of their bytes), for one process."""

    def __init__(self, devices: int = 1):
        self._devices = devices
        self._loaded: collections.OrderedDict[str, Any] = collections.OrderedDict()

    def load(self, data: bytes) -> tuple[str, ProgramFacts]:
        """Deserialize and check `data`; its handle and facts. Raises ProgramRefused."""
        from jax import export

        if len(data) > MAX_PROGRAM_BYTES:
            raise ProgramRefused("too_large", f"{len(data) >> 20} MiB, more than {MAX_PROGRAM_BYTES >> 20} MiB")
        handle = hashlib.sha256(data).hexdigest()
        try:
            exported = export.deserialize(bytearray(data))
            facts = _facts(exported)
        except RecursionError:
            raise ProgramRefused("unreadable", "nested too deeply") from None
        except Exception as error:  # malformed bytes: whatever the parser raises, it is not a program we run
            raise ProgramRefused("unreadable", type(error).__name__) from None
        _refuse_what_the_grader_does_not_run(exported, facts, self._devices)
        self._loaded[handle] = exported
        self._loaded.move_to_end(handle)
        while len(self._loaded) > MAX_LOADED:
            self._loaded.popitem(last=False)
        return handle, facts

    def run(self, handle: str, args: list, kwargs: dict) -> Any:
        """The loaded program's outputs (JAX arrays, computed) on `args` and `kwargs`, its traced arguments.

        KeyError if `handle` is not loaded; anything the program raises (shapes that disagree with the
        inputs, a failed compilation) propagates.
        """
        import jax

        exported = self._loaded[handle]
        self._loaded.move_to_end(handle)
        return jax.block_until_ready(exported.call(*[_to_jax(a) for a in args],
                                                   **{k: _to_jax(v) for k, v in kwargs.items()}))


def _facts(exported) -> ProgramFacts:
    from autograder.cleanroom.module_walk import facts_of

    return facts_of(exported)


def _refuse_what_the_grader_does_not_run(exported, facts: ProgramFacts, devices: int) -> None:
    if "cpu" not in exported.platforms:
        raise ProgramRefused("platform", ", ".join(map(str, exported.platforms))[:100])
    if facts.nr_devices > devices:
        raise ProgramRefused("devices", f"{facts.nr_devices} > {devices}")
    callbacks = facts.custom_call_targets & PYTHON_CALLBACK_TARGETS
    if callbacks:
        raise ProgramRefused("callback", ", ".join(sorted(callbacks)))
    if facts.custom_call_targets:
        raise ProgramRefused("custom_call", ", ".join(sorted(facts.custom_call_targets))[:200])


def _to_jax(value: Any) -> Any:
    import jax

    return jax.tree.map(lambda leaf: jax.device_put(leaf) if isinstance(leaf, (np.ndarray, np.generic)) else leaf,
                        value)

