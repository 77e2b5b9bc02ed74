import jax.numpy as jnp


def safe_log(x):
    return jnp.nan_to_num(jnp.log(x), nan=0.0, neginf=0.0)
