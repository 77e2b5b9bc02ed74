import jax.numpy as jnp


def masked_mean(x, mask):
    return jnp.where(mask, x, 0.0).sum() / mask.sum()  # 0 / 0 = NaN on an empty mask
