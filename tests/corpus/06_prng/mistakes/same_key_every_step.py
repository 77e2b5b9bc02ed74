import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    # One draw per step, all from the same key: the same flip every time.
    steps = [2 * int(jax.random.bernoulli(key, 0.5)) - 1 for _ in range(num_steps)]
    return jnp.cumsum(jnp.array(steps, dtype=jnp.int32))
