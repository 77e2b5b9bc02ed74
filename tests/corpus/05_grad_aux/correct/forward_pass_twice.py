# The forward pass computed twice (allowed, not graded): a separate loss and aux, jax.grad of a
# scalar-only lambda plus a second call for aux, and a train_step that recomputes the old loss.
import jax
import jax.numpy as jnp


def _predict(params, x):
    return params["w"] * x + params["b"]


def loss_with_aux(params, x, y):
    mse = jnp.mean(jnp.square(_predict(params, x) - y))
    predictions = _predict(params, x)
    return mse, {"predictions": predictions, "residuals": predictions - y}


def grad_with_aux(params, x, y):
    grads = jax.grad(lambda p: loss_with_aux(p, x, y)[0])(params)
    _, aux = loss_with_aux(params, x, y)
    return grads, aux


@jax.jit
def train_step(params, x, y, learning_rate):
    grads, _ = grad_with_aux(params, x, y)
    loss, _ = loss_with_aux(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads), loss
