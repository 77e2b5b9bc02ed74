import jax.numpy as jnp


def pairwise_distances(xs, ys):
    # Every pair of rows by broadcasting, with ys on the first axis.
    return jnp.linalg.norm(ys[:, None, :] - xs[None, :, :], axis=-1)
