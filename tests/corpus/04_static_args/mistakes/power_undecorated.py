import jax.numpy as jnp


def power(x, n):  # correct, but not a jitted function
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result
