import jax.numpy as jnp


def safe_log(x):
    if x > 0:  # a Python branch on array values
        return jnp.log(x)
    return jnp.zeros_like(x)
