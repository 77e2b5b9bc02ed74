import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


@jax.jit
def train_step(params, x, y, learning_rate):
    (loss, _), grads = jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss


def fit(params, x, y, learning_rate, num_steps):
    def body(carry, _):
        return train_step(carry, x, y, learning_rate)

    return jax.lax.scan(body, params, None, length=num_steps)
