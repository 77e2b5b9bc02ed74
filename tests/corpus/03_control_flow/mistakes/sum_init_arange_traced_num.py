import jax.numpy as jnp


def sum_init(x, num):
    return x[jnp.arange(num)].sum()
