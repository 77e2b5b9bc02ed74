"""05_grad_aux: `jax.grad(..., has_aux=True)`, parameters as pytrees, a jitted training step.

Model: predictions = params["w"] * x + params["b"], params a dict of float32
scalars (sent as 0-d float32 arrays), x and y 1-D float32. References are
computed here in float64 from the same float32 inputs.

Tolerances: a float32 result carries a rounding error proportional to the
size of the terms it was computed from, not to its own size (a residual or a
gradient can be close to 0 while its terms are not). So besides rtol 1e-5,
every comparison allows an absolute error of 1e-5 times the magnitude of the
terms (`_loss_scale`, `_grad_scales`, the largest |w x| + |b| + |y|): about a
hundred float32 ulps, and still orders of magnitude below the error of any
real mistake.
"""

import contextlib
import functools

import numpy as np
import pytest

from autograder.suites.api import (
    CheckFailed,
    ErrorKind,
    Failure,
    StudentCodeError,
    assert_close,
    assert_no_host_callbacks,
    assert_same_shapes,
    assert_same_structure,
    assert_trace_count,
    comparing_values,
    describe_call,
    describe_structure,
    fail,
    failure_of,
    graded,
    relation_hint,
    sizes_for,
    text,
    what_happened,
    with_hint,
)

F32 = np.float32
REL = 1e-5  # float32 error allowed, relative to the magnitude of the terms
PARAM_KEYS = {"w", "b"}
AUX_KEYS = {"predictions", "residuals"}


# --- hidden inputs and references ------------------------------------------------

def _scalar(value) -> np.ndarray:
    """A 0-d float32 array: how a float32 scalar parameter is passed."""
    return np.asarray(value, dtype=F32)


def _params(rng, scale=1.5) -> dict:
    return {"w": _scalar(rng.uniform(-scale, scale)), "b": _scalar(rng.uniform(-scale, scale))}


@pytest.fixture
def n(seed) -> int:
    """The length of x and y in this run: hidden, and the same in every check of the run,
    so that JAX compiles each operation for one shape only (eager calls compile per shape);
    one of a small fixed set across seeds (pytest_plugin.SHAPE_SETS)."""
    return int(sizes_for(seed, "05_grad_aux.n").integers(16, 48))


def _data(rng, n):
    """x in [-1, 1), y on a random line plus noise: residuals of a random params are O(1)."""
    x = rng.uniform(-1.0, 1.0, n).astype(F32)
    y = (rng.uniform(-2, 2) * x + rng.uniform(-2, 2) + 0.5 * rng.standard_normal(n)).astype(F32)
    return x, y


def _seed_data(rng, n):
    """The seed's generate_linear_samples: x uniform in [0, 1), y = 1.3 x + 4.5 + 0.02 noise."""
    x = rng.random(n).astype(F32)
    y = (1.3 * x + 4.5 + 0.02 * rng.standard_normal(n)).astype(F32)
    return x, y


def _forward(params, x, y):
    """(predictions, residuals, magnitude of their terms), in float64."""
    w, b = float(params["w"]), float(params["b"])
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    predictions = w * x64 + b
    residuals = predictions - y64
    terms = np.abs(w * x64) + abs(b) + np.abs(y64)
    return predictions, residuals, terms


def _loss(params, x, y) -> float:
    _, residuals, _ = _forward(params, x, y)
    return float(np.mean(residuals ** 2))


def _grads(params, x, y) -> dict:
    _, residuals, _ = _forward(params, x, y)
    x64 = x.astype(np.float64)
    return {"w": np.mean(2 * residuals * x64), "b": np.mean(2 * residuals)}


def _grad_scales(params, x, y) -> dict:
    _, residuals, terms = _forward(params, x, y)
    size = 2 * (terms + np.abs(residuals))
    return {"w": float(np.mean(size * np.abs(x))), "b": float(np.mean(size))}


def _loss_scale(params, x, y) -> float:
    _, residuals, terms = _forward(params, x, y)
    return float(np.mean(2 * np.abs(residuals) * terms))


def _step(params, x, y, learning_rate) -> dict:
    grads = _grads(params, x, y)
    return {k: float(params[k]) - learning_rate * grads[k] for k in PARAM_KEYS}


def _fit(params, x, y, learning_rate, num_steps):
    """The reference recurrence in float64: (final params, losses before each update)."""
    current = {k: float(v) for k, v in params.items()}
    losses = []
    for _ in range(num_steps):
        losses.append(_loss(current, x, y))
        current = _step(current, x, y, learning_rate)
    return current, np.array(losses)


def _least_squares(x, y):
    design = np.column_stack([np.ones_like(x, dtype=np.float64), x.astype(np.float64)])
    (b, w), *_ = np.linalg.lstsq(design, y.astype(np.float64), rcond=None)
    return {"w": float(w), "b": float(b)}


# --- comparing -------------------------------------------------------------------

def _close(actual, expected, *, call, scale, hint_key, rtol=1e-5, related=None, mistake=None):
    """assert_close with rtol and an absolute error of REL times the terms' magnitude, plus a hint; with
    `related` (the arguments the value is related by: a start, the batch), how a wrong value relates to the
    expected one (value_relations) first; with `mistake` (the sentence of a known mistake the values show),
    that sentence first instead."""
    # A property check failing here was not checked: its values are wrong.
    with comparing_values(hint=text(hint_key)):
        try:
            assert_close(actual, np.asarray(expected, dtype=np.float64), call=call, rtol=rtol,
                         atol=REL * scale + 1e-6)
        except AssertionError as error:
            if mistake is not None:
                raise with_hint(error, mistake) from None
            if related is None:
                raise
            raise with_hint(error, relation_hint(actual, np.asarray(expected, dtype=F32), related)) from None


def _structure_error(actual, expected, call, hint_key) -> AssertionError:
    feedback = text("check.wrong_structure", call=call, actual=describe_structure(actual),
                    expected=describe_structure(expected))
    return fail(feedback, hint=text(hint_key))


def _is_dict_with(value, keys) -> bool:
    return isinstance(value, dict) and set(value) == keys


_SCALAR = np.zeros((), F32)
_PARAMS_SHAPE = {"w": _SCALAR, "b": _SCALAR}


def _aux_shape(n):
    return {"predictions": np.zeros(n, F32), "residuals": np.zeros(n, F32)}


def _jitted(submission, function, args):
    """What jax.jit(function) returns on `args`, after tracing it with every argument abstract.

    The jittable checks then compare these values like the correctness
    checks do: a function that jits but computes the wrong thing earns nothing.
    """
    facts = submission.trace(function, args)
    assert_no_host_callbacks(facts, function=function)
    return submission.call_with(function, args, mode="jit")


# --- loss_with_aux ---------------------------------------------------------------

def _loss_output(out, n, call):
    """(mse, aux) from loss_with_aux's output, or fail naming the expected structure."""
    expected = (_SCALAR, _aux_shape(n))
    if not (isinstance(out, tuple) and len(out) == 2 and _is_dict_with(out[1], AUX_KEYS)):
        raise _structure_error(out, expected, call, "05_grad_aux.loss_with_aux.structure")
    return out


def _expect_loss_with_aux(out, params, x, y, call):
    mse, aux = _loss_output(out, len(x), call)
    predictions, residuals, terms = _forward(params, x, y)
    hint = "05_grad_aux.loss_with_aux.values"
    _close(mse, _loss(params, x, y), call=f"{call}[0] (mse)", scale=_loss_scale(params, x, y), hint_key=hint,
           related=(x, y))
    _close(aux["predictions"], predictions, call=f"{call}[1]['predictions']", scale=terms.max(), hint_key=hint,
           related=(x, y))
    _close(aux["residuals"], residuals, call=f"{call}[1]['residuals']", scale=terms.max(), hint_key=hint,
           related=(x, y))


@graded("loss_with_aux", "correct values and structure")
def test_loss_with_aux_correct(submission, rng, n):
    for _ in range(2):
        params, (x, y) = _params(rng), _data(rng, n)
        call = describe_call("loss_with_aux", (params, x, y), {})
        _expect_loss_with_aux(submission.call("loss_with_aux", params, x, y), params, x, y, call)


@graded("loss_with_aux", "jittable")
def test_loss_with_aux_jittable(submission, rng, n):
    params, (x, y) = _params(rng), _data(rng, n)
    call = f"jit({describe_call('loss_with_aux', (params, x, y), {})})"
    _expect_loss_with_aux(_jitted(submission, "loss_with_aux", (params, x, y)), params, x, y, call)


# --- grad_with_aux ---------------------------------------------------------------

def _misplaced_parts_hint(out, n) -> str | None:
    """The hint for the usual wrong orders and nestings of (grads, aux), if `out` is one of them."""
    if not (isinstance(out, tuple) and len(out) == 2):
        return None
    first, second = out
    if _is_dict_with(first, AUX_KEYS) and _is_dict_with(second, PARAM_KEYS):
        return "05_grad_aux.grad_with_aux.swapped"
    if isinstance(first, tuple) and len(first) == 2 and _is_dict_with(second, PARAM_KEYS):
        return "05_grad_aux.grad_with_aux.value_and_grad"
    if isinstance(first, np.ndarray) and first.shape == (n,):
        return "05_grad_aux.grad_with_aux.wrong_argument"
    return None


def _grads_from(out, n, call) -> dict:
    """grads from grad_with_aux's output, or fail with the fix for the structure it has."""
    if isinstance(out, tuple) and len(out) == 2 and _is_dict_with(out[0], PARAM_KEYS):
        return out[0]
    hint = _misplaced_parts_hint(out, n) or "05_grad_aux.grad_with_aux.structure"
    raise _structure_error(out, (_PARAMS_SHAPE, _aux_shape(n)), call, hint)


def _expect_analytic_grads(out, params, x, y, call):
    grads = _grads_from(out, len(x), call)
    expected, scales = _grads(params, x, y), _grad_scales(params, x, y)
    for key in ("w", "b"):
        _close(grads[key], expected[key], call=f"{call}[0][{key!r}]", scale=scales[key],
               hint_key="05_grad_aux.grad_with_aux.values", related=(x, y))


@graded("grad_with_aux", "gradient matches the analytic formula")
def test_grad_with_aux_analytic(submission, rng, n):
    for _ in range(2):
        params, (x, y) = _params(rng), _data(rng, n)
        call = describe_call("grad_with_aux", (params, x, y), {})
        with _traced_to("grad_with_aux", "loss_with_aux", functools.partial(_loss_problem, submission, params, x, y)):
            _expect_analytic_grads(submission.call("grad_with_aux", params, x, y), params, x, y, call)


FD_STEP = 0.125  # the loss is quadratic in w and b: central differences are exact but for rounding


@graded("grad_with_aux", "gradient matches finite differences of loss_with_aux")
def test_grad_with_aux_finite_differences(submission, rng, n):
    """grads is the gradient of the student's own loss_with_aux.

    Central differences of loss_with_aux (called in the student's code, plain,
    with float32 inputs) in each parameter. The loss is quadratic in w and b,
    so the central difference is exact up to float32 rounding of the two
    losses (about 1e-6 for these sizes, 1e-5 after dividing by 2h = 0.25);
    the tolerance 1e-3 is 100 times that, and far below any wrong gradient.
    """
    params, (x, y) = _params(rng), _data(rng, n)
    call = describe_call("grad_with_aux", (params, x, y), {})
    grads = _grads_from(submission.call("grad_with_aux", params, x, y), len(x), call)
    for key in ("w", "b"):
        plus, minus = dict(params), dict(params)
        plus[key] = _scalar(float(params[key]) + FD_STEP)
        minus[key] = _scalar(float(params[key]) - FD_STEP)
        losses = []
        for shifted in (plus, minus):
            loss_call = describe_call("loss_with_aux", (shifted, x, y), {})
            mse, _ = _loss_output(submission.call("loss_with_aux", shifted, x, y), len(x), loss_call)
            losses.append(float(np.asarray(mse, dtype=np.float64)))
        difference = (losses[0] - losses[1]) / (float(plus[key]) - float(minus[key]))
        fd_call = text("05_grad_aux.grad_with_aux.fd_call", call=call, name=key, step=FD_STEP)
        try:
            assert_close(grads[key], np.float64(difference), call=fd_call, rtol=1e-3, atol=1e-3)
        except AssertionError as error:
            raise with_hint(error, text('05_grad_aux.grad_with_aux.finite_differences')) from None


def _expect_aux(out, params, x, y, call):
    if not (isinstance(out, tuple) and len(out) == 2 and _is_dict_with(out[1], AUX_KEYS)):
        hint = _misplaced_parts_hint(out, len(x))
        if hint == "05_grad_aux.grad_with_aux.wrong_argument":
            hint = None  # the gradient's business; here the aux is what is wrong
        raise _structure_error(out, (_PARAMS_SHAPE, _aux_shape(len(x))), call,
                               hint or "05_grad_aux.grad_with_aux.aux")
    predictions, residuals, terms = _forward(params, x, y)
    for key, expected in (("predictions", predictions), ("residuals", residuals)):
        _close(out[1][key], expected, call=f"{call}[1][{key!r}]", scale=terms.max(),
               hint_key="05_grad_aux.grad_with_aux.aux")


@graded("grad_with_aux", "aux correct")
def test_grad_with_aux_aux(submission, rng, n):
    params, (x, y) = _params(rng), _data(rng, n)
    call = describe_call("grad_with_aux", (params, x, y), {})
    with _traced_to("grad_with_aux", "loss_with_aux", functools.partial(_loss_problem, submission, params, x, y)):
        _expect_aux(submission.call("grad_with_aux", params, x, y), params, x, y, call)


@graded("grad_with_aux", "jittable")
def test_grad_with_aux_jittable(submission, rng, n):
    params, (x, y) = _params(rng), _data(rng, n)
    call = f"jit({describe_call('grad_with_aux', (params, x, y), {})})"
    out = _jitted(submission, "grad_with_aux", (params, x, y))
    with _traced_to("grad_with_aux", "loss_with_aux", functools.partial(_loss_problem, submission, params, x, y)):
        _expect_analytic_grads(out, params, x, y, call)
        _expect_aux(out, params, x, y, call)


# --- train_step ------------------------------------------------------------------

def _train_step_output(out, call):
    if not (isinstance(out, tuple) and len(out) == 2 and _is_dict_with(out[0], PARAM_KEYS)):
        raise _structure_error(out, (_PARAMS_SHAPE, _SCALAR), call, "05_grad_aux.train_step.structure")
    return out


def _learning_rate(rng) -> float:
    return round(float(rng.uniform(0.05, 0.3)), 4)


def _expect_new_params(out, args, call):
    params, x, y, learning_rate = args
    new_params, _ = _train_step_output(out, call)
    expected, scales = _step(params, x, y, learning_rate), _grad_scales(params, x, y)
    for key in ("w", "b"):
        _close(new_params[key], expected[key], call=f"{call}[0][{key!r}]",
               scale=abs(float(params[key])) + learning_rate * scales[key],
               hint_key="05_grad_aux.train_step.params", related=(np.asarray(params[key], dtype=F32), x, y),
               mistake=_leaf_unchanged(new_params[key], params[key]))


def _leaf_unchanged(new, old) -> str | None:
    """The known mistake of a leaf left out of the update: the new value is exactly the one passed in."""
    try:
        same = np.array_equal(np.asarray(new), np.asarray(old))
    except (TypeError, ValueError):
        return None
    return text("05_grad_aux.train_step.leaf_unchanged") if same else None


@graded("train_step", "jitted object")
def test_train_step_jitted(submission, rng, n):
    if not submission.is_jitted("train_step"):
        type_name = submission.describe("train_step").get("type_name")
        raise AssertionError(text("check.not_jitted", function="train_step", type_name=type_name))
    args = (_params(rng), *_data(rng, n), _learning_rate(rng))
    _expect_new_params(submission.call("train_step", *args), args, describe_call("train_step", args, {}))


@graded("train_step", "correct new params")
def test_train_step_new_params(submission, rng, n):
    for _ in range(2):
        args = (_params(rng), *_data(rng, n), _learning_rate(rng))
        _expect_new_params(submission.call("train_step", *args), args, describe_call("train_step", args, {}))


@graded("train_step", "loss at the old params")
def test_train_step_loss(submission, rng, n):
    for _ in range(2):
        params, (x, y), learning_rate = _params(rng), _data(rng, n), _learning_rate(rng)
        args = (params, x, y, learning_rate)
        call = describe_call("train_step", args, {})
        _, loss = _train_step_output(submission.call("train_step", *args), call)
        _close(loss, _loss(params, x, y), call=f"{call}[1]", scale=_loss_scale(params, x, y),
               hint_key="05_grad_aux.train_step.old_loss")


@graded("train_step", "traced once across a training run")
def test_train_step_traced_once(submission, rng, n):
    """Ten steps of a training run: each call gets the next params of the
    reference trajectory and a decaying learning rate (as with a schedule);
    x and y keep their shapes. The student's own jit object is counted (its
    cache cleared first); a plain function is counted under jax.jit."""
    params, (x, y) = _params(rng), _data(rng, n)
    learning_rate = _learning_rate(rng)
    calls = []
    current = {k: float(v) for k, v in params.items()}
    for step in range(10):
        rate = round(learning_rate / (1 + 0.1 * step), 6)
        calls.append((({k: _scalar(v) for k, v in current.items()}, x, y, rate), {}))
        current = _step(current, x, y, rate)
    report = submission.count_traces("train_step", calls)
    for (args, _), out in zip(calls, report.outputs, strict=True):
        _expect_new_params(out, args, describe_call("train_step", args, {}))
    assert_trace_count(report, 1, fix=text("05_grad_aux.train_step.retrace"),
                       call_sequence=text("05_grad_aux.train_step.run", steps=len(calls)))


# --- fit -------------------------------------------------------------------------

def _train_step_problem(submission, fit_args) -> str | None:
    """What is wrong with the student's train_step on fit's first step, on its own; None if nothing is."""
    params, x, y, learning_rate, _ = fit_args
    args = (params, x, y, learning_rate)
    try:
        _expect_new_params(submission.call("train_step", *args), args, describe_call("train_step", args, {}))
    except AssertionError as failure:  # a StudentCodeError too: train_step a stub, or raising
        return None if _absent(failure) else _first_sentence(failure)
    return None


def _first_sentence(failure: AssertionError) -> str:
    """The first line of what happened, without its closing period, to quote inside another sentence."""
    return what_happened(failure)


def _absent(failure: AssertionError) -> bool:
    """The function is not there at all (or not a function): then the other one cannot be using it."""
    error = getattr(failure, "error", None)
    return isinstance(failure, StudentCodeError) and (error is None or error.kind in _ABSENT)


_ABSENT = (ErrorKind.MISSING, ErrorKind.NOT_CALLABLE)


def _loss_problem(submission, params, x, y) -> str | None:
    """What is wrong with the student's loss_with_aux on these arguments, on its own; None if nothing is."""
    call = describe_call("loss_with_aux", (params, x, y), {})
    try:
        _expect_loss_with_aux(submission.call("loss_with_aux", params, x, y), params, x, y, call)
    except AssertionError as failure:
        return None if _absent(failure) else _first_sentence(failure)
    return None


@contextlib.contextmanager
def _traced_to(function, other, problem):
    """`function` is built on the student's `other` (the exercise says so). When `function` fails and
    `problem()` (`other` called on the same inputs) says that `other` fails on its own, say that and point
    to `other`'s feedback, rather than explain the failure as `function`'s own (a wrong structure from
    train_step breaks fit far from it)."""
    try:
        yield
    except AssertionError as failure:
        found = problem()
        if found is None:
            raise
        # What happened to `function`, with the pointer to `other` instead of its own advice and hints.
        happened = failure_of(failure)
        caused_by = text("check.caused_by", function=function, other=other, problem=found)
        raise CheckFailed(Failure(happened.detail, call=happened.call, advice=(caused_by,))) from None


def _traced_to_train_step(submission, fit_args):
    return _traced_to("fit", "train_step", lambda: _train_step_problem(submission, fit_args))


def _fit_output(out, num_steps, call):
    expected = (_PARAMS_SHAPE, np.zeros(num_steps, F32))
    try:
        assert_same_structure(out, expected, call=call)
    except AssertionError as error:
        raise with_hint(error, text('05_grad_aux.fit.values')) from None
    return out


def _expect_fit(out, args, call):
    """The same recurrence in float64. Gradient descent at these learning rates
    contracts, so float32 rounding does not grow along the run; rtol 1e-4 and
    1e-4 of the terms' magnitude leave a wide margin for float32 and still
    catch a loss taken one step late or a step not fed into the next."""
    params, x, y, learning_rate, num_steps = args
    final, losses = _fit_output(out, num_steps, call)
    expected_final, expected_losses = _fit(params, x, y, learning_rate, num_steps)
    scale = _loss_scale(params, x, y)
    _close(losses, expected_losses, call=f"{call}[1]", scale=10 * scale, rtol=1e-4,
           hint_key="05_grad_aux.fit.values", mistake=_losses_hint(losses, expected_losses, scale))
    for key in ("w", "b"):
        _close(final[key], expected_final[key], call=f"{call}[0][{key!r}]",
               scale=10 * (1 + abs(expected_final[key])), rtol=1e-4, hint_key="05_grad_aux.fit.values")


def _losses_hint(losses, expected_losses, scale) -> str | None:
    """The known mistakes of fit's losses: every step started again from the params passed in (every loss is
    the first one), or each loss taken after its update (every loss is the next one)."""
    got = np.asarray(losses, dtype=np.float64)
    if got.shape != expected_losses.shape or len(got) < 3:
        return None

    def close(a, b):
        return np.allclose(a, b, rtol=1e-4, atol=1e-3 * scale + 1e-6)

    if close(expected_losses[1:], expected_losses[:-1]):  # training does not move: neither can be told
        return None
    if close(got, expected_losses[0]):
        return text("05_grad_aux.fit.not_fed_back")
    if close(got[:-1], expected_losses[1:]):
        return text("05_grad_aux.fit.loss_after_update")
    return None


@graded("fit", "correct final params and losses")
def test_fit_correct(submission, rng, n):
    for _ in range(2):
        params, (x, y), learning_rate = _params(rng), _data(rng, n), _learning_rate(rng)
        args = (params, x, y, learning_rate, int(rng.integers(5, 25)))
        with _traced_to_train_step(submission, args):
            _expect_fit(submission.call("fit", *args), args, describe_call("fit", args, {}))


CONVERGE_STEPS, CONVERGE_RATE, CONVERGE_TOL = 500, 0.3, 1e-2


@graded("fit", "converges to least squares")
def test_fit_converges(submission, rng, n):
    """The seed's data (y = 1.3 x + 4.5 + 0.02 noise, x uniform in [0, 1)),
    500 steps at learning rate 0.3 from a random start. Data whose exact
    float64 recurrence would not be within 1e-3 of least squares (x values
    bunched together, so a slow direction) is redrawn, so the check never
    depends on an unlucky draw."""
    for _ in range(50):
        x, y = _seed_data(rng, n)
        params = _params(rng, scale=1.0)
        target = _least_squares(x, y)
        exact, _ = _fit(params, x, y, CONVERGE_RATE, CONVERGE_STEPS)
        if all(abs(exact[k] - target[k]) < 1e-3 for k in PARAM_KEYS):
            break
    args = (params, x, y, CONVERGE_RATE, CONVERGE_STEPS)
    call = describe_call("fit", args, {})
    with _traced_to_train_step(submission, args):
        out = submission.call("fit", *args)
    if not (isinstance(out, tuple) and len(out) == 2 and _is_dict_with(out[0], PARAM_KEYS)):
        raise _structure_error(out, (_PARAMS_SHAPE, np.zeros(CONVERGE_STEPS, F32)), call, "05_grad_aux.fit.values")
    final = out[0]  # only the final params matter here; the losses are the other check's business
    assert_same_shapes(final, _PARAMS_SHAPE, call=f"{call}[0]")
    got = {k: float(np.asarray(final[k], dtype=np.float64)) for k in PARAM_KEYS}
    if not all(abs(got[k] - target[k]) <= CONVERGE_TOL for k in PARAM_KEYS):  # NaN fails too
        feedback = text("05_grad_aux.fit.not_converged", call=call, w=got["w"], b=got["b"],
                                 w_ls=target["w"], b_ls=target["b"], tol=CONVERGE_TOL)
        raise fail(feedback, hint=text('05_grad_aux.fit.values'))


@graded("fit", "train_step traced once in total")
def test_fit_traces_train_step_once(submission, rng, n):
    """After the first fit call, later fit calls trace nothing at all.

    fit is plain Python around the jitted train_step, so it is called as it
    is and every jit trace during a call counts (count_all), whichever
    function is traced: a fresh `jax.jit(lambda ...)` per step or a jitted
    function defined inside fit per call is a new function to JAX and traces
    again. The first call is the uncounted warm-up: it traces train_step once,
    and may also trace JAX's own jitted helpers once for the new shapes (e.g.
    `jnp.append` per length), which says nothing about train_step. Then two
    more calls with new params values, the same x, y, learning rate and
    num_steps (so the same shapes everywhere, also for a fit jitted as a whole
    with num_steps static) must trace 0 times. JAX's eager dispatch of
    `lax.scan`/`lax.fori_loop` called outside jit is not a trace of the
    submission's functions and is not counted (see trace_counting).
    """
    (x, y), learning_rate = _data(rng, n), _learning_rate(rng)
    num_steps = int(rng.integers(15, 25))
    calls = [((_params(rng), x, y, learning_rate, num_steps), {}) for _ in range(3)]
    with _traced_to_train_step(submission, calls[0][0]):
        report = submission.count_traces("fit", calls[1:], warmup=calls[:1], count_all=True)
        for (args, _), out in zip(calls[1:], report.outputs, strict=True):
            _expect_fit(out, args, describe_call("fit", args, {}))
    assert_trace_count(report, 0, fix=text("05_grad_aux.fit.retrace"),
                       call_sequence=text("05_grad_aux.fit.calls", calls=len(calls) - 1,
                                                   num_steps=num_steps))
