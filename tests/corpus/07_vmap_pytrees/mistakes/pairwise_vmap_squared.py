import jax
import jax.numpy as jnp


def _squared(a, b):
    return jnp.sum((a - b) ** 2)


def pairwise_distances(xs, ys):
    return jax.vmap(jax.vmap(_squared, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)
