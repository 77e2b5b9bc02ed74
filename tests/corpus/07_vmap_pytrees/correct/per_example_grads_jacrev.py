import jax


def per_example_grads(loss_fn, params, xs, ys):
    # The Jacobian of the vector of per-example losses: row i is the gradient of loss i.
    def losses(params):
        return jax.vmap(loss_fn, in_axes=(None, 0, 0))(params, xs, ys)

    return jax.jacrev(losses)(params)
