import jax.numpy as jnp


def safe_log(x):
    return jnp.where(x > 0, jnp.log(x), 0.0)  # right values, NaN gradient at 0
