import jax.numpy as jnp


def sum_init(x, num):
    return jnp.where(jnp.arange(x.shape[0]) < num, x, 0.0).sum()
