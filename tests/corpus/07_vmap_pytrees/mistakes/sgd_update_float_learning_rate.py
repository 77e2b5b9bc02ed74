import jax


def sgd_update(params, grads, learning_rate):
    learning_rate = float(learning_rate)  # needs a concrete value: fails with learning_rate traced
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads)
