import jax


def per_example_grads(loss_fn, params, xs, ys):
    # in_axes spelled out for params {"w", "b"}: any other structure does not match it
    return jax.vmap(jax.grad(loss_fn), in_axes=({"w": None, "b": None}, 0, 0))(params, xs, ys)
