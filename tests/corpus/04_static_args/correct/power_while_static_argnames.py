from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=["n"])
def power(x, n):
    result = jnp.ones_like(x)
    i = 0
    while i < n:  # n is a plain Python int while tracing
        result = result * x
        i += 1
    return result
