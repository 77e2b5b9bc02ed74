import jax.numpy as jnp


def masked_mean(x, mask):
    # Entries outside the mask become NaN, and nanmean skips them.
    return jnp.nanmean(jnp.where(mask, x, jnp.nan))
