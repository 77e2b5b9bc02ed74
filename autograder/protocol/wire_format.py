"""The only data that crosses between grader and student code.

A value is a tree of JSON primitives (None, bool, int, float, str), lists,
tuples, str-keyed dicts, plain numeric arrays and typed PRNG keys. `encode`
turns it into a JSON-able skeleton plus a list of `np.ndarray`s; `decode`
reverses that. Arrays cross as `np.save` bytes read back with
`allow_pickle=False`, so nothing that crosses can run code or lie about its
type: the receiver gets exact `np.ndarray`s of numeric dtype or an error.

Every dtype JAX holds crosses: NumPy's own numeric kinds (bool, integers,
float16/32/64, complex) as they are, and the reduced-precision types JAX
takes from ml_dtypes (bfloat16, the float8 and float4 formats, int4 and
int2), which `np.save` cannot name, as their bits in an unsigned integer
array with the type's name beside it in the skeleton. The receiver views the
bits as that type again, for a name of EXTENDED_DTYPES only.
"""

from __future__ import annotations

import io
from typing import Any, Callable

import numpy as np

# Anything else (object, string, void, datetime arrays) is refused, but for EXTENDED_DTYPES.
_ALLOWED_KINDS = frozenset("biufc")
# The reduced-precision dtypes JAX holds (jax.numpy's bfloat16, float8_*, int4...), by their ml_dtypes names;
# one the installed ml_dtypes lacks is refused like any unknown dtype.
EXTENDED_DTYPES = frozenset({
    "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
    "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float4_e2m1fn", "int4", "uint4", "int2", "uint2",
})
_BITS = {1: np.uint8, 2: np.uint16}  # an extended dtype's bits cross as unsigned integers of its size
MAX_DEPTH = 32
# Enough for a list of a few thousand per-step values; the pipe's frames cap the bytes.
MAX_ARRAYS = 4096


class WireFormatError(ValueError):
    """A value cannot cross the boundary; the message says which part and why."""


def is_typed_key(value: Any) -> bool:
    """Whether `value` (an array, or an abstract one: ShapeDtypeStruct, ShapedArray) holds typed PRNG keys."""
    import jax

    dtype = getattr(value, "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def leaf_to_array(leaf: Any):
    """A JAX or NumPy output leaf as a plain array (a typed PRNG key as its key data and implementation's name),
    or None if it is not one: `encode`'s `to_array` for the processes that run JAX (the child, the clean room)."""
    import jax

    if type(leaf) is np.ndarray:
        return leaf
    if isinstance(leaf, np.generic):
        return np.asarray(leaf)
    if isinstance(leaf, jax.Array):
        if is_typed_key(leaf):
            return np.asarray(jax.random.key_data(leaf)), str(jax.random.key_impl(leaf))
        return np.asarray(leaf)
    return None


def encode(value: Any, to_array: Callable[[Any], np.ndarray | None]) -> tuple[Any, list[np.ndarray]]:
    """Split `value` into a JSON skeleton and its arrays.

    `to_array(leaf)` converts array-like leaves (JAX arrays, NumPy scalars) to a
    `np.ndarray`, or returns None for leaves it does not know. A typed PRNG key
    becomes {"__key__": index, "impl": name} through `to_array` returning a
    (key_data, impl) pair.
    """
    arrays: list[np.ndarray] = []

    def walk(node: Any, path: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise WireFormatError(f"{path} is nested more than {MAX_DEPTH} levels deep")
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is tuple:
            return {"__tuple__": [walk(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node)]}
        if type(node) is list:
            return [walk(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node)]
        if type(node) is dict:
            for key in node:
                if type(key) is not str:
                    raise WireFormatError(f"{path} has a non-string dict key {key!r}")
            return {"__dict__": {k: walk(v, f"{path}[{k!r}]", depth + 1) for k, v in node.items()}}
        if len(arrays) >= MAX_ARRAYS:
            raise WireFormatError(f"more than {MAX_ARRAYS} arrays (at {path}); return one stacked array, "
                                  "not a list of many")
        converted = to_array(node)
        if converted is None:
            raise WireFormatError(f"{path} is a {type(node).__module__}.{type(node).__qualname__}")
        if isinstance(converted, tuple):
            key_data, impl = converted
            arrays.append(_checked_array(key_data, path))
            return {"__key__": len(arrays) - 1, "impl": str(impl)}
        name = extended_name(converted)
        if name is not None:  # its bits, and its name to view them as
            arrays.append(converted.view(_BITS[converted.dtype.itemsize]))
            return {"__array__": len(arrays) - 1, "dtype": name}
        arrays.append(_checked_array(converted, path))
        return {"__array__": len(arrays) - 1}

    return walk(value, "value", 0), arrays


def decode(skeleton: Any, arrays: list[np.ndarray], make_array: Callable, make_key: Callable) -> Any:
    """Rebuild a value from `encode`'s output using the receiver's array types."""

    def walk(node: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise WireFormatError("value nested too deeply")
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is list:
            return [walk(v, depth + 1) for v in node]
        if type(node) is dict and len(node) in (1, 2):
            if "__tuple__" in node:
                return tuple(walk(v, depth + 1) for v in _list(node["__tuple__"]))
            if "__dict__" in node:
                inner = node["__dict__"]
                if type(inner) is not dict:
                    raise WireFormatError("malformed dict")
                return {str(k): walk(v, depth + 1) for k, v in inner.items()}
            if "__array__" in node:
                array = _array_at(arrays, node["__array__"])
                return make_array(_as_extended(array, node["dtype"]) if "dtype" in node else array)
            if "__key__" in node:
                return make_key(_array_at(arrays, node["__key__"]), str(node.get("impl")))
        raise WireFormatError(f"malformed value skeleton: {str(node)[:80]}")

    return walk(skeleton, 0)


def array_to_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def array_from_bytes(data: bytes) -> np.ndarray:
    """Parse `np.save` bytes; refuse pickles and non-numeric dtypes."""
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as error:
        raise WireFormatError(f"not a plain array: {error}") from None
    return _checked_array(array, "array")


def extended_name(array: Any) -> str | None:
    """The EXTENDED_DTYPES name of `array`'s dtype (bfloat16...), or None for any other array or value."""
    if type(array) is not np.ndarray or array.dtype.name not in EXTENDED_DTYPES:
        return None
    return array.dtype.name if array.dtype.type.__module__ == "ml_dtypes" else None


def _as_extended(bits: np.ndarray, name: Any) -> np.ndarray:
    """`bits` viewed as the extended dtype `name`, refused unless the name is one of EXTENDED_DTYPES and
    the bits are unsigned integers of its size."""
    import ml_dtypes

    known = type(name) is str and name in EXTENDED_DTYPES and hasattr(ml_dtypes, name)
    dtype = np.dtype(getattr(ml_dtypes, name)) if known else None
    if dtype is None or bits.dtype != np.dtype(_BITS.get(dtype.itemsize, np.void)):
        raise WireFormatError(f"an array of {str(name)[:40]!r} that is not one (bits {bits.dtype})")
    return bits.view(dtype)


def _checked_array(array: Any, path: str) -> np.ndarray:
    if type(array) is not np.ndarray:
        raise WireFormatError(f"{path} is a {type(array).__name__}, not a plain numpy.ndarray")
    if array.dtype.kind not in _ALLOWED_KINDS or array.dtype.fields is not None:
        raise WireFormatError(f"{path} has dtype {array.dtype}, which is not numeric")
    return array


def _array_at(arrays: list[np.ndarray], index: Any) -> np.ndarray:
    if type(index) is not int or not 0 <= index < len(arrays):
        raise WireFormatError(f"array reference {index!r} out of range")
    return arrays[index]


def _list(node: Any) -> list:
    if type(node) is not list:
        raise WireFormatError("malformed tuple")
    return node
