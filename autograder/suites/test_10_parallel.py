"""10_parallel: several devices: `jax.pmap`, `jax.sharding`, `jax.shard_map` and collectives.

Graded with 4 CPU devices and again with 2 (grading.toml [devices]): every
check runs once per count and scores only if it passes with both, so a
device count written into the code loses the points of what it breaks.
`submission.devices` is the grader's count. Which devices hold which rows
of a result is read from the arrays the student's function returned,
called as the student calls it (`expect_placement`); "jittable" and
whether a program holds a collective are read by the clean-room runner
from the program the function exported (`expect_jittable_on_devices`,
`assert_uses_collective`).
"""

import numpy as np

from autograder.suites.api import (
    Mistake,
    assert_not_unrolled,
    assert_uses_collective,
    expect_jittable,
    expect_jittable_on_devices,
    expect_output,
    expect_placement,
    graded,
    text,
)

F32 = np.float32


def _hint(function, what):
    return text(f"10_parallel.{function}.{what}")


def _normal(rng, shape):
    return rng.standard_normal(shape).astype(F32)


# --- convolve --------------------------------------------------------------------

def _convolve(x, w):
    """The seed's convolution: out[i] = x[i] w[0] + x[i+1] w[1] + x[i+2] w[2], in float64."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    return (x[:-2] * w[0] + x[1:-1] * w[1] + x[2:] * w[2]).astype(F32)


@graded("convolve", "correct")
def test_convolve_correct(submission, rng, sizes):
    x, w = _normal(rng, int(sizes.integers(5, 40))), _normal(rng, 3)
    expect_output(submission, "convolve", (x, w), _convolve(x, w), hint=_hint("convolve", "values"))


@graded("convolve", "jittable")
def test_convolve_jittable(submission, rng, sizes):
    x, w = _normal(rng, int(sizes.integers(5, 40))), _normal(rng, 3)
    expect_jittable(submission, "convolve", (x, w), _convolve(x, w), hint=_hint("convolve", "values"))


@graded("convolve", "no Python loop over n")
def test_convolve_not_unrolled(submission, rng):
    w = _normal(rng, 3)
    # Sizes drawn per run (from the run's hidden seed): a program cannot be tuned to them.
    n_small, n_large = int(rng.integers(4, 9)), int(rng.integers(32, 65))
    facts = []
    for n in (n_small, n_large):
        x = _normal(rng, n)
        facts.append(expect_jittable(submission, "convolve", (x, w), _convolve(x, w),
                                     hint=_hint("convolve", "values")))
    assert_not_unrolled(*facts, function="convolve", n_small=n_small, n_large=n_large,
                        fix=_hint("convolve", "unrolled_fix"))


# --- convolve_on_devices ---------------------------------------------------------

def _rows_inputs(submission, rng, sizes):
    d = submission.devices
    return _normal(rng, (d, int(sizes.integers(5, 24)))), _normal(rng, (d, 3))


def _convolve_on_devices(xs, ws):
    return np.stack([_convolve(x, w) for x, w in zip(xs, ws, strict=True)])


@graded("convolve_on_devices", "correct")
def test_convolve_on_devices_correct(submission, rng, sizes):
    xs, ws = _rows_inputs(submission, rng, sizes)
    expect_output(submission, "convolve_on_devices", (xs, ws), _convolve_on_devices(xs, ws),
                  hint=_hint("convolve_on_devices", "values"))


@graded("convolve_on_devices", "one row per device")
def test_convolve_on_devices_spread(submission, rng, sizes):
    xs, ws = _rows_inputs(submission, rng, sizes)
    expect_placement(submission, "convolve_on_devices", (xs, ws), _convolve_on_devices(xs, ws), spread="rows",
                     why=_hint("convolve_on_devices", "spread"), hint=_hint("convolve_on_devices", "values"))


# --- shard_rows ------------------------------------------------------------------

def _rows_of(submission, sizes):
    """A row count divisible by the device count: 1 to 3 rows per device."""
    return submission.devices * int(sizes.integers(1, 4))


@graded("shard_rows", "values unchanged")
def test_shard_rows_values(submission, rng, sizes):
    x = _normal(rng, (_rows_of(submission, sizes), int(sizes.integers(2, 6))))
    expect_output(submission, "shard_rows", (x,), x, exact=True)


@graded("shard_rows", "split by rows over every device")
def test_shard_rows_spread(submission, rng, sizes):
    x = _normal(rng, (_rows_of(submission, sizes), int(sizes.integers(2, 6))))
    # On the mesh the spec fixes: its one axis is named "data".
    expect_placement(submission, "shard_rows", (x,), x, spread="rows", axis="data",
                     why=_hint("shard_rows", "spread"))


# --- global_mean -----------------------------------------------------------------

def _global_mean_mistakes(devices):
    shard = lambda x: x[: len(x) // devices]  # noqa: E731  (device 0's rows)
    return (
        Mistake("10_parallel.global_mean.mistake.no_collective", lambda x: np.mean(shard(x), dtype=np.float64)),
        Mistake("10_parallel.global_mean.mistake.means_summed", lambda x: devices * _mean(x)),
    )


def _mean(x):
    return F32(np.mean(x, dtype=np.float64))


def _sharded_input(submission, rng, sizes):
    x = _normal(rng, (_rows_of(submission, sizes), int(sizes.integers(2, 6))))
    return x + F32(rng.uniform(0.5, 2.0))  # a mean away from 0, so "d times the mean" is told apart


@graded("global_mean", "correct")
def test_global_mean_correct(submission, rng, sizes):
    x = _sharded_input(submission, rng, sizes)
    expect_output(submission, "global_mean", (x,), _mean(x), rows_sharded=(0,),
                  hint=_hint("global_mean", "values"), mistakes=_global_mean_mistakes(submission.devices),
                  rtol=1e-5, atol=1e-5)


@graded("global_mean", "uses a collective")
def test_global_mean_collective(submission, rng, sizes):
    x = _sharded_input(submission, rng, sizes)
    facts = expect_jittable_on_devices(submission, "global_mean", (x,), _mean(x), rows_sharded=(0,),
                                       hint=_hint("global_mean", "values"), rtol=1e-5, atol=1e-5)
    assert_uses_collective(facts, ("all_reduce",), function="global_mean", why=_hint("global_mean", "collective"))


@graded("global_mean", "jittable")
def test_global_mean_jittable(submission, rng, sizes):
    x = _sharded_input(submission, rng, sizes)
    expect_jittable_on_devices(submission, "global_mean", (x,), _mean(x), rows_sharded=(0,),
                               hint=_hint("global_mean", "values"), rtol=1e-5, atol=1e-5)


# --- data_parallel_step ----------------------------------------------------------

def _loss_and_gradient(params, xs, ys):
    """05's linear model: MSE of w * x + b against y, and its gradient, in float64."""
    w, b = float(params["w"]), float(params["b"])
    xs, ys = np.asarray(xs, np.float64), np.asarray(ys, np.float64)
    error = w * xs + b - ys
    return np.mean(error ** 2), {"w": np.mean(2 * error * xs), "b": np.mean(2 * error)}


def _step(params, xs, ys, learning_rate, gradient_scale=1.0, shard=None):
    """The single-device step; `shard` takes the gradient of those rows only, `gradient_scale` multiplies it."""
    loss, _ = _loss_and_gradient(params, xs, ys)
    _, gradient = _loss_and_gradient(params, *(shard(xs), shard(ys)) if shard else (xs, ys))
    new = {k: F32(float(params[k]) - learning_rate * gradient_scale * gradient[k]) for k in ("b", "w")}
    return new, F32(loss)


def _step_mistakes(devices):
    first = lambda a: np.asarray(a)[: len(a) // devices]  # noqa: E731  (device 0's shard)
    return (
        Mistake("10_parallel.data_parallel_step.mistake.gradients_not_averaged",
                lambda p, xs, ys, lr: _step(p, xs, ys, lr, shard=first)),
        Mistake("10_parallel.data_parallel_step.mistake.gradients_averaged_twice",
                lambda p, xs, ys, lr: _step(p, xs, ys, lr, gradient_scale=devices)),
    )


def _step_inputs(submission, rng, sizes):
    n = submission.devices * int(sizes.integers(2, 6))
    xs = _normal(rng, n)
    ys = (F32(rng.uniform(1, 3)) * xs + F32(rng.uniform(-1, 1)) + F32(0.1) * _normal(rng, n)).astype(F32)
    params = {"w": F32(rng.uniform(-1, 1)), "b": F32(rng.uniform(-1, 1))}
    return params, xs, ys, F32(rng.uniform(0.05, 0.2))


@graded("data_parallel_step", "equals the single-device step")
def test_data_parallel_step_correct(submission, rng, sizes):
    args = _step_inputs(submission, rng, sizes)
    expect_output(submission, "data_parallel_step", args, _step(*args), hint=_hint("data_parallel_step", "values"),
                  mistakes=_step_mistakes(submission.devices), rtol=1e-4, atol=1e-5, on_devices=True)


@graded("data_parallel_step", "new params replicated on every device")
def test_data_parallel_step_replicated(submission, rng, sizes):
    args = _step_inputs(submission, rng, sizes)
    expect_placement(submission, "data_parallel_step", args, _step(*args), spread="replicated",
                     why=_hint("data_parallel_step", "replicated"), hint=_hint("data_parallel_step", "values"),
                     rtol=1e-4, atol=1e-5)


@graded("data_parallel_step", "uses a collective")
def test_data_parallel_step_collective(submission, rng, sizes):
    args = _step_inputs(submission, rng, sizes)
    facts = expect_jittable_on_devices(submission, "data_parallel_step", args, _step(*args),
                                       hint=_hint("data_parallel_step", "values"), rtol=1e-4, atol=1e-5)
    assert_uses_collective(facts, ("all_reduce",), function="data_parallel_step",
                           why=_hint("data_parallel_step", "collective"))


@graded("data_parallel_step", "jittable")
def test_data_parallel_step_jittable(submission, rng, sizes):
    args = _step_inputs(submission, rng, sizes)
    expect_jittable_on_devices(submission, "data_parallel_step", args, _step(*args),
                               hint=_hint("data_parallel_step", "values"), rtol=1e-4, atol=1e-5)
