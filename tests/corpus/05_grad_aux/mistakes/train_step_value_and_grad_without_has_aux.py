import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


@jax.jit
def train_step(params, x, y, learning_rate):
    loss, grads = jax.value_and_grad(loss_with_aux)(params, x, y)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss
