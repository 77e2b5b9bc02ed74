"""sum_init: the student's own @jax.jit (num traced), a (index, total) tuple carry, traced bounds."""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def sum_init(x, num):
    def body(i, carry):
        count, total = carry
        return count + 1, total + x[i]

    _, total = lax.fori_loop(jnp.int32(0), num, body, (jnp.int32(0), x.dtype.type(0)))
    return total
