import jax
import jax.numpy as jnp


def dropout(key, x, rate):
    # The original dropout: units are dropped, the kept ones are not rescaled.
    mask = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(mask, x, 0.0)
