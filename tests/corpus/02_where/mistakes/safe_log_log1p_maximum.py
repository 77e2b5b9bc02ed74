import jax.numpy as jnp


def safe_log(x):
    return jnp.where(x > 0, jnp.log1p(jnp.maximum(x, 0.0)), 0.0)
