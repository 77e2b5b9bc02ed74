import jax.numpy as jnp


def square(x, negate):
    if negate:
        return -x**2
    return x**2
