"""From a JAX exception to the hint that names the fix.

Works on a description of the error (its class name, the names of its base
classes and its message) so the parent can choose the hint for an error
raised in the sandbox child without receiving the exception object.
"""

from __future__ import annotations

import re
from typing import Sequence

from autograder.catalog import messages
from autograder.check import jax_api_versions

# Most specific first: an error's own class is looked up before its bases.
_BY_TYPE = (
    "KeyReuseError",
    "NonConcreteBooleanIndexError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TracerArrayConversionError",
    "UnexpectedTracerError",
    "ConcretizationTypeError",
)

# Errors whose class is too generic (TypeError, ValueError): matched by message.
_BY_MESSAGE = (
    ("JAX arrays are immutable", "ImmutableArray"),
    ("does not support item assignment", "ImmutableArray"),
    ("Non-hashable static arguments", "UnhashableStatic"),
    ("Gradient only defined for scalar-output functions", "ScalarOutputGrad"),
    ("as an abstract array", "NonArrayArgument"),
    ("Incompatible shapes for broadcasting", "IncompatibleShapes"),
    ("got incompatible shapes for broadcasting", "IncompatibleShapes"),  # lax's words, inside vmap or jit
    # A Python `if` on a whole array fails even without jit: its own hint, which does not say "inside jit".
    ("truth value of an array with more than one element is ambiguous", "ArrayTruthValue"),
    # jax.vmap mapping an argument it should share (in_axes 0 where None is meant).
    ("vmap got inconsistent sizes for array axes to be mapped", "VmapInAxes"),
    ("which implies that its rank should be at least 1", "VmapInAxes"),
    ("vmap in_axes specification must be a tree prefix", "VmapInAxes"),
    # jax.make_mesh((4,), ...) on a machine with fewer devices: a device count written into the code.
    ("must be >= the product of mesh_shape", "DeviceCountWrittenIn"),
    # np.array(jax.devices()).reshape(2, 4): NumPy's own message, a shape written in.
    ("cannot reshape array of size", "ReshapeFixedCount"),
    # lax.psum(x, 'data') outside a pmap named 'data'; PartitionSpec('data') on a mesh without that axis.
    ("unbound axis name", "UnknownAxisName"),
    ("is not found in mesh", "UnknownAxisName"),
    ("must refer to an axis marked as manual", "UnknownAxisName"),
    # A slice or a shape whose bound is traced (`x[:n]`, the sizes of `lax.dynamic_slice`): a concrete value needed.
    ("Slice entries must be static integers", "ConcretizationTypeError"),
    ("Shapes must be 1D sequences of concrete values of integer type", "ConcretizationTypeError"),
    # A Python float or int where a JAX array is needed (a loop's initial value, a constant).
    ("'float' object has no attribute", "PythonScalar"),
    ("'int' object has no attribute", "PythonScalar"),
    # lax.scan / fori_loop / while_loop: the body returned a carry of another type or structure.
    ("carry input and carry output must have", "CarryType"),
    # Other APIs JAX removed that older tutorials still use (those check.jax_api_versions knows come first).
    ("module 'jax' has no attribute 'tree_map'", "RemovedTreeMap"),
    ("module 'jax' has no attribute 'tree_multimap'", "RemovedTreeMap"),
    ("module 'jax.ops' has no attribute 'index_", "RemovedIndexUpdate"),
    ("module 'jax.experimental' has no attribute 'host_callback'", "RemovedHostCallback"),
    # A raw uint32 key from jax.random.PRNGKey mixed with the typed keys the exercise passes.
    ("is not a valid dtype for JAX type promotion", "RawAndTypedKeys"),
)


def hint_key(type_names: Sequence[str], message: str) -> str | None:
    """The catalog key of the hint for a JAX error, or None if there is none.

    Suites use it to tell errors apart (`hint.ConcretizationTypeError`...)
    from a `StudentCodeError`'s `error.mro` and `error.message`.

    Args:
        type_names: the exception's class and its bases, by name.
        message: the exception's message.

    Returns:
        A key such as "hint.TracerBoolConversionError", or None.
    """
    for name in type_names:
        if name in _BY_TYPE:
            return f"hint.{name}"
    for needle, key in _BY_MESSAGE:
        if needle in message:
            return f"hint.{key}"
    return None


def _refined(key: str, message: str) -> str:
    """A more precise sentence for an error that `key` classifies, where its message shows the cause. Suites
    tell errors apart by `hint_key`, so the refinement changes only what the student reads."""
    if key == "hint.UnhashableStatic" and "Tracer" in message:
        # A static argument given a tracer: code that traces the function passes a value it cannot know.
        return "hint.StaticTraced"
    if key == "hint.IncompatibleShapes" and _per_example_against_batch(message):
        return "hint.PerExampleAgainstBatch"
    return key


_SHAPE = re.compile(r"\((\d+(?:, ?\d+)*),?\)")


def _per_example_against_batch(message: str) -> bool:
    """Shapes that do not broadcast because one has an entry per example, (n,), and the other is the batch,
    (n, ..., m) with m != n: the per-example axis meets the batch's last axis instead of its first."""
    if "ncompatible shapes for broadcasting" not in message:
        return False
    shapes = [tuple(int(d) for d in found.split(",") if d.strip()) for found in _SHAPE.findall(message)]
    vectors = {shape[0] for shape in shapes if len(shape) == 1}
    return any(len(shape) >= 2 and shape[0] in vectors and shape[-1] != shape[0] for shape in shapes)


def hint_for(type_names: Sequence[str], message: str) -> str | None:
    """The hint sentence for an error, or None. An API the running JAX lacks is named with the JAX versions
    that have it and its replacement (check.jax_api_versions), before any other hint."""
    moved = jax_api_versions.hint(message) if {"AttributeError", "ImportError"} & set(type_names) else None
    if moved:
        return moved
    key = hint_key(type_names, message)
    return messages.text(_refined(key, message)) if key else None
