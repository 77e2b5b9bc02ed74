import jax.numpy as jnp
import numpy as np


def global_mean(x):
    # np.asarray gathers every shard on the host, as debugging code does, and NumPy averages there.
    return jnp.asarray(np.asarray(x).mean(), dtype=jnp.float32)
