"""09_autodiff's harnesses (see child/harnesses.py): the grader's own functions handed to the student's,
chosen by name, and the function hessian returns, called.

Found by name (child/harnesses_<assignment>.py) and run next to the student's code, in the sandbox
child and in the student package; they decide nothing: the suite compares what comes back with
references it computes itself.
"""

from __future__ import annotations

from typing import Callable

from autograder.child.harness_types import Harness, jitted_else_as_is


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
    """student_function(FUNCTIONS[f_name], *rest), with f_name a string: the grader's own f, chosen by name.

    Called on values, it runs under jax.jit where it can be traced (jitted_else_as_is): a derivative of f
    taken eagerly runs op by op, a program per operation and shape (about 40 for 09's checks of these three
    functions), one program under jit. A function that cannot be traced with its other arguments traced (a
    Python loop over num_steps, say) runs as it is, and so does every call the kit itself traces (a jit
    check, a trace count): its program and its traces stay the student's function's own.
    """
    import jax

    functions = _functions_to_differentiate()

    def call(f_name, *rest):
        f = functions[f_name]
        if any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(rest)):
            return student_function(f, *rest)
        return jitted_else_as_is(lambda *arrays: student_function(f, *arrays), *rest)

    return call


def returned_function(hessian: Callable) -> Callable:
    """hessian(FUNCTIONS[f_name]) called on x: the function hessian returns, for the grader's f of that name."""
    functions = _functions_to_differentiate()

    def call(f_name, x):
        return jitted_else_as_is(hessian(functions[f_name]), x)

    return call


HARNESSES: dict[str, Harness] = {
    "with_f": Harness(frozenset({"directional_derivative", "vector_jacobian_product", "newton_minimize"}), with_f,
                      "{function}({named}, {rest})"),
    "returned_function": Harness(frozenset({"hessian"}), returned_function, "{function}({named})({rest})"),
}
