import jax.numpy as jnp


def pairwise_distances(xs, ys):
    xx = jnp.sum(xs * xs, axis=1)[:, None]
    yy = jnp.sum(ys * ys, axis=1)[None, :]
    return jnp.maximum(xx + yy - 2.0 * xs @ ys.T, 0.0)
