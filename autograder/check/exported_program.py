"""Facts about a student's function established in the trusted parent, from its exported program.

The sandbox child lowers the student's function with `jax.export` (the
traced, non-static arguments abstract) and sends the serialized StableHLO:
data, not code. The parent deserializes it, refuses host callbacks and
custom calls outside JAX's list of stable targets, reads its structure, and
runs it itself on the hidden inputs. So "jittable" (traces, and the traced
program computes the right values), "uses lax.cond / a loop" and "not
unrolled" are decided here, where student code never runs: a child that
rewrites its own grading code can only send a different program, which then
has to compute the right values in the parent.

What does not move: how often the student's own `jax.jit` object traces
(its cache lives in the child) is still counted in the child.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Sequence

import numpy as np


@dataclasses.dataclass(frozen=True)
class JaxprFacts:
    """What a function's program is made of: the JAX constructs it uses and its size."""

    primitives: frozenset[str]
    equation_count: int
    text: str


MAX_PROGRAM_BYTES = 64 << 20
_OPERATION = re.compile(r"\b(stablehlo|chlo|mhlo|func)\.([a-z_]+)")
_CUSTOM_CALL = re.compile(r"custom_call\s*@([\w.$-]+)|call_target_name\s*=\s*\"([^\"]*)\"")
LOOP_CONSTRUCTS = frozenset({"while", "scan"})
# StableHLO operations, by the JAX construct that lowers to them (what the suites ask for).
_CONSTRUCTS = {"case": {"cond"}, "if": {"cond"}, "while": LOOP_CONSTRUCTS}


class ProgramRefused(ValueError):
    """The exported program cannot be run by the grader; the message says why, for the student."""


def load(data: bytes):
    """Deserialize an exported program and check what it may call; raises ProgramRefused."""
    from jax import export

    if len(data) > MAX_PROGRAM_BYTES:
        raise ProgramRefused(f"the compiled program is larger than {MAX_PROGRAM_BYTES >> 20} MiB")
    try:
        exported = export.deserialize(bytearray(data))
    except Exception as error:  # malformed bytes: the child sent something that is not an exported program
        raise ProgramRefused(f"the grader could not read the compiled program ({type(error).__name__})") from None
    if "cpu" not in exported.platforms:
        raise ProgramRefused(f"the compiled program is for {exported.platforms}, not the CPU")
    unknown = sorted(custom_calls(exported.mlir_module()) - _stable_targets())
    if unknown:
        raise ProgramRefused("it calls back into Python or into native code the grader does not run "
                             f"({', '.join(unknown)[:200]})")
    return exported


def custom_calls(module_text: str) -> set[str]:
    """The custom-call targets named in a StableHLO module's text."""
    return {a or b for a, b in _CUSTOM_CALL.findall(module_text)}


def facts(exported):
    """The program's structure (JaxprFacts): the JAX constructs its operations show, and how many operations it has."""

    text = exported.mlir_module()
    operations = [name for _dialect, name in _OPERATION.findall(text)]
    constructs = set().union(*(_CONSTRUCTS.get(name, set()) for name in operations)) if operations else set()
    return JaxprFacts(frozenset(constructs | set(operations)), len(operations), text[:4000])


def run(exported, args: Sequence[Any], kwargs: dict[str, Any], static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = ()) -> Any:
    """Call the program on the traced arguments (the static ones were fixed at export); NumPy results."""
    import jax

    traced_args = [_to_jax(a) for i, a in enumerate(args) if i not in set(static_argnums)]
    traced_kwargs = {k: _to_jax(v) for k, v in kwargs.items() if k not in set(static_argnames)}
    out = jax.block_until_ready(exported.call(*traced_args, **traced_kwargs))
    return jax.tree.map(_to_numpy, out)


def _to_jax(value: Any) -> Any:
    import jax

    from autograder.check.typed_key import TypedKey

    def leaf(item: Any) -> Any:
        if isinstance(item, TypedKey):
            return jax.random.wrap_key_data(jax.numpy.asarray(item.data), impl=item.impl)
        return jax.device_put(item) if isinstance(item, (np.ndarray, np.generic)) else item

    return jax.tree.map(leaf, value, is_leaf=lambda item: isinstance(item, TypedKey))


def _to_numpy(leaf: Any) -> np.ndarray:
    import jax

    if isinstance(leaf, jax.Array) and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
        return np.asarray(jax.random.key_data(leaf))
    return np.asarray(leaf)


def _stable_targets() -> frozenset[str]:
    from jax._src.export import _export

    return frozenset(_export._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE)
