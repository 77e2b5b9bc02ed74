import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    coin = jax.random.bernoulli(key, 0.5, shape=(num_steps,))
    steps = 2 * coin.astype(jnp.int32) - 1
    return steps  # the moves of the walk, not the positions it reaches
