import jax.numpy as jnp
import numpy as np


def dropout(key, x, rate):
    keep = np.random.rand(*x.shape) < 1 - rate  # NumPy ignores the JAX key
    return jnp.where(keep, x / (1 - rate), 0)
