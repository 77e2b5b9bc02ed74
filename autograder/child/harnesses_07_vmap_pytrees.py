"""07_vmap_pytrees's harnesses (see child/harnesses.py): per_example_grads handed a loss of the kit's,
chosen by name.

Found by name (child/harnesses_<assignment>.py) and run next to the student's code, in the sandbox
child and in the student package; they decide nothing: the suite compares what comes back with
references it computes itself.
"""

from __future__ import annotations

from typing import Callable

from autograder.child.harness_types import Harness, jitted_else_as_is


def _losses() -> dict[str, Callable]:
    """07_vmap_pytrees: the losses of one example that per_example_grads is checked with."""
    import jax
    import jax.numpy as jnp

    def squared_error(params, x, y):
        return (x @ params["w"] + params["b"] - y) ** 2

    def logistic(params, x, y):  # y is -1 or +1
        return jax.nn.softplus(-y * (x @ params["w"] + params["b"]))

    def mlp_squared_error(params, x, y):  # params: a list of {"weights", "biases"} dicts
        *hidden_layers, last = params
        h = x
        for hidden in hidden_layers:
            h = jnp.tanh(h @ hidden["weights"] + hidden["biases"])
        return jnp.sum((h @ last["weights"] + last["biases"] - y) ** 2)

    def nested_log_cosh(params, x, y):  # params: {"encoder": (kernel, bias), "head": {"w", "scale"}}
        kernel, bias = params["encoder"]
        z = jnp.tanh(x @ kernel + bias) @ params["head"]["w"] * params["head"]["scale"]
        return jnp.log(jnp.cosh(z - y))

    return {f.__name__: f for f in (squared_error, logistic, mlp_squared_error, nested_log_cosh)}


def with_loss(per_example_grads: Callable) -> Callable:
    """per_example_grads(LOSSES[loss_name], params, xs, ys), with loss_name a string."""
    losses = _losses()

    def call(loss_name, params, xs, ys):
        return jitted_else_as_is(lambda *arrays: per_example_grads(losses[loss_name], *arrays), params, xs, ys)

    return call


HARNESSES: dict[str, Harness] = {
    "with_loss": Harness(frozenset({"per_example_grads"}), with_loss, "{function}({named}_loss, {rest})"),
}
