import jax.numpy as jnp
from jax import lax


def cumulative_sum(x):
    def step(total, v):
        total = total + v
        return total, total

    _, sums = lax.scan(step, jnp.int32(0), x)  # int32 carry in, float32 carry out
    return sums
