import jax
import jax.numpy as jnp


def pairwise_distances(xs, ys):
    def squared_distance(x, y):
        return jnp.sum((x - y) ** 2)

    return jax.vmap(jax.vmap(squared_distance, in_axes=(None, 0)), in_axes=(0, None))(xs, ys)
