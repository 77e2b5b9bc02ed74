import jax.numpy as jnp


def safe_log(x):
    safe = jnp.where(x > 0, x, 0.0)
    return jnp.where(x > 0, jnp.log1p(safe), 0.0)  # log(1 + x) is not log(x)
