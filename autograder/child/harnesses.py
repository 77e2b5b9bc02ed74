"""The kit's own wrappers around a student's function: calls a request cannot express.

Only arrays, numbers and names cross into the student's process, so a check
that must hand the student's function another function (a loss for
per_example_grads, the grader's own f for 09's functions, chosen by name),
call the function a student's function returns (hessian(f)), pass one dict to two calls, or run the function as the
body of a `lax.scan` asks for `<function>@<harness>`: the executor finds the
student's `<function>` as usual and wraps it with the harness named here.
These run next to the student's code, like the executor, and decide nothing:
the parent compares what comes back with references it computes itself.
They used to live in the notebooks' setup cells, where a student could edit
them.
"""

from __future__ import annotations

import dataclasses
from typing import Callable


def _jitted_else_as_is(function: Callable, *args):
    """function(*args) under jax.jit, or as it is if it cannot be traced.

    For values only, where a harness computes a derivative of a derivative: eagerly, nested transformations
    run one operation at a time, and XLA compiled 60 small programs for one Hessian, most of a first check
    of 09 or 07. Under jax.jit, one. Whether the student's function can be traced is judged by a check of
    its own; one that cannot is called as it is, and its values judged the same way.
    """
    import jax

    try:
        return jax.jit(function)(*args)
    except Exception:
        return function(*args)


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
        return _jitted_else_as_is(lambda *arrays: per_example_grads(losses[loss_name], *arrays), params, xs, ys)

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


def _functions_to_differentiate() -> dict[str, Callable]:
    """09_autodiff: the functions the grader hands to hessian, directional_derivative,
    vector_jacobian_product and newton_minimize, by name. None of them holds an array of
    m·n elements of its own, so one in the program is the student's."""
    import jax
    import jax.numpy as jnp

    # scalar functions of a 1-D x (hessian)
    def quadratic_form(x):  # 0.5 x^T A x with A[i, j] = 1 / (1 + |i - j|)
        index = jnp.arange(x.shape[0])
        a = 1.0 / (1.0 + jnp.abs(index[:, None] - index[None, :]).astype(x.dtype))
        return 0.5 * x @ (a @ x)

    def log_sum_exp(x):
        return jax.nn.logsumexp(x)

    def rosenbrock(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

    # R^n -> R^m (directional_derivative, vector_jacobian_product)
    def sin_products(x):  # m = n - 1
        return jnp.sin(x[1:]) * x[:-1]

    def pair_tanh(x):  # n even, m = n / 2
        return jnp.tanh(x[::2] * x[1::2]) + x[1::2]

    def exp_shift(x):  # m = n - 2
        return jnp.exp(0.3 * x[2:]) - x[:-2] ** 2

    # scalar functions of a scalar, convex (newton_minimize). The constants change no derivative, but make
    # the rounding error of finite differences in float32 (about eps * |f| / h**2) far larger than the tolerance.
    def quartic(x):
        return x ** 4 / 4 + x ** 2 - 3 * x + 1.0e4

    def exp_pair(x):
        return jnp.exp(0.5 * x) + jnp.exp(-x) + 5.0e3

    def softplus_quadratic(x):
        return jax.nn.softplus(x) + 0.5 * (x - 2.0) ** 2 + 8.0e3

    functions = (quadratic_form, log_sum_exp, rosenbrock, sin_products, pair_tanh, exp_shift, quartic, exp_pair,
                 softplus_quadratic)
    return {f.__name__: f for f in functions}


def with_f(student_function: Callable) -> Callable:
    """student_function(FUNCTIONS[f_name], *rest), with f_name a string: the grader's own f, chosen by name."""
    functions = _functions_to_differentiate()

    def call(f_name, *rest):
        return student_function(functions[f_name], *rest)

    return call


def returned_function(hessian: Callable) -> Callable:
    """hessian(FUNCTIONS[f_name]) called on x: the function hessian returns, for the grader's f of that name."""
    functions = _functions_to_differentiate()

    def call(f_name, x):
        return _jitted_else_as_is(hessian(functions[f_name]), x)

    return call


@dataclasses.dataclass(frozen=True)
class Harness:
    """A wrapper the kit puts around a student's function, and how feedback shows a call made through it.

    `shown` is the call as the student would write it, a format string over `function` (the student's
    function), `named` (the first argument, the name of a kit function the harness hands on), `rest`
    (the other arguments, described by dtype and shape) and `arguments` (all of them, described). So no
    feedback names `function@harness`, which no student can define or call.
    """

    wraps: frozenset[str]
    build: Callable[[Callable], Callable]
    shown: str


HARNESSES: dict[str, Harness] = {
    "with_loss": Harness(frozenset({"per_example_grads"}), with_loss, "{function}({named}_loss, {rest})"),
    "twice": Harness(frozenset({"running_stats_update"}), twice, "{function}({arguments})"),
    "as_scan_body": Harness(frozenset({"running_stats_update"}), as_scan_body,
                            ('lax.scan(lambda stats, x: ({function}(stats, x), None), '
                             '{{"count": 0., "mean": 0., "m2": 0.}}, {arguments})')),
    "with_f": Harness(frozenset({"directional_derivative", "vector_jacobian_product", "newton_minimize"}), with_f,
                      "{function}({named}, {rest})"),
    "returned_function": Harness(frozenset({"hessian"}), returned_function, "{function}({named})({rest})"),
}


def wrap(harness: str, function: str, student_function: Callable) -> Callable:
    """`student_function` (the student's `function`) inside `harness`; KeyError for a harness it has none of."""
    declared = HARNESSES[harness]
    if function not in declared.wraps:
        raise KeyError(f"{harness} wraps {', '.join(sorted(declared.wraps))}, not {function}")
    return declared.build(student_function)
