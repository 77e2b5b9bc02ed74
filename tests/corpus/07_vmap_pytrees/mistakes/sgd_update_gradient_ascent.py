import jax


def sgd_update(params, grads, learning_rate):
    return jax.tree_util.tree_map(lambda p, g: p + learning_rate * g, params, grads)
