"""Exporting a student's function on a JAX older than the grader's (the student package's range).

Two things `jax.export` does only on newer JAX (student/jax_support.py lists
every version difference the kit adapts to):

- It serializes typed PRNG keys from 0.6 on. Before, the function is
  exported over its keys' data (`over_key_data`): the exported program takes
  each key as its `jax.random.key_data` and wraps it back into a key of the
  same implementation before calling the function, and returns any key as its
  data. The values it computes are the function's; the program differs by the
  wrap and unwrap operations, which compute nothing. The side that runs it
  passes key data where the program's input types say so
  (check.exported_program.InProcessPrograms).
- It serializes a program holding a `jax.pmap` only when pmap lowers through
  shard_map, JAX's default from 0.8. Before, that lowering is turned on while
  the function is exported (`pmap_through_shard_map`), and only then: on
  those versions it fails when the same function was run eagerly with it on.
  A `jax.pmap` object made before the export (at module level) keeps the old
  lowering and cannot be exported there: the check says it is the kit's
  limit, not the student's mistake (ErrorKind.KIT).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from autograder.protocol.wire_format import is_typed_key


def serializes_typed_keys() -> bool:
    """Whether this JAX's `jax.export` can serialize an argument of a typed-key dtype."""
    from jax._src.export import serialization

    kinds = getattr(serialization, "_dtype_to_dtype_kind", None)
    if not isinstance(kinds, dict):
        return True  # the table moved or changed form: the JAX is newer than every one that lacked keys
    import jax

    # The key's type only: traced, not computed (a key made eagerly compiles two programs).
    return jax.eval_shape(lambda: jax.random.key(0)).dtype in kinds


@contextlib.contextmanager
def pmap_through_shard_map() -> Iterator[None]:
    """`jax.pmap` made inside the block lowers through shard_map, so a program holding it can be exported."""
    import jax

    flag = getattr(jax.config, "jax_pmap_shmap_merge", True)
    if flag:
        yield
        return
    jax.config.update("jax_pmap_shmap_merge", True)
    try:
        yield
    finally:
        jax.config.update("jax_pmap_shmap_merge", False)


def needs_key_data(abstract_args: list, abstract_kwargs: dict) -> bool:
    import jax

    leaves = jax.tree.leaves((abstract_args, abstract_kwargs))
    return any(is_typed_key(leaf) for leaf in leaves) and not serializes_typed_keys()


def over_key_data(fn: Callable, abstract_args: list, abstract_kwargs: dict,
                  static_argnums: tuple[int, ...], static_argnames: tuple[str, ...]
                  ) -> tuple[Callable, list, dict]:
    """`fn` as a function of its keys' data, and the abstract arguments to export it with."""
    import jax

    statics = _Statics(frozenset(static_argnums), frozenset(static_argnames))
    leaves, treedef = jax.tree.flatten(statics.traced(abstract_args, abstract_kwargs))
    impls = [_impl(leaf) if is_typed_key(leaf) else None for leaf in leaves]

    def as_data(leaf, impl):
        if impl is None:
            return leaf
        data = jax.random.key_data(jax.random.key(0, impl=impl))
        return jax.ShapeDtypeStruct(tuple(leaf.shape) + data.shape, data.dtype)

    data_leaves = [as_data(leaf, impl) for leaf, impl in zip(leaves, impls, strict=True)]
    data_args, data_kwargs = statics.joined(jax.tree.unflatten(treedef, data_leaves), abstract_args, abstract_kwargs)

    def with_keys(*args: Any, **kwargs: Any) -> Any:
        flat = jax.tree.leaves(statics.traced(list(args), kwargs))
        keyed = [jax.random.wrap_key_data(leaf, impl=impl) if impl is not None else leaf
                 for leaf, impl in zip(flat, impls, strict=True)]
        keyed_args, keyed_kwargs = statics.joined(jax.tree.unflatten(treedef, keyed), list(args), kwargs)
        out = fn(*keyed_args, **keyed_kwargs)
        return jax.tree.map(lambda leaf: jax.random.key_data(leaf) if is_typed_key(leaf) else leaf, out)

    with_keys.__name__ = getattr(fn, "__name__", "with_keys")
    return with_keys, data_args, data_kwargs


class _Statics:
    """Which arguments are static: they stay as they are, and only the others are traced (and carry keys)."""

    def __init__(self, argnums: frozenset[int], argnames: frozenset[str]):
        self.argnums, self.argnames = argnums, argnames

    def traced(self, args: list, kwargs: dict) -> tuple[list, dict]:
        return ([a for i, a in enumerate(args) if i not in self.argnums],
                {k: v for k, v in kwargs.items() if k not in self.argnames})

    def joined(self, traced: tuple[list, dict], args: list, kwargs: dict) -> tuple[list, dict]:
        """`traced` with the static arguments of `args` and `kwargs` back in their places."""
        joined_args = list(traced[0])
        for i in sorted(self.argnums):
            joined_args.insert(i, args[i])
        return joined_args, {**traced[1], **{k: v for k, v in kwargs.items() if k in self.argnames}}


def _impl(leaf: Any) -> Any:
    """The PRNG implementation of a typed-key ShapeDtypeStruct (its dtype's `_impl`)."""
    return leaf.dtype._impl
