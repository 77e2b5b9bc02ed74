import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), (predictions, residuals)  # a tuple, not the dict
