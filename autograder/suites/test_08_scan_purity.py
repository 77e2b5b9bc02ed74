"""08_scan_purity: `lax.scan` with a carried state, and pure functions.

References are computed here in float64 NumPy from the same float32 inputs,
compared with float32 tolerances (rtol 1e-5, atol 1e-6). Every structure
check ("uses lax.scan", "program size") also compares the jitted program's
values, so a wrong function earns nothing there.

Sizes come from `_sizes`: drawn from the hidden seed once per run and shared
by a function's checks, because every new shape is a new compilation.

Two checks of running_stats_update need calls that a request cannot express
(only arrays and names cross into the student's process): the same dict
passed twice, and the function as the body of a `lax.scan`. The kit's
harnesses make them next to the student's code
(`running_stats_update@twice`, `running_stats_update@as_scan_body`; see
autograder/child/harnesses.py), and the values they return are compared here.
"""

import contextlib

import numpy as np

from autograder.suites.api import (
    CheckFailed,
    Mistake,
    StudentCodeError,
    assert_close,
    assert_equal,
    assert_no_host_callbacks,
    assert_not_unrolled,
    assert_same_structure,
    assert_trace_count,
    assert_uses_primitive,
    comparing_values,
    describe_call,
    expect_output,
    failure_of,
    graded,
    hint_key,
    sizes_for,
    text,
    with_advice,
)

F32 = np.float32
# Errors of a function that needs a concrete (static) value where the check traces it.
_NEEDS_CONCRETE = {"hint.ConcretizationTypeError", "hint.TracerBoolConversionError", "hint.ArrayTruthValue",
                   "hint.TracerIntegerConversionError", "hint.UnhashableStatic"}


def _sizes(seed, function):
    """A generator for `function`'s sizes: hidden (from the run's seed), the same in each of its checks,
    from a small fixed set across seeds (pytest_plugin.SHAPE_SETS)."""
    return sizes_for(seed, f"08_scan_purity.{function}")


def _fix(function, what, **fields):
    return text(f"08_scan_purity.{function}.{what}", **fields)


def _carry_detail(error):
    """JAX's line naming the carry component and its two types, for a loop whose carry changed type.

    The feedback quotes only the first line of an error, which for this one says just that the
    types differ; the line that says which component, and how, is the one to fix it by.
    """
    message = error.error.message if error.error else ""
    if "carry input and carry output" not in message:
        return ""
    details = [line.strip() for line in message.splitlines() if line.strip().startswith("The input carry")]
    return details[0] if details else ""


@contextlib.contextmanager
def _fix_on_error(function, what):
    """Add the exercise's fix (and JAX's line on a changed carry) when the student's code raises (not when
    it is missing)."""
    try:
        yield
    except StudentCodeError as error:
        if error.error_type is None or error.not_implemented:
            raise
        raise with_advice(error, _carry_detail(error), _fix(function, what)) from None


def _jitted_program(submission, function, args, expected, *, hint, static_argnums=()):
    """The facts of `function`'s traced program, after checking that the program computes `expected`."""
    facts = submission.trace(function, args, static_argnums=static_argnums)
    assert_no_host_callbacks(facts, function=function)
    expect_output(submission, function, args, expected, mode="jit", static_argnums=static_argnums,
                  check_dtype=True, hint=hint)
    return facts


def _expect_scan(facts, function):
    assert_uses_primitive(facts, {"scan"}, function=function, construct="`lax.scan`",
                          why=_fix(function, "use_scan"))


def _normal(rng, shape, scale=1.0):
    return np.asarray(rng.standard_normal(shape) * scale, dtype=F32)


# --- cumulative_sum ------------------------------------------------------------------

def _summands(rng, n):
    """Multiples of 1/4 of moderate size: every running sum is exact in float32, in any order."""
    return (rng.integers(-400, 400, n) / 4).astype(F32)


def _running_sums(x):
    return np.cumsum(x.astype(np.float64)).astype(F32)


CUMULATIVE_SUM_MISTAKES = (
    Mistake("08_scan_purity.cumulative_sum.mistake.exclusive",
            lambda x: np.concatenate([[0.0], np.cumsum(x.astype(np.float64))[:-1]]).astype(F32)),
)


def _length(seed):
    return int(_sizes(seed, "cumulative_sum").integers(5, 60))


@graded("cumulative_sum", "correct")
def test_cumulative_sum_correct(submission, rng, seed):
    for n in (_length(seed), 1):
        x = _summands(rng, n)
        with _fix_on_error("cumulative_sum", "values"):
            expect_output(submission, "cumulative_sum", (x,), _running_sums(x), check_dtype=True,
                          hint=_fix("cumulative_sum", "values"), mistakes=CUMULATIVE_SUM_MISTAKES)


@graded("cumulative_sum", "jittable")
def test_cumulative_sum_jittable(submission, rng, seed):
    x = _summands(rng, _length(seed))
    with _fix_on_error("cumulative_sum", "values"):
        _jitted_program(submission, "cumulative_sum", (x,), _running_sums(x), hint=_fix("cumulative_sum", "values"))


@graded("cumulative_sum", "program size independent of len(x)")
def test_cumulative_sum_not_unrolled(submission, rng):
    # Sizes drawn per run (from the run's hidden seed): a program cannot be tuned to them.
    n_small, n_large = int(rng.integers(6, 13)), int(rng.integers(48, 97))
    facts = []
    for n in (n_small, n_large):
        x = _summands(rng, n)
        with _fix_on_error("cumulative_sum", "values"):
            facts.append(_jitted_program(submission, "cumulative_sum", (x,), _running_sums(x),
                                         hint=_fix("cumulative_sum", "values")))
    assert_not_unrolled(*facts, function="cumulative_sum", n_small=n_small, n_large=n_large,
                        fix=_fix("cumulative_sum", "unrolled_fix"))


@graded("cumulative_sum", "uses lax.scan")
def test_cumulative_sum_uses_scan(submission, rng, seed):
    x = _summands(rng, _length(seed))
    with _fix_on_error("cumulative_sum", "values"):
        facts = _jitted_program(submission, "cumulative_sum", (x,), _running_sums(x),
                                hint=_fix("cumulative_sum", "values"))
    _expect_scan(facts, "cumulative_sum")


# --- ema -------------------------------------------------------------------------

def _ema(xs, decay, *, start=None, weights=None):
    """The reference; `start` (the first average) and `weights` (old, new) as a mistaken version has them."""
    decay = float(decay)
    old, new = weights or (decay, 1 - decay)
    averages = np.empty(len(xs))
    average = float(xs[0]) if start is None else start
    for t, x in enumerate(xs.astype(np.float64)):
        average = average if t == 0 and start is None else old * average + new * x
        averages[t] = average
    return averages.astype(F32)


EMA_MISTAKES = (
    Mistake("08_scan_purity.ema.mistake.starts_at_zero", lambda xs, decay: _ema(xs, decay, start=0.0)),
    Mistake("08_scan_purity.ema.mistake.swapped_weights",
            lambda xs, decay: _ema(xs, decay, weights=(1 - float(decay), float(decay)))),
    Mistake("08_scan_purity.ema.mistake.swapped_weights_from_zero",
            lambda xs, decay: _ema(xs, decay, start=0.0, weights=(1 - float(decay), float(decay)))),
)


def _decays(rng, count):
    """Distinct decays in [0.5, 0.99], as float32 scalars (traced when jitted)."""
    return [F32(d) for d in rng.choice(np.arange(50, 100), count, replace=False) / 100]


def _series(rng, seed):
    n = int(_sizes(seed, "ema").integers(5, 60))
    return (rng.standard_normal(n) + rng.uniform(-3, 3)).astype(F32)


@graded("ema", "correct")
def test_ema_correct(submission, rng, seed):
    xs = _series(rng, seed)
    for decay in _decays(rng, 2):
        expect_output(submission, "ema", (xs, decay), _ema(xs, decay), check_dtype=True, hint=_fix("ema", "values"),
                      mistakes=EMA_MISTAKES)


@graded("ema", "jittable with decay traced")
def test_ema_jittable(submission, rng, seed):
    xs, (decay,) = _series(rng, seed), _decays(rng, 1)
    with _fix_on_error("ema", "keep_traced"):
        _jitted_program(submission, "ema", (xs, decay), _ema(xs, decay), hint=_fix("ema", "values"))


@graded("ema", "compiles once for several decay values")
def test_ema_compiles_once(submission, rng, seed):
    xs, decays = _series(rng, seed), _decays(rng, 4)
    with _fix_on_error("ema", "keep_traced"):
        report = submission.count_traces("ema", [((xs, decay), {}) for decay in decays])
    assert_trace_count(report, 1, fix=_fix("ema", "keep_traced"),
                       call_sequence=_fix("ema", "calls", length=len(xs), decays=", ".join(f"{d:g}" for d in decays)))
    for decay in decays:
        expect_output(submission, "ema", (xs, decay), _ema(xs, decay), check_dtype=True, hint=_fix("ema", "values"))


def _ema_program(submission, xs, decay):
    """The program of ema with decay traced; or, if the student's code needs a concrete decay
    (the jit checks' business), with decay static, so that this check judges the structure only."""
    try:
        return _jitted_program(submission, "ema", (xs, decay), _ema(xs, decay), hint=_fix("ema", "values"))
    except StudentCodeError as error:
        if error.error is None or hint_key(error.error.mro, error.error.message) not in _NEEDS_CONCRETE:
            raise
        try:
            return _jitted_program(submission, "ema", (xs, float(decay)), _ema(xs, decay),
                                   hint=_fix("ema", "values"), static_argnums=(1,))
        except StudentCodeError:
            raise error from None


@graded("ema", "uses lax.scan")
def test_ema_uses_scan(submission, rng, seed):
    xs, (decay,) = _series(rng, seed), _decays(rng, 1)
    _expect_scan(_ema_program(submission, xs, decay), "ema")


# --- rnn_forward -------------------------------------------------------------------

def _rnn(params, xs, h0, *, outputs_before_step=False, activation=np.tanh):
    w_h, w_x, b = (params[k].astype(np.float64) for k in ("W_h", "W_x", "b"))
    h, hs = h0.astype(np.float64), []
    for x in xs.astype(np.float64):
        before = h
        h = activation(w_h @ h + w_x @ x + b)
        hs.append(before if outputs_before_step else h)
    return h.astype(F32), np.array(hs).reshape(len(xs), len(h0)).astype(F32)


RNN_FORWARD_MISTAKES = (
    Mistake("08_scan_purity.rnn_forward.mistake.h0_included",
            lambda params, xs, h0: _rnn(params, xs, h0, outputs_before_step=True)),
    Mistake("08_scan_purity.rnn_forward.mistake.no_tanh",
            lambda params, xs, h0: _rnn(params, xs, h0, activation=lambda v: v)),
    # ReLU where the exercise's cell applies tanh, as MLP code does in its hidden layers.
    Mistake("08_scan_purity.rnn_forward.mistake.relu_for_tanh",
            lambda params, xs, h0: _rnn(params, xs, h0, activation=lambda v: np.maximum(v, 0.0))),
    Mistake("08_scan_purity.rnn_forward.mistake.transposed_weights",
            lambda params, xs, h0: _rnn({"W_h": params["W_h"].T, "W_x": params["W_x"], "b": params["b"]}, xs, h0)),
)


# Sequence lengths of the program-size check, drawn per run from the hidden seed: larger than H
# and D (at most 10), so that no shape-derived constant of a correct program coincides with
# another one at one length only (XLA keeps one copy of equal constants, and the operation count
# would differ by one); the long one far above the most operations of one kind any correct
# program holds (8: assert_not_unrolled).
PROGRAM_STEPS_SHORT, PROGRAM_STEPS_LONG = (12, 24), (64, 129)


def _rnn_sizes(seed):
    """(H, D, T)."""
    sizes = _sizes(seed, "rnn_forward")
    return int(sizes.integers(3, 11)), int(sizes.integers(2, 9)), int(sizes.integers(5, 31))


def _rnn_params(rng, hidden, features):
    return {"W_h": _normal(rng, (hidden, hidden), 0.9 / np.sqrt(hidden)),
            "W_x": _normal(rng, (hidden, features), 1 / np.sqrt(features)),
            "b": _normal(rng, (hidden,), 0.3)}


def _rnn_args(rng, seed, steps=None):
    hidden, features, default_steps = _rnn_sizes(seed)
    steps = steps or default_steps
    return _rnn_params(rng, hidden, features), _normal(rng, (steps, features)), np.tanh(_normal(rng, (hidden,)))


@graded("rnn_forward", "correct")
def test_rnn_forward_correct(submission, rng, seed):
    args = _rnn_args(rng, seed)
    expect_output(submission, "rnn_forward", args, _rnn(*args), check_dtype=True, hint=_fix("rnn_forward", "values"),
                  mistakes=RNN_FORWARD_MISTAKES)


@graded("rnn_forward", "jittable")
def test_rnn_forward_jittable(submission, rng, seed):
    args = _rnn_args(rng, seed)
    _jitted_program(submission, "rnn_forward", args, _rnn(*args), hint=_fix("rnn_forward", "values"))


@graded("rnn_forward", "program size independent of T")
def test_rnn_forward_not_unrolled(submission, rng, seed):
    params, _, h0 = _rnn_args(rng, seed)
    n_small, n_large = int(rng.integers(*PROGRAM_STEPS_SHORT)), int(rng.integers(*PROGRAM_STEPS_LONG))
    facts = []
    for steps in (n_small, n_large):
        args = (params, _normal(rng, (steps, params["W_x"].shape[1])), h0)
        facts.append(_jitted_program(submission, "rnn_forward", args, _rnn(*args), hint=_fix("rnn_forward", "values")))
    assert_not_unrolled(*facts, function="rnn_forward", n_small=n_small, n_large=n_large,
                        fix=_fix("rnn_forward", "unrolled_fix"))


@graded("rnn_forward", "works under vmap")
def test_rnn_forward_vmap(submission, rng, seed, sizes):
    params, xs, h0 = _rnn_args(rng, seed)
    batch = int(sizes.integers(3, 9))
    xs_batch = _normal(rng, (batch, *xs.shape))
    h0_batch = np.tanh(_normal(rng, (batch, *h0.shape)))
    rows = [_rnn(params, xs_batch[i], h0_batch[i]) for i in range(batch)]
    expected = (np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows]))
    call = f"jax.vmap(rnn_forward, in_axes=(None, 0, 0)){describe_call('', (params, xs_batch, h0_batch), {})}"
    with _fix_on_error("rnn_forward", "vmap_fix"):
        actual = submission.call_with("rnn_forward", (params, xs_batch, h0_batch), mode="vmap", in_axes=(None, 0, 0))
    with comparing_values(hint=_fix("rnn_forward", "values")):
        assert_close(actual, expected, call=call, check_dtype=True)


# --- running_stats_update ----------------------------------------------------------

STATS_KEYS = ("count", "mean", "m2")
SCAN_LENGTH = 100


def _stats(rng):
    """Stats after some values: count a whole number, m2 >= 0, as float32 scalars."""
    count = int(rng.integers(1, 50))
    return {"count": np.asarray(count, F32), "mean": np.asarray(rng.uniform(-3, 3), F32),
            "m2": np.asarray(rng.uniform(0, 2) * count, F32)}


def _welford(stats, x):
    count, mean, m2 = (float(stats[k]) for k in STATS_KEYS)
    count += 1
    delta = float(x) - mean
    new_mean = mean + delta / count
    return {"count": np.asarray(count, F32), "mean": np.asarray(new_mean, F32),
            "m2": np.asarray(m2 + delta * (float(x) - new_mean), F32)}


def _welford_squared_delta(stats, x):
    """m2 grown by delta ** 2, with the mean before the update in both factors."""
    new = _welford(stats, x)
    delta = float(x) - float(stats["mean"])
    return {**new, "m2": np.asarray(float(stats["m2"]) + delta * delta, F32)}


RUNNING_STATS_MISTAKES = (
    Mistake("08_scan_purity.running_stats_update.mistake.squared_delta", _welford_squared_delta),
)


def _update_args(rng):
    return _stats(rng), np.asarray(rng.uniform(-5, 5), F32)


def _expect_update(submission, args, **options):
    expect_output(submission, "running_stats_update", args, _welford(*args), check_dtype=True,
                  hint=_fix("running_stats_update", "values"), mistakes=RUNNING_STATS_MISTAKES, **options)


def _changed_entry(before, after):
    """How the dict `after` differs from `before` ("stats['count'] was 3 before the call and 4 after it"), or ""."""
    def shown(stats, key):
        if key not in stats:
            return text("08_scan_purity.running_stats_update.missing_key")
        return f"{np.asarray(stats[key]).item():g}"

    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after or not np.array_equal(before[key], after[key]):
            return text("08_scan_purity.running_stats_update.changed_entry", name=key,
                                 before=shown(before, key), after=shown(after, key))
    return ""


@graded("running_stats_update", "correct")
def test_running_stats_update_correct(submission, rng):
    for _ in range(2):
        _expect_update(submission, _update_args(rng))


@graded("running_stats_update", "pure")
def test_running_stats_update_pure(submission, rng):
    """The same dict passed twice: the right result, the dict unchanged after the first call, the same result again."""
    stats, x = _update_args(rng)
    call = describe_call("running_stats_update", (stats, x), {})
    with _fix_on_error("running_stats_update", "values"):
        first, second, after = submission.call("running_stats_update@twice", stats, x)
    expected = _welford(stats, x)
    with comparing_values(hint=_fix("running_stats_update", "values")):
        assert_close(first, expected, call=call, check_dtype=True)
    changed = _changed_entry(stats, after)
    if changed:
        raise AssertionError(_fix("running_stats_update", "impure", call=call, change=changed))
    try:
        assert_close(second, expected, call=_fix("running_stats_update", "called_again", call=call), check_dtype=True)
    except AssertionError as error:
        raise CheckFailed(failure_of(error).in_context(_fix("running_stats_update", "not_repeatable", call=call))) \
            from None


@graded("running_stats_update", "jittable")
def test_running_stats_update_jittable(submission, rng):
    args = _update_args(rng)
    _jitted_program(submission, "running_stats_update", args, _welford(*args),
                    hint=_fix("running_stats_update", "values"))


@graded("running_stats_update", "as a lax.scan body gives numpy's mean and variance")
def test_running_stats_update_scan(submission, rng):
    """Welford's algorithm over 100 values in float32 is accurate to about 1e-7 relative: rtol 1e-5, atol 1e-5."""
    xs = (rng.standard_normal(SCAN_LENGTH) * rng.uniform(0.5, 3) + rng.uniform(-5, 5)).astype(F32)
    # The suite's own words for the call its comparisons name (an error inside the harness names it as the
    # harness declares, child/harnesses.py).
    shown = _fix("running_stats_update", "scan_call", length=SCAN_LENGTH)
    with _fix_on_error("running_stats_update", "values"):
        stats = submission.call("running_stats_update@as_scan_body", xs)
    values = xs.astype(np.float64)
    final = {q: _fix("running_stats_update", "final", call=shown, quantity=q) for q in ("count", "mean", "m2 / count")}
    with comparing_values(hint=_fix("running_stats_update", "values")):
        assert_same_structure(stats, dict.fromkeys(STATS_KEYS, None), call=shown)
        assert_equal(stats["count"], np.asarray(SCAN_LENGTH, F32), call=final["count"], check_dtype=True)
        assert_close(stats["mean"], np.asarray(values.mean(), F32), call=final["mean"], check_dtype=True,
                     rtol=1e-5, atol=1e-5)
        assert_close(np.asarray(np.asarray(stats["m2"], np.float64) / SCAN_LENGTH), values.var(),
                     call=final["m2 / count"], rtol=1e-5, atol=1e-5)
