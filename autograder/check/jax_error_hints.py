"""From a JAX exception to the hint that names the fix.

Works on a description of the error (its class name, the names of its base
classes and its message) so the parent can choose the hint for an error
raised in the sandbox child without receiving the exception object.
"""

from __future__ import annotations

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
    # A Python `if` on a whole array fails even without jit: its own hint, which does not say "inside jit".
    ("truth value of an array with more than one element is ambiguous", "ArrayTruthValue"),
    # jax.vmap mapping an argument it should share (in_axes 0 where None is meant).
    ("vmap got inconsistent sizes for array axes to be mapped", "VmapInAxes"),
    ("which implies that its rank should be at least 1", "VmapInAxes"),
    ("vmap in_axes specification must be a tree prefix", "VmapInAxes"),
    # jax.make_mesh((4,), ...) on a machine with fewer devices: a device count written into the code.
    ("must be >= the product of mesh_shape", "DeviceCountWrittenIn"),
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


def hint_for(type_names: Sequence[str], message: str) -> str | None:
    """The hint sentence for an error, or None. An API the running JAX lacks is named with the JAX versions
    that have it and its replacement (check.jax_api_versions), before any other hint."""
    moved = jax_api_versions.hint(message) if {"AttributeError", "ImportError"} & set(type_names) else None
    if moved:
        return moved
    key = hint_key(type_names, message)
    return messages.text(key) if key else None
