from functools import partial

import jax


@partial(jax.jit, static_argnums=0)
def per_example_grads(loss_fn, params, xs, ys):
    return jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))(params, xs, ys)
