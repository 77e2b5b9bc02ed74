import jax.numpy as jnp


def sum_init(x, num):
    return jnp.sum(x[:num])  # the first num entries, by slicing
