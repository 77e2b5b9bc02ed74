import jax.numpy as jnp


def masked_mean(x, mask):
    return jnp.mean(x, where=mask)  # NumPy's where= argument of reductions
