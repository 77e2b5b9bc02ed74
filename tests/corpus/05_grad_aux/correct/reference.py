# The reference solution: jax.grad with has_aux, tree_map, a jitted step, a Python training loop.
import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    mse = jnp.mean(residuals ** 2)
    return mse, {"predictions": predictions, "residuals": residuals}


def grad_with_aux(params, x, y):
    return jax.grad(loss_with_aux, has_aux=True)(params, x, y)


@jax.jit
def train_step(params, x, y, learning_rate):
    (loss, aux), grads = jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)
    new_params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
    return new_params, loss


def fit(params, x, y, learning_rate, num_steps):
    losses = []
    for _ in range(num_steps):
        params, loss = train_step(params, x, y, learning_rate)
        losses.append(loss)
    return params, jnp.array(losses, dtype=jnp.float32)
