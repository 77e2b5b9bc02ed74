import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


@jax.jit
def train_step(params, x, y, learning_rate):
    (loss, _), grads = jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)
    new_params = {name: params[name] - learning_rate * grads[name] for name in params}
    return new_params, loss.item()  # a Python float for the training log
