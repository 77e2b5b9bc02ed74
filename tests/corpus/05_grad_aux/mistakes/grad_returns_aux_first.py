import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


def grad_with_aux(params, x, y):
    grads, aux = jax.grad(loss_with_aux, has_aux=True)(params, x, y)
    return aux, grads  # the wrong order: jax.grad(..., has_aux=True) gives (grads, aux)
