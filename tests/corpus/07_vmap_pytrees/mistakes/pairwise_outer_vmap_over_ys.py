import jax
import jax.numpy as jnp


def pairwise_distances(xs, ys):
    def to_all_xs(y):
        return jax.vmap(lambda x: jnp.sqrt(jnp.sum((x - y) ** 2)))(xs)

    return jax.vmap(to_all_xs)(ys)
