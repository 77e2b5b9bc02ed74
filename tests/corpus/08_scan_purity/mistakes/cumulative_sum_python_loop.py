import jax.numpy as jnp


def cumulative_sum(x):
    sums, total = [], jnp.zeros((), x.dtype)
    for v in x:  # unrolled while tracing: one addition per entry
        total = total + v
        sums.append(total)
    return jnp.stack(sums)
