import jax.numpy as jnp


def safe_log(x):
    # jnp.log where the input may be 0 or negative: no guard at all.
    return jnp.log(x)
