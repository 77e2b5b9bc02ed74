import jax.numpy as jnp
import numpy as np


def random_walk(key, num_steps):
    steps = np.random.choice([-1, 1], size=num_steps)  # ignores the key
    return jnp.cumsum(jnp.asarray(steps, dtype=jnp.int32))
