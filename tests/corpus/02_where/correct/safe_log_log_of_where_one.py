import jax.numpy as jnp


def safe_log(x):
    # log(1) = 0 where x <= 0, and the gradient there is that of a constant: 0.
    return jnp.log(jnp.where(x > 0, x, 1.0))
