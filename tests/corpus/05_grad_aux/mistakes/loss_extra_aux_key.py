import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    mse = jnp.mean(residuals ** 2)
    return mse, {"predictions": predictions, "residuals": residuals, "mse": mse}  # one key too many
