import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = y - predictions  # targets minus predictions: the wrong sign
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}
