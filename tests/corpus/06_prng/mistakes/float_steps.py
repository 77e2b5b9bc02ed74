import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    flips = jax.random.bernoulli(key, 0.5, (num_steps,))
    return jnp.cumsum(jnp.where(flips, 1.0, -1.0))  # float32 positions, not int32
