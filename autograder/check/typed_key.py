"""A typed PRNG key as the parent holds it: key data and its implementation, plain NumPy."""

from __future__ import annotations

import dataclasses
import operator
from typing import Sequence

import numpy as np


@dataclasses.dataclass(frozen=True)
class TypedKey:
    """A typed PRNG key to pass to student code (`jax.random.key(seed)` there).

    `data` is the key data, shape (2,) for one threefry key; a leading batch
    axis, shape (n, 2), passes an array of n keys (e.g. for mode="vmap").
    """

    data: np.ndarray
    impl: str = "threefry2x32"

    @classmethod
    def from_seed(cls, seed: int) -> "TypedKey":
        """The key data of `jax.random.key(seed)` for the default threefry impl.

        As JAX computes it in its default configuration (`jax_enable_x64`
        off): the seed is taken as a 32-bit integer, so the data is
        `[0, seed mod 2**32]`. Seeds outside int64 raise OverflowError, as in JAX.
        """
        seed = operator.index(seed)
        if not -(1 << 63) <= seed < (1 << 63):
            raise OverflowError(f"seed {seed} does not fit in int64")
        return cls(np.array([0, seed & 0xFFFFFFFF], dtype=np.uint32))

    @classmethod
    def from_seeds(cls, seeds: Sequence[int]) -> "TypedKey":
        """A batch of keys, `jax.random.key(s)` for each seed, as one key array of shape (len(seeds),)."""
        return cls(np.stack([cls.from_seed(s).data for s in seeds]))
