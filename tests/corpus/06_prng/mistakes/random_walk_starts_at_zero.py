import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    steps = 2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1
    # The walk is recorded from its starting point 0, as simulations often do.
    start = jnp.zeros((1,), dtype=jnp.int32)
    return jnp.concatenate([start, jnp.cumsum(steps)])
