import jax


def sgd_update(params, grads, learning_rate):
    leaves, treedef = jax.tree.flatten(params)
    updated = [p - learning_rate * g for p, g in zip(leaves, jax.tree.leaves(grads))]
    return jax.tree.unflatten(treedef, updated)
