import jax.numpy as jnp


def sum_of_positive_numbers(x):
    return jnp.sum(x, where=x > 0)
