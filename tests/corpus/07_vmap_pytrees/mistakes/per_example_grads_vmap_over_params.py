import jax


def per_example_grads(loss_fn, params, xs, ys):
    return jax.vmap(jax.grad(loss_fn))(params, xs, ys)  # in_axes=0 maps params too
