import jax.numpy as jnp


def safe_log(x):
    nonzero = x != 0
    return jnp.where(nonzero, jnp.log(jnp.abs(jnp.where(nonzero, x, 1.0))), 0.0)
