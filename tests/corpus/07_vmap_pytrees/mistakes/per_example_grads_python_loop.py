import jax
import jax.numpy as jnp


# The notebook's setup cell defines these; a .py submission carries its own copy.
def _grader_losses():
    def squared_error(params, x, y):
        return (x @ params["w"] + params["b"] - y) ** 2

    def logistic(params, x, y):  # y is -1 or +1
        return jax.nn.softplus(-y * (x @ params["w"] + params["b"]))

    def mlp_squared_error(params, x, y):  # params: a list of {"weights", "biases"} dicts
        h = x
        for layer in params[:-1]:
            h = jnp.tanh(h @ layer["weights"] + layer["biases"])
        return jnp.sum((h @ params[-1]["weights"] + params[-1]["biases"] - y) ** 2)

    def nested_log_cosh(params, x, y):  # params: {"encoder": (kernel, bias), "head": {"w", "scale"}}
        kernel, bias = params["encoder"]
        z = jnp.tanh(x @ kernel + bias) @ params["head"]["w"] * params["head"]["scale"]
        return jnp.log(jnp.cosh(z - y))

    return {f.__name__: f for f in (squared_error, logistic, mlp_squared_error, nested_log_cosh)}


GRADER_LOSSES = _grader_losses()


def grader_per_example_grads(loss_name, params, xs, ys):
    """per_example_grads(GRADER_LOSSES[loss_name], params, xs, ys): how the grader calls it."""
    return per_example_grads(GRADER_LOSSES[loss_name], params, xs, ys)



def per_example_grads(loss_fn, params, xs, ys):
    grads = [jax.grad(loss_fn)(params, x, y) for x, y in zip(xs, ys)]  # unrolled: one per example
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *grads)
