# Jittable, loop-free code with the right shapes and dtypes that computes the wrong thing:
# property checks ("jittable", "no Python loop", "dtype kept") give nothing for it.
import jax.numpy as jnp


def set_element(x, index, value):
    return x  # returns its input unchanged


def set_diagonal(m, values):
    return jnp.zeros_like(m)


def histogram(indices, num_bins):
    return jnp.zeros(num_bins, dtype=jnp.int32)


def swap_rows(m, i, j):
    return jnp.zeros_like(m)
