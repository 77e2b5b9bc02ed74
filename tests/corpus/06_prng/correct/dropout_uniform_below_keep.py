import jax
import jax.numpy as jnp


def dropout(key, x, rate):
    keep = jax.random.uniform(key, x.shape) < 1.0 - rate  # kept with probability 1 - rate
    return jnp.where(keep, x / (1.0 - rate), 0.0)
