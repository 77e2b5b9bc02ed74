import jax
import jax.numpy as jnp


def dropout(key, x, rate):
    if rate == 0:  # a Python if on a value that may be traced
        return x
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)
