import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    # The sum of squared errors, as least-squares derivations write it.
    return jnp.sum(residuals ** 2), {"predictions": predictions, "residuals": residuals}


@jax.jit
def train_step(params, x, y, learning_rate):
    (loss, _), grads = jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)
    return {k: params[k] - learning_rate * grads[k] for k in params}, loss
