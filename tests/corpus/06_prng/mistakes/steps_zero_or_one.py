import jax
import jax.numpy as jnp


def random_walk(key, num_steps):
    steps = jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32)  # 0 or 1, not -1 or +1
    return jnp.cumsum(steps)
