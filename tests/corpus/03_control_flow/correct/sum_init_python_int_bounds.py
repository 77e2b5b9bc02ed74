"""sum_init: fori_loop over all of x with Python-int bounds (lowers to `scan`), masking by num."""

import jax.numpy as jnp
from jax import lax


def sum_init(x, num):
    def body(i, total):
        return total + jnp.where(i < num, x[i], 0.0)

    return lax.fori_loop(0, x.shape[0], body, 0.0)
