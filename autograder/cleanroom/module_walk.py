"""Facts about an exported program, read by walking its parsed operations.

The serialized module (portable StableHLO bytecode) is deserialized by
jaxlib's MLIR bindings and walked operation by operation, in every function
of the module. Nothing is matched in the module's text: debug locations
(which `jax.named_scope` fills with any string), function names and string
attributes say nothing here. Only the operations' registered names, the
shapes of the values they produce and the targets of custom calls count.

The walk refuses (ProgramRefused) what the grader does not run: an
operation outside allowed_operations (one that waits for the host, say),
and any value whose size is not known from the module itself (a dynamic
dimension, an unranked tensor: shape polymorphism), which would otherwise
count as no elements at all.
"""

from __future__ import annotations

import collections
from typing import Any, Iterator

from autograder.cleanroom.allowed_operations import ALLOWED_OPERATIONS
from autograder.protocol.program_facts import CONSTRUCTS_BY_OPERATION, ProgramFacts
from autograder.protocol.program_failures import ProgramRefused


class ModuleUnreadable(ValueError):
    """MLIR could not parse the program's module: the program's fault (its bytes), not the kit's."""


def facts_of(exported: Any) -> ProgramFacts:
    """The ProgramFacts of a deserialized `jax.export.Exported`.

    Raises ModuleUnreadable when its module does not parse, ProgramRefused ("operation",
    "dynamic_shape") for what the grader does not run; any other exception is the walk's own
    failure, which the caller reports as the kit's (protocol.errors.KitFault).
    """
    _refuse_symbolic_shapes(exported)
    from jax._src.interpreters import mlir

    with mlir.make_ir_context():
        try:
            module = _parsed_module(exported)
        except RecursionError:
            raise
        except Exception as error:  # whatever MLIR's parser raises on bytes it cannot read
            raise ModuleUnreadable(type(error).__name__) from None
        names: collections.Counter[str] = collections.Counter()
        count = largest = 0
        targets: set[str] = set()
        refused: set[str] = set()
        for operation in _operations(module.operation):
            if operation.name not in ALLOWED_OPERATIONS:
                refused.add(operation.name[:64])
            name = _short_name(operation.name)
            names[name] += 1
            count += 1
            largest = max(largest, _largest_result(operation))
            if name == "custom_call":
                targets.add(_call_target(operation))
    if refused:
        raise ProgramRefused("operation", ", ".join(sorted(refused))[:200])
    constructs = set().union(*(CONSTRUCTS_BY_OPERATION.get(name, frozenset()) for name in names))
    return ProgramFacts(primitives=frozenset(set(names) | constructs), equation_count=count,
                        largest_value_elements=largest, custom_call_targets=frozenset(targets),
                        nr_devices=int(exported.nr_devices), operation_counts=tuple(sorted(names.items())))


def _parsed_module(exported: Any):
    """The module as MLIR objects.

    jaxlib 0.10 deserializes the portable artifact into a module; older
    jaxlibs (see autograder/student/jax_support.py) return it as text, or
    have no such function, and the text is parsed by MLIR's own parser.
    """
    from jax._src.lib.mlir import ir

    deserialize = _portable_artifact_deserializer()
    module = deserialize(exported.mlir_module_serialized) if deserialize else exported.mlir_module()
    if isinstance(module, (str, bytes)):
        return ir.Module.parse(module)
    return module


def _portable_artifact_deserializer():
    try:
        from jax._src.lib import _jax
    except ImportError:  # jaxlib before 0.6.1 names its extension xla_extension
        from jax._src.lib import xla_extension as _jax
    return getattr(getattr(_jax, "mlir", None), "deserialize_portable_artifact", None)


def _operations(root) -> Iterator[Any]:
    """Every operation nested in `root`, depth first, without recursion (a deep program cannot exhaust the stack)."""
    pending = [root]
    while pending:
        operation = pending.pop()
        for region in reversed(list(operation.regions)):
            for block in reversed(list(region.blocks)):
                for nested in reversed(list(block.operations)):
                    nested = nested.operation
                    yield nested
                    pending.append(nested)


def _short_name(name: str) -> str:
    """"stablehlo.while" -> "while"; "func.call" -> "call"."""
    return name.rsplit(".", 1)[-1]


def _largest_result(operation) -> int:
    """The most elements of any value `operation` produces. Raises ProgramRefused for a size the module
    does not fix: an unknown size is never counted as small."""
    from jax._src.lib.mlir import ir

    largest = 0
    for value in (*operation.results, *_block_arguments(operation)):
        try:
            shaped = ir.ShapedType(value.type)
        except (ValueError, TypeError):
            continue  # not an array (a token, a tuple of values counted where they are made)
        if not shaped.has_rank or not shaped.has_static_shape:
            raise ProgramRefused("dynamic_shape", f"{operation.name[:64]} makes a value of type {str(value.type)[:80]}")
        elements = 1
        for size in shaped.shape:
            elements *= int(size)
        largest = max(largest, elements)
    return largest


def _refuse_symbolic_shapes(exported: Any) -> None:
    """A program exported for symbolic shapes (jax.export's shape polymorphism): the grader exports with
    concrete ones, so its sizes would be decided only when it runs."""
    for aval in (*exported.in_avals, *exported.out_avals):
        if not all(isinstance(size, int) for size in aval.shape):
            raise ProgramRefused("dynamic_shape", f"an input or output of shape {str(aval.shape)[:80]}")


def _block_arguments(operation) -> Iterator[Any]:
    """The arguments of the blocks directly inside `operation` (a function's inputs, a loop's carry)."""
    for region in operation.regions:
        for block in region.blocks:
            yield from block.arguments


def _call_target(operation) -> str:
    from jax._src.lib.mlir import ir

    try:
        return ir.StringAttr(operation.attributes["call_target_name"]).value[:64]
    except (KeyError, ValueError, TypeError):
        return "(unnamed)"
