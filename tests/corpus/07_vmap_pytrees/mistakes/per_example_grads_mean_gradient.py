import jax
import jax.numpy as jnp


def per_example_grads(loss_fn, params, xs, ys):
    def mean_loss(params):
        return jnp.mean(jax.vmap(loss_fn, in_axes=(None, 0, 0))(params, xs, ys))

    return jax.grad(mean_loss)(params)  # one gradient for the whole batch
