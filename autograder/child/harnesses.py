"""The kit's own wrappers around a student's function: calls a request cannot express.

Only arrays, numbers and names cross into the student's process, so a check
that must hand the student's function another function (a loss for
per_example_grads), pass one dict to two calls, or run the function as the
body of a `lax.scan` asks for `<function>@<harness>`: the executor finds the
student's `<function>` as usual and wraps it with the harness named here.
These run next to the student's code, like the executor, and decide nothing:
the parent compares what comes back with references it computes itself.
They used to live in the notebooks' setup cells, where a student could edit
them.
"""

from __future__ import annotations

from typing import Callable


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
        return per_example_grads(losses[loss_name], params, xs, ys)

    return call


def twice(running_stats_update: Callable) -> Callable:
    """The same dict passed to two calls: both results, and the dict as it was after the first call."""
    import jax
    import jax.numpy as jnp

    def call(stats, x):
        first = jax.tree.map(jnp.asarray, running_stats_update(stats, x))  # a copy later calls cannot change
        after = dict(stats)
        second = running_stats_update(stats, x)
        return first, second, after

    return call


def as_scan_body(running_stats_update: Callable) -> Callable:
    """The stats after `lax.scan` over xs with the function as its body, from zero stats."""
    import jax.numpy as jnp
    from jax import lax

    def call(xs):
        zero = jnp.zeros((), xs.dtype)
        stats, _ = lax.scan(lambda stats, x: (running_stats_update(stats, x), None),
                            {"count": zero, "mean": zero, "m2": zero}, xs)
        return stats

    return call


# harness name -> (the student's function it wraps, the wrapper)
HARNESSES: dict[str, tuple[str, Callable[[Callable], Callable]]] = {
    "with_loss": ("per_example_grads", with_loss),
    "twice": ("running_stats_update", twice),
    "as_scan_body": ("running_stats_update", as_scan_body),
}


def wrap(harness: str, function: str, student_function: Callable) -> Callable:
    """`student_function` (the student's `function`) inside `harness`; KeyError for a harness it has none of."""
    wraps, build = HARNESSES[harness]
    if wraps != function:
        raise KeyError(f"{harness} wraps {wraps}, not {function}")
    return build(student_function)
