"""07_vmap_pytrees: `jax.vmap` with `in_axes`, and functions of whole pytrees.

References are computed here in float64 NumPy from the same float32 inputs.
Tolerances (docs/curriculum.md): rtol 1e-5, atol 1e-5, except pairwise_distances
(atol 1e-3). Every structure check ("no Python loop", "program size") also
compares the jitted program's values, so a wrong function earns nothing there.

Sizes come from `_sizes`: drawn from the hidden seed once per run and shared
by a function's checks, because every new shape is a new compilation.

per_example_grads takes a loss function, but only arrays, numbers and
strings cross into the student's process. So its checks call
`per_example_grads@with_loss(loss_name, params, xs, ys)`: the kit's harness
(autograder/child/harnesses.py) passes its loss of that name on to the
student's per_example_grads. `_PER_EXAMPLE_GRADIENTS` below are the same
losses' gradients, derived by hand.
"""

import itertools

import jax
import numpy as np

from autograder.suites.api import (
    Mistake,
    advice_when_raised,
    assert_close,
    assert_no_host_callbacks,
    assert_not_unrolled,
    assert_same_structure,
    comparing_values,
    describe_call,
    expect_output,
    fail,
    graded,
    relation_hint,
    sizes_for,
    text,
)

F32 = np.float32
RTOL, ATOL = 1e-5, 1e-5
DISTANCE_ATOL = 1e-3
EQUAL_ROWS = 40  # rows of xs that also appear in ys, in pairwise_distances' equal-rows check
# The kit's harness that hands per_example_grads a loss of its own by name (autograder/child/harnesses.py);
# feedback shows the call as the harness declares it: per_example_grads(squared_error_loss, ...).
HARNESS = "per_example_grads@with_loss"
# The two sizes of the program-size checks (rows, batch), drawn per run from the hidden seed
# (`_program_sizes`): larger than every other dimension of their programs (at most 29), so that no
# shape-derived constant of a correct program coincides with another one at one size only (XLA
# keeps one copy of equal constants, and the operation count would differ by one); the large one
# far above the most operations of one kind any correct program holds (8: assert_not_unrolled).
PROGRAM_SIZES_SMALL, PROGRAM_SIZES_LARGE = (30, 40), (64, 129)


def _sizes(seed, function):
    """A generator for `function`'s sizes: hidden (from the run's seed), the same in each of its checks,
    from a small fixed set across seeds (pytest_plugin.SHAPE_SETS)."""
    return sizes_for(seed, f"07_vmap_pytrees.{function}")


def _program_sizes(rng):
    """The small and the large size of a program-size check, new with every run's seed."""
    return int(rng.integers(*PROGRAM_SIZES_SMALL)), int(rng.integers(*PROGRAM_SIZES_LARGE))


def _fix(function, what):
    return text(f"07_vmap_pytrees.{function}.{what}")


def _jitted_program(submission, function, args, expected, *, hint, static_argnums=(), atol=ATOL):
    """The facts of `function`'s traced program, after checking that the program computes `expected`."""
    facts = submission.trace(function, args, static_argnums=static_argnums)
    assert_no_host_callbacks(facts, function=function)
    expect_output(submission, function, args, expected, mode="jit", static_argnums=static_argnums,
                  check_dtype=True, rtol=RTOL, atol=atol, hint=hint)
    return facts


def _normal(rng, shape, scale=1.0):
    return np.asarray(rng.standard_normal(shape) * scale, dtype=F32)


# --- pairwise_distances ------------------------------------------------------------

def _distances(xs, ys):
    difference = xs.astype(np.float64)[:, None, :] - ys.astype(np.float64)[None, :, :]
    return np.sqrt((difference ** 2).sum(-1)).astype(F32)


PAIRWISE_DISTANCES_MISTAKES = (
    Mistake("07_vmap_pytrees.pairwise_distances.mistake.squared", lambda xs, ys: np.square(_distances(xs, ys))),
    Mistake("07_vmap_pytrees.pairwise_distances.mistake.transposed", lambda xs, ys: _distances(ys, xs)),
)


def _point_sizes(seed):
    """(n, m, d) with n != m, all below the row counts of the program-size check (PROGRAM_SIZES_SMALL)."""
    sizes = _sizes(seed, "pairwise_distances")
    n, m = (int(k) for k in sizes.choice(np.arange(4, 30), 2, replace=False))
    return n, m, int(sizes.integers(4, 9))


@graded("pairwise_distances", "correct")
def test_pairwise_distances_correct(submission, rng, seed):
    n, m, d = _point_sizes(seed)
    xs, ys = _normal(rng, (n, d), 2.0), _normal(rng, (m, d), 2.0)
    expect_output(submission, "pairwise_distances", (xs, ys), _distances(xs, ys), check_dtype=True,
                  rtol=RTOL, atol=DISTANCE_ATOL, hint=_fix("pairwise_distances", "values"),
                  mistakes=PAIRWISE_DISTANCES_MISTAKES)


@graded("pairwise_distances", "equal rows give 0, not NaN")
def test_pairwise_distances_equal_rows(submission, rng, seed):
    """Every row of xs appears in ys (shuffled, among other rows): those entries are exactly 0.

    Computing through |x|^2 + |y|^2 - 2 x.y leaves, for an equal pair with
    values of size 3, a rounding error of about 1e-6 * |x|^2 of either sign,
    whose square root is NaN or above 1e-3 for about one pair in five. With 40
    equal pairs that shows in practically every draw.
    """
    _, m, d = _point_sizes(seed)
    xs = _normal(rng, (EQUAL_ROWS, d), 3.0)
    ys = rng.permutation(np.concatenate([xs, _normal(rng, (m, d), 3.0)]))
    expected = _distances(xs, ys)
    expect_output(submission, "pairwise_distances", (xs, ys), expected, check_dtype=True,
                  rtol=RTOL, atol=DISTANCE_ATOL, hint=_equal_rows_hint(expected), mistakes=PAIRWISE_DISTANCES_MISTAKES)


def _equal_rows_hint(expected):
    """The equal-rows advice, only when the output shows its symptom: NaN, or not 0, where rows are equal."""
    def hint(actual):
        got, equal = np.asarray(actual), expected == 0
        if got.shape != expected.shape or not got.dtype.kind == "f":
            return None
        at_equal = got[equal]
        if np.isnan(at_equal).any() or (np.abs(at_equal) > DISTANCE_ATOL).any():
            return _fix("pairwise_distances", "equal_rows")
        return None
    return hint


@graded("pairwise_distances", "jittable")
def test_pairwise_distances_jittable(submission, rng, seed):
    n, m, d = _point_sizes(seed)
    xs, ys = _normal(rng, (n, d), 2.0), _normal(rng, (m, d), 2.0)
    _jitted_program(submission, "pairwise_distances", (xs, ys), _distances(xs, ys),
                    hint=_fix("pairwise_distances", "values"), atol=DISTANCE_ATOL)


@graded("pairwise_distances", "no Python loop over rows")
def test_pairwise_distances_not_unrolled(submission, rng, seed):
    _, m, d = _point_sizes(seed)
    n_small, n_large = _program_sizes(rng)
    ys = _normal(rng, (m, d), 2.0)
    facts = []
    for n in (n_small, n_large):
        xs = _normal(rng, (n, d), 2.0)
        facts.append(_jitted_program(submission, "pairwise_distances", (xs, ys), _distances(xs, ys),
                                     hint=_fix("pairwise_distances", "values"), atol=DISTANCE_ATOL))
    assert_not_unrolled(*facts, function="pairwise_distances", n_small=n_small, n_large=n_large,
                        fix=_fix("pairwise_distances", "unrolled_fix"))


# --- batched_predict -----------------------------------------------------------------

def _layers(rng, widths):
    """06's layout: one dict per layer, weights scaled so activations stay of size 1."""
    return [{"weights": _normal(rng, (n_in, n_out), 1 / np.sqrt(n_in)), "biases": _normal(rng, (n_out,), 0.5)}
            for n_in, n_out in itertools.pairwise(widths)]


def _relu(h):
    return np.maximum(h, 0.0)


def _predict(params, xs, *, relu_last=False, hidden=_relu):
    h = xs.astype(np.float64)
    for layer in params[:-1]:
        h = hidden(h @ layer["weights"] + layer["biases"])
    out = h @ params[-1]["weights"] + params[-1]["biases"]
    return (np.maximum(out, 0.0) if relu_last else out).astype(F32)


BATCHED_PREDICT_MISTAKES = (
    Mistake("07_vmap_pytrees.batched_predict.mistake.relu_on_last",
            lambda params, xs: _predict(params, xs, relu_last=True)),
    # tanh in the hidden layers: the outputs mix the hidden values linearly, so no relation between the output
    # values tells it; the network computed with tanh does.
    Mistake("07_vmap_pytrees.batched_predict.mistake.tanh_hidden",
            lambda params, xs: _predict(params, xs, hidden=np.tanh)),
)


def _network_sizes(seed):
    """Widths w0..w4 (2 to 9) and a batch size (10 to 40): no width equals the batch size."""
    sizes = _sizes(seed, "batched_predict")
    return [int(w) for w in sizes.integers(2, 10, 5)], int(sizes.integers(10, 41))


def _network(rng, widths, num_layers):
    """Params with `num_layers` layers: the first widths, then the output width."""
    return _layers(rng, widths[:num_layers] + widths[-1:])


def _examples(rng, params, batch):
    """Inputs whose outputs include clearly negative entries, so a relu on the last layer shows."""
    for _ in range(100):
        xs = _normal(rng, (batch, params[0]["weights"].shape[0]), 1.5)
        if _predict(params, xs).min() < -0.1:
            break
    return xs


def _expect_predictions(submission, params, xs, **options):
    expect_output(submission, "batched_predict", (params, xs), _predict(params, xs), check_dtype=True,
                  rtol=RTOL, atol=ATOL, hint=_fix("batched_predict", "values"), mistakes=BATCHED_PREDICT_MISTAKES,
                  **options)


@graded("batched_predict", "correct for 1 to 4 layers")
def test_batched_predict_correct(submission, rng, seed, sizes):
    widths, batch = _network_sizes(seed)
    for num_layers in (4, int(sizes.integers(2, 4)), 1):
        params = _network(rng, widths, num_layers)
        _expect_predictions(submission, params, _examples(rng, params, batch))


@graded("batched_predict", "batch of one")
def test_batched_predict_batch_of_one(submission, rng, seed):
    widths, _ = _network_sizes(seed)
    params = _network(rng, widths, 2)
    xs = _examples(rng, params, 1)
    expected = _predict(params, xs)
    actual = submission.call("batched_predict", params, xs)
    call = describe_call("batched_predict", (params, xs), {})
    if isinstance(actual, np.ndarray) and actual.shape != expected.shape:
        raise fail(text("check.wrong_shape", call=call, actual=actual.shape, expected=expected.shape),
                   advice=_fix("batched_predict", "batch_of_one"))
    with comparing_values(hint=_fix("batched_predict", "values")):
        assert_close(actual, expected, call=call, rtol=RTOL, atol=ATOL, check_dtype=True)


@graded("batched_predict", "jittable")
def test_batched_predict_jittable(submission, rng, seed):
    widths, batch = _network_sizes(seed)
    params = _network(rng, widths, 3)
    xs = _examples(rng, params, batch)
    _jitted_program(submission, "batched_predict", (params, xs), _predict(params, xs),
                    hint=_fix("batched_predict", "values"))


@graded("batched_predict", "program size independent of the batch size")
def test_batched_predict_not_unrolled(submission, rng, seed):
    widths, _ = _network_sizes(seed)
    n_small, n_large = _program_sizes(rng)
    params = _network(rng, widths, 3)
    facts = []
    for batch in (n_small, n_large):
        xs = _examples(rng, params, batch)
        facts.append(_jitted_program(submission, "batched_predict", (params, xs), _predict(params, xs),
                                     hint=_fix("batched_predict", "values")))
    assert_not_unrolled(*facts, function="batched_predict", n_small=n_small, n_large=n_large,
                        fix=_fix("batched_predict", "unrolled_fix"))


# --- per_example_grads -----------------------------------------------------------------
# The gradient of each of the harness's losses (child_harnesses._losses) for every
# example, with respect to params: leaves with a leading batch axis.

def _linear(params, xs):
    return xs.astype(np.float64) @ params["w"] + params["b"]


def _squared_error_grads(params, xs, ys):
    """loss = (x @ w + b - y) ** 2."""
    slope = 2 * (_linear(params, xs) - ys)
    return {"w": slope[:, None] * xs, "b": slope}


def _logistic_grads(params, xs, ys):
    """loss = softplus(-y * (x @ w + b)), y in {-1, +1}."""
    slope = -ys / (1 + np.exp(ys * _linear(params, xs)))
    return {"w": slope[:, None] * xs, "b": slope}


def _mlp_squared_error_grads(params, xs, ys):
    """loss = sum((mlp(x) - y) ** 2), tanh on every layer but the last; backpropagation per example."""
    hidden = [xs.astype(np.float64)]
    for layer in params[:-1]:
        hidden.append(np.tanh(hidden[-1] @ layer["weights"] + layer["biases"]))
    delta = 2 * (hidden[-1] @ params[-1]["weights"] + params[-1]["biases"] - ys)
    grads = [None] * len(params)
    for i in reversed(range(len(params))):
        grads[i] = {"weights": np.einsum("bi,bo->bio", hidden[i], delta), "biases": delta}
        delta = (delta @ params[i]["weights"].T) * (1 - hidden[i] ** 2)
    return grads


def _nested_log_cosh_grads(params, xs, ys):
    """loss = log(cosh(tanh(x @ kernel + bias) @ w * scale - y));
    params = {"encoder": (kernel, bias), "head": {"w", "scale"}}."""
    kernel, bias = params["encoder"]
    w, scale = params["head"]["w"].astype(np.float64), float(params["head"]["scale"])
    features = np.tanh(xs.astype(np.float64) @ kernel + bias)
    slope = np.tanh(features @ w * scale - ys)
    pre_activation = slope[:, None] * scale * w * (1 - features ** 2)
    return {"encoder": (np.einsum("bd,bh->bdh", xs, pre_activation), pre_activation),
            "head": {"w": slope[:, None] * scale * features, "scale": slope * (features @ w)}}


_PER_EXAMPLE_GRADIENTS = {
    "squared_error": _squared_error_grads,
    "logistic": _logistic_grads,
    "mlp_squared_error": _mlp_squared_error_grads,
    "nested_log_cosh": _nested_log_cosh_grads,
}


def _as_float32(tree):
    return jax.tree.map(lambda leaf: np.asarray(leaf, dtype=F32), tree)


def _loss_sizes(seed):
    """(d, hidden, output, batch): input, hidden and output widths, and a batch size."""
    sizes = _sizes(seed, "per_example_grads")
    return int(sizes.integers(2, 9)), int(sizes.integers(2, 7)), int(sizes.integers(2, 5)), int(sizes.integers(10, 31))


def _loss_problem(rng, loss_name, seed, batch=None):
    """(params, xs, ys) for the harness's loss `loss_name`."""
    d, hidden, output, default_batch = _loss_sizes(seed)
    batch = batch or default_batch
    xs = _normal(rng, (batch, d))
    if loss_name in ("squared_error", "logistic"):
        params = {"w": _normal(rng, (d,), 0.7), "b": np.asarray(rng.standard_normal(), F32)}
        ys = _normal(rng, (batch,)) if loss_name == "squared_error" else rng.choice([-1.0, 1.0], batch).astype(F32)
    elif loss_name == "mlp_squared_error":
        params, ys = _layers(rng, [d, hidden, hidden, output]), _normal(rng, (batch, output))
    else:
        params = {"encoder": (_normal(rng, (d, hidden), 1 / np.sqrt(d)), _normal(rng, (hidden,), 0.5)),
                  "head": {"w": _normal(rng, (hidden,)), "scale": np.asarray(rng.uniform(0.5, 1.5), F32)}}
        ys = _normal(rng, (batch,), 0.5)
    return params, xs, ys


def _check_one_gradient_per_example(actual, params, batch, call):
    """A result shaped like params itself (no batch axis) is the gradient of one loss over the batch."""
    try:
        assert_same_structure(actual, params, call=call)
    except AssertionError:
        return
    got = [np.shape(leaf) for leaf in jax.tree.leaves(actual)]
    if got and got == [np.shape(leaf) for leaf in jax.tree.leaves(params)]:
        raise AssertionError(text("07_vmap_pytrees.per_example_grads.one_gradient", call=call, batch=batch))


def _expect_per_example_grads(submission, loss_name, params, xs, ys, *, mode="plain", hint=None):
    """The harness's result (plain or jitted with the loss static) equals the per-example gradients."""
    args = (loss_name, params, xs, ys)
    expected = _as_float32(_PER_EXAMPLE_GRADIENTS[loss_name](params, xs, ys))
    call = describe_call(HARNESS, args, {})
    with advice_when_raised(_fix("per_example_grads", "values")):
        facts = None
        if mode == "jit":
            facts = submission.trace(HARNESS, args, static_argnums=(0,))
            assert_no_host_callbacks(facts, function="per_example_grads")
            call = f"jit({call})"
        actual = submission.call_with(HARNESS, args, mode=mode, static_argnums=(0,) if mode == "jit" else ())
    _check_one_gradient_per_example(actual, params, len(xs), call)
    # How wrong leaves relate to the right ones (a gradient scaled by the batch size, of the other sign), said
    # before the exercise's hint; only where the structures agree, which the comparison checks first.
    same_structure = jax.tree.structure(actual) == jax.tree.structure(expected)
    related = relation_hint(jax.tree.leaves(actual), jax.tree.leaves(expected), [xs]) if same_structure else None
    with comparing_values(hint=hint or _fix("per_example_grads", "values")), comparing_values(hint=related):
        assert_close(actual, expected, call=call, rtol=RTOL, atol=ATOL, check_dtype=True)
    return facts


@graded("per_example_grads", "correct for the grader's loss functions")
def test_per_example_grads_correct(submission, rng, seed):
    for loss_name in ("squared_error", "logistic"):
        _expect_per_example_grads(submission, loss_name, *_loss_problem(rng, loss_name, seed))


@graded("per_example_grads", "params structure preserved")
def test_per_example_grads_structure(submission, rng, seed):
    for loss_name in ("mlp_squared_error", "nested_log_cosh"):
        _expect_per_example_grads(submission, loss_name, *_loss_problem(rng, loss_name, seed),
                                  hint=_fix("per_example_grads", "structure"))


@graded("per_example_grads", "jittable with loss_fn static")
def test_per_example_grads_jittable(submission, rng, seed):
    _expect_per_example_grads(submission, "logistic", *_loss_problem(rng, "logistic", seed), mode="jit")


@graded("per_example_grads", "program size independent of the batch size")
def test_per_example_grads_not_unrolled(submission, rng, seed):
    n_small, n_large = _program_sizes(rng)
    facts = [_expect_per_example_grads(submission, "squared_error",
                                       *_loss_problem(rng, "squared_error", seed, batch=batch), mode="jit")
             for batch in (n_small, n_large)]
    assert_not_unrolled(*facts, function="per_example_grads", n_small=n_small, n_large=n_large,
                        fix=_fix("per_example_grads", "unrolled_fix"))


# --- sgd_update --------------------------------------------------------------------

def _pytree_templates(seed):
    """Three parameter structures (nested dicts, lists, tuples, 0-d scalars) with hidden leaf shapes."""
    a, b, c = (int(k) for k in _sizes(seed, "sgd_update").integers(2, 7, 3))
    return [
        {"layers": [{"w": (a, b), "b": (b,)}, {"w": (b, c), "b": (c,)}], "scale": ()},
        ({"kernel": (a, b)}, [(), (c,)]),
        {"encoder": {"dense": {"w": (a,), "b": ()}}, "decoder": ((b, c), (c,)), "temperature": ()},
    ]


def _is_shape(node):
    return isinstance(node, tuple) and all(isinstance(k, int) for k in node)


def _fill(rng, template):
    """A float32 pytree of `template`'s structure, each shape tuple replaced by an array of that shape."""
    return jax.tree.map(lambda shape: _normal(rng, shape), template, is_leaf=_is_shape)


def _learning_rate(rng):
    return F32(round(float(rng.uniform(0.01, 0.5)), 4))


def _sgd(params, grads, learning_rate):
    return jax.tree.map(lambda p, g: np.asarray(p.astype(np.float64) - float(learning_rate) * g, dtype=F32),
                        params, grads)


def _update_args(rng, template):
    return _fill(rng, template), _fill(rng, template), _learning_rate(rng)


def _expect_updated_leaves(actual, expected, call, args=()):
    """The leaves of `actual`, in jax.tree.leaves order, equal those of `expected`: values and dtypes only;
    when they differ, how they relate (a step the other way from the params, say) is said first."""
    related = relation_hint(jax.tree.leaves(actual), jax.tree.leaves(expected), jax.tree.leaves(args))
    with comparing_values(hint=_fix("sgd_update", "values")), comparing_values(hint=related):
        assert_close(jax.tree.leaves(actual), jax.tree.leaves(expected), call=f"jax.tree.leaves({call})",
                     rtol=RTOL, atol=ATOL, check_dtype=True)


@graded("sgd_update", "correct on hidden pytrees")
def test_sgd_update_correct(submission, rng, seed):
    """Leaf values in order; the exact containers are the structure check's business."""
    for template in _pytree_templates(seed)[:2]:
        args = _update_args(rng, template)
        with advice_when_raised(_fix("sgd_update", "values")):
            actual = submission.call("sgd_update", *args)
        _expect_updated_leaves(actual, _sgd(*args), describe_call("sgd_update", args, {}), args)


@graded("sgd_update", "same tree structure and dtypes as params")
def test_sgd_update_structure(submission, rng, seed):
    for template in _pytree_templates(seed)[1:]:
        args = _update_args(rng, template)
        with advice_when_raised(_fix("sgd_update", "values")):
            expect_output(submission, "sgd_update", args, _sgd(*args), check_dtype=True, rtol=RTOL, atol=ATOL,
                          hint=_fix("sgd_update", "structure"))


@graded("sgd_update", "jittable with learning_rate traced")
def test_sgd_update_jittable(submission, rng, seed):
    """Leaf values of the jitted program; the exact containers are the structure check's business."""
    a, b, _ = (int(k) for k in _sizes(seed, "sgd_update").integers(2, 7, 3))
    args = _update_args(rng, {"w": (a, b), "b": (b,)})
    with advice_when_raised(_fix("sgd_update", "traced_rate")):
        facts = submission.trace("sgd_update", args)
        assert_no_host_callbacks(facts, function="sgd_update")
        actual = submission.call_with("sgd_update", args, mode="jit")
    _expect_updated_leaves(actual, _sgd(*args), f"jit({describe_call('sgd_update', args, {})})")
