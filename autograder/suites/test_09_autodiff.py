"""09_autodiff: `jax.jvp`, `jax.vjp`, `jacfwd`/`jacrev`, a Hessian, Newton's method and `jax.custom_jvp`.

References are derived by hand and computed here in float64 NumPy from the
same float32 inputs. Tolerances (docs/curriculum.md): rtol 1e-4, atol 1e-5.

Four of the functions take a function `f`, and the grader checks them with
its own (a quadratic form, log-sum-exp, Rosenbrock, ...), not only the
notebook's. Only arrays, numbers and names cross into the student's process,
so those checks call `<function>@with_f(f_name, ...)` or
`hessian@returned_function(f_name, x)`: the kit's harness
(autograder/child/harnesses.py) looks up its own function of that name and
hands it to the student's function. The parent chooses the function; no
code crosses.

Structure facts come from the exported program as the clean-room runner
parsed it: "no array of m·n elements" is its largest value
(`ProgramFacts.largest_value_elements`, every sub-program, inputs and
constants included), with m·n larger than every other size in the program.
safe_norm's gradient is computed by the runner from the derivative program
exported with it, never by the student's process. That safe_norm is a
custom-JVP function at its top cannot be read from StableHLO (the rule is
inlined), so it is the student's process's report, counted only where the
program's own gradient at 0 is finite: what the rule is for.
"""


import contextlib

import numpy as np

from autograder.suites.api import (
    Mistake,
    StudentCodeError,
    advice_when_raised,
    assert_all_finite,
    assert_close,
    assert_no_value_larger_than,
    assert_not_unrolled,
    describe_call,
    describe_grad_call,
    expect_jittable,
    expect_output,
    expect_trace_count,
    graded,
    joined,
    sizes_for,
    text,
    with_hint,
)

F32 = np.float32
RTOL, ATOL = 1e-4, 1e-5
WITH_F = "with_f"  # autograder/child/harnesses.py


def _sizes(seed, function):
    return sizes_for(seed, f"09_autodiff.{function}")


def _fix(function, what, **fields):
    return text(f"09_autodiff.{function}.{what}", **fields)


def _normal(rng, shape, scale=1.0):
    return np.asarray(rng.standard_normal(shape) * scale, dtype=F32)


def _harness(function):
    return "hessian@returned_function" if function == "hessian" else f"{function}@{WITH_F}"


def _expect_with_f(submission, function, f_name, rest, expected, *, mode="plain", static_rest=(), error_fix=None):
    """The student's function given the harness's `f_name`, plain or jitted (f static); the program's facts."""
    harness, args = _harness(function), (f_name, *rest)
    hint = _fix(function, "values")
    with _advice_when_raised(function, error_fix or _fix(function, "values")):
        if mode == "plain":
            expect_output(submission, harness, args, expected, check_dtype=True, rtol=RTOL, atol=ATOL, hint=hint)
            return None
        static = (0, *(1 + i for i in static_rest))
        return expect_jittable(submission, harness, args, expected, static_argnums=static, rtol=RTOL, atol=ATOL,
                               hint=hint)


# JAX's words when `jax.jvp` is given a tangent whose shape is not its primal's.
JVP_SHAPES_ERROR = "different primal and tangent shapes"


@contextlib.contextmanager
def _advice_when_raised(function, fix):
    """`advice_when_raised(fix)`; but vector_jacobian_product that pushes u through `jax.jvp` as a tangent of x
    (JAX's error names the two shapes: u has f's output's) is told that u @ J is reverse mode."""
    try:
        yield
    except StudentCodeError as error:
        message = error.error.message if error.error is not None else ""
        if function == "vector_jacobian_product" and JVP_SHAPES_ERROR in message:
            fix = _fix(function, "tangent_shape")
        with advice_when_raised(fix):
            raise


# --- hessian ---------------------------------------------------------------------------
# The harness's scalar functions of a 1-D x and their Hessians.

def _quadratic_form_hessian(x):
    index = np.arange(len(x))
    return 1.0 / (1.0 + np.abs(index[:, None] - index[None, :]))


def _log_sum_exp_hessian(x):
    p = np.exp(x - x.max())
    p /= p.sum()
    return np.diag(p) - np.outer(p, p)


def _rosenbrock_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        h[i + 1, i + 1] += 200
        h[i, i + 1] = h[i + 1, i] = -400 * x[i]
    return h


_HESSIANS = {"quadratic_form": _quadratic_form_hessian, "log_sum_exp": _log_sum_exp_hessian,
             "rosenbrock": _rosenbrock_hessian}


def _hessian_problem(rng, seed, f_name):
    n = int(_sizes(seed, "hessian").integers(3, 9))
    x = _normal(rng, (n,), 0.8)
    return (x,), _HESSIANS[f_name](x.astype(np.float64)).astype(F32)


def _returns_function_fix():
    return joined("\n", _fix("hessian", "returns_function"), _fix("hessian", "values"))


@graded("hessian", "correct for the grader's functions")
def test_hessian_correct(submission, rng, seed):
    for f_name in ("quadratic_form", "log_sum_exp", "rosenbrock"):
        rest, expected = _hessian_problem(rng, seed, f_name)
        _expect_with_f(submission, "hessian", f_name, rest, expected, error_fix=_returns_function_fix())


@graded("hessian", "the returned function is jittable")
def test_hessian_jittable(submission, rng, seed):
    rest, expected = _hessian_problem(rng, seed, "rosenbrock")
    _expect_with_f(submission, "hessian", "rosenbrock", rest, expected, mode="jit", error_fix=_returns_function_fix())


@graded("hessian", "shape (n, n) and symmetric")
def test_hessian_symmetric(submission, rng, seed):
    """The Hessian is (n, n) and equal to its transpose, to float32 rounding (forward over reverse
    computes the two halves differently)."""
    rest, expected = _hessian_problem(rng, seed, "log_sum_exp")
    args = ("log_sum_exp", *rest)
    with advice_when_raised(_returns_function_fix()):
        actual = expect_output(submission, "hessian@returned_function", args, expected, check_dtype=True, rtol=RTOL,
                               atol=ATOL, hint=_fix("hessian", "values"))
        assert_close(actual.T, actual, call=f"hessian(log_sum_exp){describe_call('', rest, {})}.T",
                     rtol=RTOL, atol=ATOL)


# --- directional_derivative and vector_jacobian_product ------------------------------------
# The harness's functions R^n -> R^m and their Jacobians (m x n).

def _sin_products_jacobian(x):
    """y_i = sin(x_{i+1}) * x_i, m = n - 1."""
    m = len(x) - 1
    j = np.zeros((m, len(x)))
    j[np.arange(m), np.arange(m)] = np.sin(x[1:])
    j[np.arange(m), np.arange(1, m + 1)] = np.cos(x[1:]) * x[:-1]
    return j


def _pair_tanh_jacobian(x):
    """y_i = tanh(x_{2i} * x_{2i+1}) + x_{2i+1}, m = n / 2."""
    even, odd = x[::2], x[1::2]
    slope = 1 - np.tanh(even * odd) ** 2
    m = len(even)
    j = np.zeros((m, len(x)))
    j[np.arange(m), 2 * np.arange(m)] = slope * odd
    j[np.arange(m), 2 * np.arange(m) + 1] = slope * even + 1
    return j


def _exp_shift_jacobian(x):
    """y_i = exp(0.3 x_{i+2}) - x_i^2, m = n - 2."""
    m = len(x) - 2
    j = np.zeros((m, len(x)))
    j[np.arange(m), np.arange(m)] = -2 * x[:-2]
    j[np.arange(m), np.arange(2, m + 2)] = 0.3 * np.exp(0.3 * x[2:])
    return j


_JACOBIANS = {"sin_products": _sin_products_jacobian, "pair_tanh": _pair_tanh_jacobian,
              "exp_shift": _exp_shift_jacobian}
_OUTPUT_SIZE = {"sin_products": lambda n: n - 1, "pair_tanh": lambda n: n // 2, "exp_shift": lambda n: n - 2}


def _vector_problem(rng, seed, function, f_name):
    """(x, w, J): w is v (n,) for directional_derivative, u (m,) for vector_jacobian_product. n is even
    and at least 8, so m·n is larger than n and m: the Jacobian is the only value of that size."""
    n = 2 * int(_sizes(seed, function).integers(4, 9))
    x = _normal(rng, (n,), 0.8)
    w = _normal(rng, (n if function == "directional_derivative" else _OUTPUT_SIZE[f_name](n),))
    return x, w, _JACOBIANS[f_name](x.astype(np.float64))


def _product(function, jacobian, w):
    return (jacobian @ w if function == "directional_derivative" else w @ jacobian).astype(F32)


def _expect_product(submission, function, rng, seed, f_name, mode="plain"):
    x, w, jacobian = _vector_problem(rng, seed, function, f_name)
    return _expect_with_f(submission, function, f_name, (x, w), _product(function, jacobian, w), mode=mode,
                          error_fix=_fix(function, "vector_output")), jacobian.shape


def _expect_no_jacobian(submission, function, rng, seed):
    facts, (m, n) = _expect_product(submission, function, rng, seed, "sin_products", mode="jit")
    assert_no_value_larger_than(facts, m * n - 1, function=function,
                                what=_fix(function, "jacobian", m=m, n=n, elements=m * n),
                                fix=_fix(function, "jacobian_fix"))


@graded("directional_derivative", "correct")
def test_directional_derivative_correct(submission, rng, seed):
    for f_name in ("sin_products", "pair_tanh", "exp_shift"):
        _expect_product(submission, "directional_derivative", rng, seed, f_name)


@graded("directional_derivative", "jittable with f static")
def test_directional_derivative_jittable(submission, rng, seed):
    _expect_product(submission, "directional_derivative", rng, seed, "pair_tanh", mode="jit")


@graded("directional_derivative", "no array of m·n elements (forward mode)")
def test_directional_derivative_no_jacobian(submission, rng, seed):
    _expect_no_jacobian(submission, "directional_derivative", rng, seed)


@graded("vector_jacobian_product", "correct")
def test_vector_jacobian_product_correct(submission, rng, seed):
    for f_name in ("sin_products", "pair_tanh", "exp_shift"):
        _expect_product(submission, "vector_jacobian_product", rng, seed, f_name)


@graded("vector_jacobian_product", "jittable with f static")
def test_vector_jacobian_product_jittable(submission, rng, seed):
    _expect_product(submission, "vector_jacobian_product", rng, seed, "pair_tanh", mode="jit")


@graded("vector_jacobian_product", "no array of m·n elements (reverse mode)")
def test_vector_jacobian_product_no_jacobian(submission, rng, seed):
    _expect_no_jacobian(submission, "vector_jacobian_product", rng, seed)


# --- newton_minimize ---------------------------------------------------------------------
# The harness's convex scalar functions: their first and second derivatives.

_DERIVATIVES = {
    "quartic": (lambda x: x ** 3 + 2 * x - 3, lambda x: 3 * x ** 2 + 2),
    "exp_pair": (lambda x: 0.5 * np.exp(0.5 * x) - np.exp(-x), lambda x: 0.25 * np.exp(0.5 * x) + np.exp(-x)),
    "softplus_quadratic": (lambda x: 1 / (1 + np.exp(-x)) + x - 2,
                           lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2 + 1),
}


def _newton(f_name, x0, num_steps):
    first, second = _DERIVATIVES[f_name]
    x = float(x0)
    for _ in range(num_steps):
        x -= first(x) / second(x)
    return np.asarray(x, dtype=F32)


def _start(rng):
    return np.asarray(rng.uniform(-2.5, 2.5), dtype=F32)


@graded("newton_minimize", "correct")
def test_newton_minimize_correct(submission, rng):
    """Few steps, where the iterate is still moving: a wrong second derivative shows at once."""
    for f_name, num_steps in (("quartic", 1), ("exp_pair", 2), ("softplus_quadratic", 3), ("quartic", 5)):
        x0 = _start(rng)
        _expect_with_f(submission, "newton_minimize", f_name, (x0, num_steps), _newton(f_name, x0, num_steps))


@graded("newton_minimize", "jittable with num_steps traced")
def test_newton_minimize_jittable(submission, rng):
    x0, num_steps = _start(rng), int(rng.integers(1, 5))
    _expect_with_f(submission, "newton_minimize", "exp_pair", (x0, np.int32(num_steps)),
                   _newton("exp_pair", x0, num_steps), mode="jit", error_fix=_fix("newton_minimize", "unrolled_fix"))


@graded("newton_minimize", "compiles once for several num_steps")
def test_newton_minimize_compiles_once(submission, rng):
    x0 = _start(rng)
    steps = [int(k) for k in rng.choice(np.arange(1, 8), 3, replace=False)]
    calls = [(("quartic", x0, np.int32(k)), {}) for k in steps]
    with advice_when_raised(_fix("newton_minimize", "unrolled_fix")):
        expect_trace_count(submission, f"newton_minimize@{WITH_F}", calls,
                           [_newton("quartic", x0, k) for k in steps], 1, static_argnums=(0,), rtol=RTOL, atol=ATOL,
                           call_sequence=_fix("newton_minimize", "calls", steps=", ".join(map(str, steps))),
                           fix=_fix("newton_minimize", "unrolled_fix"), hint=_fix("newton_minimize", "values"))


@graded("newton_minimize", "program size independent of num_steps")
def test_newton_minimize_not_unrolled(submission, rng):
    x0 = _start(rng)
    # num_steps as Python ints, drawn per run (from the run's hidden seed): a program cannot be tuned to them.
    # `many` far above the most operations of one kind a correct program holds (16: assert_not_unrolled),
    # so that an unrolled loop shows however it is padded.
    few, many = int(rng.integers(2, 4)), int(rng.integers(48, 65))
    facts = [_expect_with_f(submission, "newton_minimize", "softplus_quadratic", (x0, k),
                            _newton("softplus_quadratic", x0, k), mode="jit", static_rest=(1,),
                            error_fix=_fix("newton_minimize", "unrolled_fix"))
             for k in (few, many)]
    assert_not_unrolled(*facts, function="newton_minimize", n_small=few, n_large=many,
                        fix=_fix("newton_minimize", "unrolled_fix"))


# --- safe_norm ---------------------------------------------------------------------------

def _norm_input(rng, seed):
    return _normal(rng, (int(_sizes(seed, "safe_norm").integers(3, 12)),))


def _norm(x):
    return np.asarray(np.sqrt((x.astype(np.float64) ** 2).sum()), dtype=F32)


SAFE_NORM_MISTAKES = (
    Mistake("09_autodiff.safe_norm.mistake.squared",
            lambda x: np.asarray((x.astype(np.float64) ** 2).sum(), dtype=F32)),
)


def _norm_gradient(x):
    norm = np.sqrt((x.astype(np.float64) ** 2).sum())
    return (x / norm if norm > 0 else np.zeros_like(x)).astype(F32)


def _expect_program_gradient(submission, x):
    """jax.grad of safe_norm, computed by the runner from the program safe_norm exported with its
    derivative: finite, and x / norm(x) (0 at x = 0)."""
    _, gradient = submission.program_gradient("safe_norm", (x,))
    call = describe_grad_call("safe_norm", (x,))
    try:
        assert_all_finite(gradient, call=call)
        assert_close(gradient, _norm_gradient(x), call=call, rtol=RTOL, atol=ATOL)
    except AssertionError as error:
        raise with_hint(error, _fix('safe_norm', 'gradient')) from None


@graded("safe_norm", "correct")
def test_safe_norm_correct(submission, rng, seed):
    for x in (_norm_input(rng, seed), np.zeros(3, F32)):
        expect_output(submission, "safe_norm", (x,), _norm(x), check_dtype=True, rtol=RTOL, atol=ATOL,
                      hint=_fix("safe_norm", "values"), mistakes=SAFE_NORM_MISTAKES)


@graded("safe_norm", "gradient finite, 0 at x = 0")
def test_safe_norm_gradient(submission, rng, seed):
    x = _norm_input(rng, seed)
    for point in (x, np.zeros_like(x)):
        _expect_program_gradient(submission, point)


@graded("safe_norm", "jittable")
def test_safe_norm_jittable(submission, rng, seed):
    x = _norm_input(rng, seed)
    expect_jittable(submission, "safe_norm", (x,), _norm(x), rtol=RTOL, atol=ATOL, hint=_fix("safe_norm", "values"))


@graded("safe_norm", "uses jax.custom_jvp")
def test_safe_norm_uses_custom_jvp(submission, rng, seed):
    """Correct values from its program, a finite gradient at 0 from its program, and a custom-JVP function
    at the top of its jaxpr (the student's process's report; StableHLO keeps no trace of it)."""
    x = _norm_input(rng, seed)
    expect_jittable(submission, "safe_norm", (x,), _norm(x), rtol=RTOL, atol=ATOL, hint=_fix("safe_norm", "values"))
    _expect_program_gradient(submission, np.zeros_like(x))
    if "custom_jvp_call" not in submission.outermost_primitives("safe_norm", (x,)):
        raise AssertionError(_fix("safe_norm", "use_custom_jvp"))
