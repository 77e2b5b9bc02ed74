"""06_prng: typed keys, splitting, and using every key exactly once.

Every key argument is a typed key (`TypedKey`, `jax.random.wrap_key_data` in
the student's process), and every call runs with JAX's key-reuse checker on,
so a reused key fails as KeyReuseError with its hint. Reference values are
computed here with JAX from the same key data, following each stated recipe.

Keys and values come from `rng`. Sizes come from `_sizes`: drawn from the
hidden seed once per run and shared by a function's checks, because JAX
compiles every random function once per shape and that dominates the time.
For the same reason the recipes run op by op, not under jit, and with the
key-reuse checker on (it is part of JAX's cache keys): a correct submission,
run the same way, has already compiled every program they use (in
`autograder check`, where both share a process), and the values are those
of the same operations, not of a fused program.
"""

import contextlib
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np

from autograder.suites.api import (
    StudentCodeError,
    TypedKey,
    assert_close,
    assert_equal,
    assert_same_shapes,
    describe_call,
    graded,
    has_text,
    relation_hint,
    sizes_for,
    text,
    with_advice,
    with_hint,
)

F32 = np.float32
WALKS = 1000  # keys in random_walk's vmap check
MEAN_SIGMAS = 6  # |mean final position| allowed, in standard errors: a fair walk always passes


def _sizes(seed, function):
    """A generator for `function`'s sizes: hidden (from the run's seed), the same in each of its checks,
    from a small fixed set across seeds (pytest_plugin.SHAPE_SETS)."""
    return sizes_for(seed, f"06_prng.{function}")


def _seeds(rng, count):
    """Distinct seeds for `jax.random.key`."""
    seeds = np.unique(rng.integers(0, 2**31, count + 16))
    return [int(s) for s in rng.permutation(seeds)[:count]]


def _key(rng):
    return TypedKey.from_seed(_seeds(rng, 1)[0])


def _recipe(function):
    """Run a reference recipe as submissions run: op by op, key-reuse checker on."""
    def run(*args):
        with jax.debug_key_reuse(True):
            return function(*args)
    return run


def _jax_key(key):
    """The parent's copy of the key the student receives."""
    return jax.random.wrap_key_data(jnp.asarray(key.data), impl=key.impl)


def _call(submission, function, args, **options):
    """Call `function` with the key-reuse checker on; a reused key gets the exercise's explanation."""
    try:
        return submission.call_with(function, args, key_reuse_check=True, **options)
    except StudentCodeError as failure:
        key = f"06_prng.{function}.key_reuse"
        if failure.error_type == "KeyReuseError" and has_text(key):
            raise with_advice(failure, text(key)) from None
        raise


@contextlib.contextmanager
def _advice(key, **fields):
    """Add the exercise's advice `key` to a failure caused by the student's code.

    Not to "missing" or "not implemented yet", which already say what to do.
    """
    try:
        yield
    except StudentCodeError as failure:
        if failure.error_type is None or failure.not_implemented:
            raise
        raise with_advice(failure, text(key, **fields)) from None
    except AssertionError as failure:
        raise with_advice(failure, text(key, **fields)) from None


def _expect_recipe(submission, function, args, recipe, *, exact=False):
    """Output (values and dtypes) equals `recipe(*args)`; a failure restates the recipe.

    The recipe runs after the student's call: a stub's check then costs no reference (op by op, seconds).
    Wrong values that change from call to call, or that the key does not change, say so."""
    with _advice(f"06_prng.{function}.recipe"):
        actual = _call(submission, function, args)
        call = describe_call(function, args, {})
        _compare_related(actual, recipe(*args), call, args, exact=exact,
                         diagnose=lambda: _randomness_hint(submission, function, args, actual, call))


def _expect_recipe_values(actual, expected, call, function, *, exact=False):
    """The values a property check already got equal the recipe's: property points need correct values."""
    with _advice(f"06_prng.{function}.recipe"):
        _compare_related(actual, expected, call, (), exact=exact)


def _compare_related(actual, expected, call, args, *, exact, diagnose=None):
    """Values and dtypes equal; when they are not, how the values relate to the recipe's is the hint, then
    what `diagnose()` finds (a sentence or None)."""
    compare = assert_equal if exact else assert_close
    try:
        compare(actual, expected, call=call, check_dtype=True)
    except AssertionError as error:
        raise with_hint(error, relation_hint(actual, expected, args), diagnose() if diagnose else None) from None


# Where each function takes its key.
KEY_POSITION = {"generate_linear_samples": 0, "init_mlp_params": 1, "dropout": 0, "random_walk": 0}
OTHER_SEEDS = (20261207, 7)  # a second key for the key-ignored test: the first of these that differs


def _randomness_hint(submission, function, args, actual, call):
    """Why wrong values are random in the wrong way, from two more calls, or None: a second call with the same
    key that returns other values (NumPy's global random state), or a call with another key that returns the
    same values (a fixed key inside, the key argument ignored)."""
    try:
        if not _same_tree(_call(submission, function, args), actual):
            key = f"06_prng.{function}.not_reproducible"
            return text(key, call=call) if has_text(key) else None
        at = KEY_POSITION[function]
        seed = next(s for s in OTHER_SEEDS if not _same(TypedKey.from_seed(s).data, args[at].data))
        other = (*args[:at], TypedKey.from_seed(seed), *args[at + 1:])
        if _same_tree(_call(submission, function, other), actual):
            key = f"06_prng.{function}.key_ignored"
            return text(key, call=call) if has_text(key) else None
    except StudentCodeError:
        return None
    return None


def _same_tree(a, b):
    """Two outputs with the same structure and equal leaves."""
    a_leaves, a_tree = jax.tree.flatten(a)
    b_leaves, b_tree = jax.tree.flatten(b)
    return a_tree == b_tree and all(_same(x, y) for x, y in zip(a_leaves, b_leaves, strict=True))


def _same(a, b):
    return np.asarray(a).shape == np.asarray(b).shape and np.array_equal(a, b)


# --- generate_linear_samples ---------------------------------------------------

@_recipe
def _linear_samples_recipe(key, intercept, slope, noise_scale, n_samples):
    key_x, key_noise = jax.random.split(key)
    x = jax.random.uniform(key_x, (n_samples,))
    y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)
    return x, y


def _linear_samples(key, intercept, slope, noise_scale, n_samples):
    x, y = _linear_samples_recipe(_jax_key(key), intercept, slope, noise_scale, n_samples)
    return np.asarray(x), np.asarray(y)


def _sample_counts(seed):
    return [int(n) for n in _sizes(seed, "generate_linear_samples").integers(5, 200, 2)]


def _linear_args(rng, n_samples):
    def scalar(low, high):
        return round(float(rng.uniform(low, high)), 3)

    return _key(rng), scalar(-5, 5), scalar(-3, 3), scalar(0.05, 1), n_samples


@graded("generate_linear_samples", "exact match")
def test_generate_linear_samples_exact(submission, rng, seed):
    for n_samples in _sample_counts(seed):
        args = _linear_args(rng, n_samples)
        _expect_recipe(submission, "generate_linear_samples", args, _linear_samples)


@graded("generate_linear_samples", "reproducible for the same key")
def test_generate_linear_samples_reproducible(submission, rng, seed):
    args = _linear_args(rng, _sample_counts(seed)[0])
    first = _call(submission, "generate_linear_samples", args)
    again = _call(submission, "generate_linear_samples", args)
    call = describe_call("generate_linear_samples", args, {})
    try:
        assert_equal(again, first, call=call)
    except AssertionError:
        raise AssertionError(text("06_prng.generate_linear_samples.not_reproducible", call=call)) from None
    _expect_recipe_values(first, _linear_samples(*args), call, "generate_linear_samples")


@graded("generate_linear_samples", "no key reuse")
def test_generate_linear_samples_no_key_reuse(submission, rng, seed):
    args = _linear_args(rng, _sample_counts(seed)[1])
    _expect_recipe(submission, "generate_linear_samples", args, _linear_samples)


# --- init_mlp_params -------------------------------------------------------------

@_recipe
def _mlp_params_recipe(layer_widths, key):
    keys = jax.random.split(key, len(layer_widths) - 1)
    return [
        {"weights": jax.random.normal(keys[i], (n_in, n_out)) * jnp.sqrt(2 / n_in), "biases": jnp.ones(n_out)}
        for i, (n_in, n_out) in enumerate(itertools.pairwise(layer_widths))
    ]


def _mlp_params(layer_widths, key):
    params = _mlp_params_recipe(tuple(layer_widths), _jax_key(key))
    return [{name: np.asarray(value) for name, value in layer.items()} for layer in params]


def _layer_widths(seed):
    """Two width lists: [a, h, h, h, b] (layers 1 and 2 both (h, h)), and [a, c] (one layer)."""
    sizes = _sizes(seed, "init_mlp_params")
    a, hidden, b, c = (int(w) for w in sizes.integers(1, 24, 4))
    hidden = max(hidden, 2)
    return [a, hidden, hidden, hidden, b], [a, c]


@graded("init_mlp_params", "exact match")
def test_init_mlp_params_exact(submission, rng, seed):
    for widths in _layer_widths(seed):  # several layers first: a reused key shows up there
        args = (widths, _key(rng))
        _expect_recipe(submission, "init_mlp_params", args, _mlp_params)


@graded("init_mlp_params", "layers of equal shape differ")
def test_init_mlp_params_equal_shapes_differ(submission, rng, seed):
    args = (_layer_widths(seed)[0], _key(rng))
    call = describe_call("init_mlp_params", args, {})
    params = _call(submission, "init_mlp_params", args)
    assert_same_shapes(params, _mlp_params(*args), call=call)
    weights = [np.asarray(layer["weights"]) for layer in params]
    for i in range(len(weights)):
        for j in range(i + 1, len(weights)):
            if _same(weights[i], weights[j]):
                raise AssertionError(text("06_prng.init_mlp_params.identical_layers", call=call,
                                                   first=i, second=j, shape=weights[i].shape))
    _expect_recipe_values(params, _mlp_params(*args), call, "init_mlp_params")


@graded("init_mlp_params", "no key reuse")
def test_init_mlp_params_no_key_reuse(submission, rng, seed):
    args = (_layer_widths(seed)[0], _key(rng))
    _expect_recipe(submission, "init_mlp_params", args, _mlp_params)


# --- dropout ---------------------------------------------------------------------

@_recipe
def _dropout_recipe(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)


def _dropout(key, x, rate):
    return np.asarray(_dropout_recipe(_jax_key(key), x, rate))


def _rate(rng):
    """A multiple of 1/16, so 1 - rate is exact in float32 however it is computed."""
    return float(rng.integers(1, 15)) / 16


def _activation_shapes(seed):
    """A 2-D or 3-D shape with at least 64 entries, and a 1-D shape."""
    sizes = _sizes(seed, "dropout")
    shape = tuple(int(d) for d in sizes.integers(4, 12, int(sizes.integers(2, 4))))
    return shape, (int(sizes.integers(5, 100)),)


@graded("dropout", "exact match")
def test_dropout_exact(submission, rng, seed):
    for shape, rate in zip(_activation_shapes(seed), (_rate(rng), 0.0), strict=True):
        args = (_key(rng), rng.standard_normal(shape).astype(F32), rate)
        _expect_recipe(submission, "dropout", args, _dropout)


@graded("dropout", "same key same output, different keys differ")
def test_dropout_same_key_same_output(submission, rng, seed):
    # No zeros in x and 64+ entries at rate 1/2: two keys give the same mask with probability <= 2**-64.
    x = (np.abs(rng.standard_normal(_activation_shapes(seed)[0])) + 0.5).astype(F32)
    seed_a, seed_b = _seeds(rng, 2)
    key_a, key_b = TypedKey.from_seed(seed_a), TypedKey.from_seed(seed_b)
    call = describe_call("dropout", (key_a, x, 0.5), {})
    first = _call(submission, "dropout", (key_a, x, 0.5))
    assert_same_shapes(first, x, call=call)
    again = _call(submission, "dropout", (key_a, x, 0.5))
    if not _same(first, again):
        raise AssertionError(text("06_prng.dropout.not_reproducible", call=call))
    other = _call(submission, "dropout", (key_b, x, 0.5))
    if _same(first, other):
        raise AssertionError(text("06_prng.dropout.key_ignored", call=call))
    _expect_recipe_values(first, _dropout(key_a, x, 0.5), call, "dropout")


@graded("dropout", "jittable with rate traced")
def test_dropout_jittable(submission, rng, seed):
    args = (_key(rng), rng.standard_normal(_activation_shapes(seed)[1]).astype(F32), F32(_rate(rng)))
    with _advice("06_prng.dropout.traced_rate"):
        submission.trace("dropout", args)
    actual = _call(submission, "dropout", args, mode="jit")
    _expect_recipe_values(actual, _dropout(*args), f"jit({describe_call('dropout', args, {})})", "dropout")


# --- random_walk -----------------------------------------------------------------

@_recipe
def _walk_recipe(key, num_steps):
    steps = 2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1
    return jnp.cumsum(steps)


def _walk(key, num_steps):
    return np.asarray(_walk_recipe(_jax_key(key), num_steps))


def _walks(keys, num_steps):
    """The recipe for a batch of keys, vmapped as the check vmaps the student's function."""
    return np.asarray(jax.vmap(lambda key: _walk_recipe(key, num_steps))(_jax_key(keys)))


def _walk_lengths(seed):
    """A long walk, and the length of the walks in the vmap check."""
    sizes = _sizes(seed, "random_walk")
    return int(sizes.integers(200, 500)), int(sizes.integers(50, 200))


@graded("random_walk", "exact match")
def test_random_walk_exact(submission, rng, seed):
    for num_steps in (_walk_lengths(seed)[0], 1):
        args = (_key(rng), num_steps)
        _expect_recipe(submission, "random_walk", args, _walk, exact=True)


@graded("random_walk", "steps are all +1 or -1")
def test_random_walk_unit_steps(submission, rng, seed):
    args = (_key(rng), _walk_lengths(seed)[0])
    call = describe_call("random_walk", args, {})
    positions = _call(submission, "random_walk", args)
    assert_same_shapes(positions, np.zeros(args[1], np.int32), call=call)
    steps = np.diff(np.asarray(positions, dtype=np.float64), prepend=0.0)
    wrong = np.flatnonzero(~np.isin(steps, (-1.0, 1.0)))
    if len(wrong):
        raise AssertionError(text("06_prng.random_walk.not_unit_steps", call=call, count=len(wrong),
                                           total=len(steps), index=int(wrong[0]), value=f"{steps[wrong[0]]:g}"))
    _expect_recipe_values(positions, _walk(*args), call, "random_walk", exact=True)


@graded("random_walk", "mean over 1000 keys near 0")
def test_random_walk_mean_over_keys(submission, rng, seed):
    num_steps = _walk_lengths(seed)[1]
    args = (TypedKey.from_seeds(_seeds(rng, WALKS)), num_steps)
    call = f"jax.vmap(random_walk, in_axes=(0, None))({describe_call('random_walk', args, {})[len('random_walk('):]}"
    with _advice("06_prng.random_walk.vmap_fix", batch=WALKS):
        walks = _call(submission, "random_walk", args, mode="vmap", in_axes=(0, None))
    assert_same_shapes(walks, np.zeros((WALKS, num_steps), np.int32), call=call)
    positions = walks
    walks = np.asarray(walks, dtype=np.float64)
    if (walks == walks[0]).all():
        raise AssertionError(text("06_prng.random_walk.vmap_identical", call=call, batch=WALKS))
    mean = float(walks[:, -1].mean())
    tolerance = MEAN_SIGMAS * math.sqrt(num_steps / WALKS)  # the final position has variance num_steps
    if abs(mean) > tolerance:
        raise AssertionError(text("06_prng.random_walk.vmap_mean", call=call, batch=WALKS,
                                           num_steps=num_steps, mean=mean, tolerance=tolerance))
    _expect_recipe_values(positions, _walks(*args), call, "random_walk", exact=True)
