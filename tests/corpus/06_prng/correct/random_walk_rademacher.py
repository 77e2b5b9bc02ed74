import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    steps = jax.random.rademacher(key, (num_steps,), dtype=jnp.int32)
    return jnp.cumsum(steps)
