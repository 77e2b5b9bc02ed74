import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


def grad_with_aux(params, x, y):
    return jax.grad(loss_with_aux)(params, x, y)  # the loss returns a pair: needs has_aux=True
