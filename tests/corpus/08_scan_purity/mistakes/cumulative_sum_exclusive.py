import jax.numpy as jnp
from jax import lax


def cumulative_sum(x):
    def step(total, v):
        return total + v, total  # outputs the total before adding v

    _, sums = lax.scan(step, jnp.zeros((), x.dtype), x)
    return sums
