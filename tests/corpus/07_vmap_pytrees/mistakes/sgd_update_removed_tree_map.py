import jax


def sgd_update(params, grads, learning_rate):
    # As tutorials written for JAX 0.4 do: jax.tree_map, which JAX 0.6 removed.
    return jax.tree_map(lambda p, g: p - learning_rate * g, params, grads)
