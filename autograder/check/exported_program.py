"""Where the grader's side of a check sends the programs students' functions export.

The sandbox child lowers the student's function with `jax.export` (its
traced arguments abstract) and sends the serialized StableHLO: data, not
code. Those bytes are never parsed, compiled or run in the trusted grading
worker. `autograder grade` hands them to the clean-room runner
(sandbox.program_runner: a confined process that parses the module, refuses
every custom call, reads the structure facts from the parsed operations and
runs the program on the hidden inputs under a CPU-time limit). So
"jittable" (it traces, and the traced program computes the right values),
"uses lax.cond / a loop" and "not unrolled" are decided where student code
never runs, from parsed structures.

In a student's own process (check cells, `autograder check`) the same code
(cleanroom.programs) runs in that process: `InProcessPrograms`.

What does not move: how often the student's own `jax.jit` object traces
(its cache lives in the child) is still counted in the child.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from autograder.cleanroom.programs import PARTITIONER_ANNOTATIONS, ProgramTable
from autograder.protocol import wire_format
from autograder.protocol.placements import Placement, placement_of
from autograder.protocol.program_facts import LOOP_CONSTRUCTS, ProgramFacts
from autograder.protocol.program_failures import ProgramRefused, ProgramRunFailed
from autograder.protocol.wire_format import is_typed_key

__all__ = ["LOOP_CONSTRUCTS", "InProcessPrograms", "LoadedProgram", "Placement", "ProgramFacts", "ProgramRefused",
           "ProgramRunFailed", "Programs"]


class LoadedProgram(Protocol):
    """A program the runner holds: its handle there and the facts read from its parsed module."""

    @property
    def handle(self) -> str: ...

    @property
    def facts(self) -> ProgramFacts: ...


class Programs(Protocol):
    """Loads exported programs and runs them (the runner, or this process for a student's own checks)."""

    def load(self, data: bytes, cpu_seconds: float) -> LoadedProgram: ...

    def run(self, program: Any, data: bytes, skeleton: Any, arrays: list[np.ndarray], cpu_seconds: float,
            gradient: bool = False) -> Any: ...

    def run_placed(self, program: Any, data: bytes, skeleton: Any, arrays: list[np.ndarray],
                   cpu_seconds: float) -> tuple[Any, list[Placement]]: ...


class _InProcessProgram:
    def __init__(self, handle: str, facts: ProgramFacts):
        self.handle, self.facts = handle, facts


class InProcessPrograms:
    """Programs loaded and run in this process: for a student's own checks, where nothing decides a grade."""

    def __init__(self):
        import jax

        self._table = ProgramTable(devices=jax.device_count(), annotations=PARTITIONER_ANNOTATIONS)

    def load(self, data: bytes, cpu_seconds: float) -> _InProcessProgram:
        return _InProcessProgram(*self._table.load(data))

    def run(self, program: _InProcessProgram, data: bytes, skeleton: Any, arrays: list[np.ndarray],
            cpu_seconds: float, gradient: bool = False) -> Any:
        import jax

        args, kwargs = self._inputs(program, skeleton, arrays)
        out = self._table.run(program.handle, args, kwargs, gradient=gradient)
        return jax.tree.map(_to_numpy, out)

    def run_placed(self, program: _InProcessProgram, data: bytes, skeleton: Any, arrays: list[np.ndarray],
                   cpu_seconds: float) -> tuple[Any, list[Placement]]:
        import jax

        args, kwargs = self._inputs(program, skeleton, arrays)
        out = self._table.run(program.handle, args, kwargs)
        placements = [placement_of(leaf) for leaf in jax.tree.leaves(out) if isinstance(leaf, jax.Array)]
        return jax.tree.map(_to_numpy, out), placements

    def _inputs(self, program: _InProcessProgram, skeleton: Any, arrays: list[np.ndarray]) -> tuple[list, dict]:
        """The program's traced arguments; each key as its data where the program takes key data (a program
        exported by a JAX before 0.6, which cannot serialize typed keys: child.older_jax_exports)."""
        import jax

        inputs = wire_format.decode(skeleton, arrays, make_array=jax.device_put,
                                    make_key=lambda key_data, impl: jax.random.wrap_key_data(key_data, impl=impl))
        traced = (list(inputs["args"]), dict(inputs["kwargs"]))
        leaves, treedef = jax.tree.flatten(traced)
        avals = self._table.input_types(program.handle)
        if len(avals) == len(leaves):
            leaves = [jax.random.key_data(leaf) if is_typed_key(leaf) and not is_typed_key(aval) else leaf
                      for leaf, aval in zip(leaves, avals, strict=True)]
        args, kwargs = jax.tree.unflatten(treedef, leaves)
        return args, kwargs


def _to_numpy(leaf: Any) -> np.ndarray:
    import jax

    if isinstance(leaf, jax.Array) and is_typed_key(leaf):
        return np.asarray(jax.random.key_data(leaf))  # typed keys come back to the parent as their key data
    return np.asarray(leaf)
