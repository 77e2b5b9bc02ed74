import jax.numpy as jnp


def masked_mean(x, mask):
    return jnp.mean(jnp.where(mask, x, 0.0))
