import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    flips = jax.random.bernoulli(key, 0.5, (num_steps,))
    steps = jnp.array([1 if flip else -1 for flip in flips])  # Python if on each drawn value
    return jnp.cumsum(steps)
