import jax.numpy as jnp


def cumulative_sum(x):
    return jnp.cumsum(x)
