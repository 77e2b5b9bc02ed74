import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


@jax.jit
def train_step(params, x, y, learning_rate):
    grads, aux = jax.grad(loss_with_aux, has_aux=True)(params, x, y)
    new_params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
    loss, _ = loss_with_aux(new_params, x, y)  # the loss at the new params
    return new_params, loss
