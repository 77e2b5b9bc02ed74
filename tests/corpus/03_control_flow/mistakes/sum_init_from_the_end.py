import jax.numpy as jnp
from jax import lax


def sum_init(x, num):
    def body(i, total):
        return total + x[x.shape[0] - 1 - i]

    return lax.fori_loop(0, num, body, jnp.zeros((), x.dtype))
