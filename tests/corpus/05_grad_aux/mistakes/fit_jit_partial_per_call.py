from functools import partial

import jax
import jax.numpy as jnp


def loss_with_aux(params, x, y):
    predictions = params["w"] * x + params["b"]
    residuals = predictions - y
    return jnp.mean(residuals ** 2), {"predictions": predictions, "residuals": residuals}


def step_fn(params, x, y, learning_rate):
    (loss, aux), grads = jax.value_and_grad(loss_with_aux, has_aux=True)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads), loss


train_step = jax.jit(step_fn)


def fit(params, x, y, learning_rate, num_steps):
    step = jax.jit(partial(step_fn, x=x, y=y, learning_rate=learning_rate))  # a new partial per call
    losses = []
    for _ in range(num_steps):
        params, loss = step(params)
        losses.append(loss)
    return params, jnp.array(losses)
