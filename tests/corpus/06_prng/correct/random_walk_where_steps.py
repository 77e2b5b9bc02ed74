import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    flips = jax.random.bernoulli(key, 0.5, (num_steps,))
    # The path without its starting point: position after each step.
    return jnp.cumsum(jnp.where(flips, 1, -1).astype(jnp.int32))
