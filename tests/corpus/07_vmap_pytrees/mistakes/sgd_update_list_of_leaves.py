import jax


def sgd_update(params, grads, learning_rate):
    # Right values, but the structure of params is lost.
    return [p - learning_rate * g for p, g in zip(jax.tree.leaves(params), jax.tree.leaves(grads))]
