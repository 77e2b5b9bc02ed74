"""The JAX check library: hints for real JAX errors, trace counting, tracing-based jittability, jaxpr walks."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from autograder.catalog import messages
from autograder.check.jax_error_hints import hint_for, hint_key
from autograder.child import jaxpr_walk
from autograder.child.executor import describe_exception
from autograder.child.jittability import trace_jaxpr
from autograder.child.trace_counting import count_traces, is_jitted

escaped = []


def _python_if(x):
    return x if x > 0 else -x


def _escape(x):
    escaped.append(x)
    return x


def _use_escaped():
    jax.jit(_escape)(1.0)
    return escaped[-1] + 1


def _reuse_key():
    key = jax.random.key(0)
    with jax.debug_key_reuse(True):
        return jax.random.normal(key) + jax.random.normal(key)


def _immutable():
    x = jnp.ones(3)
    x[0] = 2.0


# (the error, what raises it, what its hint says at each level: idea, api, recipe).
ERRORS = [
    ("TracerBoolConversionError", lambda: jax.make_jaxpr(_python_if)(1.0),
     ("JAX's own control flow", "`jax.lax.cond`", "`lax.cond`")),
    ("NonConcreteBooleanIndexError", lambda: jax.make_jaxpr(lambda x: x[x > 0].sum())(jnp.ones(3)),
     ("select elementwise", "`jax.numpy.where`", "jnp.where(mask, x, 0)")),
    ("TracerIntegerConversionError", lambda: jax.make_jaxpr(lambda x, n: x * len(range(n)))(1.0, 3),
     ("Make that argument static", "static_argnums", "`static_argnums`/`static_argnames`")),
    ("ConcretizationTypeError", lambda: jax.make_jaxpr(lambda n: jnp.arange(n))(3),
     ("loop with JAX's loops", "`jax.lax.fori_loop`", "`lax.fori_loop` / `lax.while_loop`")),
    ("TracerArrayConversionError", lambda: jax.make_jaxpr(lambda x: np.array(x))(jnp.ones(2)),
     ("stay in `jax.numpy`", "`jax.numpy.ndarray.at`", "x.at[idx].set(value)")),
    ("TypeError", _immutable, ("functional update", "`jax.numpy.ndarray.at`", "x.at[i].set(v)")),
    ("KeyReuseError", _reuse_key, ("split the key", "`jax.random.split`", "jax.random.split(key)")),
    ("UnexpectedTracerError", _use_escaped, ("escaped", "escaped", "escaped")),
    ("ValueError", lambda: jax.jit(lambda x, n: x, static_argnums=1)(1.0, jnp.ones(2)),
     ("hashable", "hashable", "hashable")),
    # A Python `if` on a whole array without jit: ambiguous, and nothing to do with tracing.
    ("ValueError", lambda: bool(jnp.ones(3) > 0), ("even without jit", "`jax.numpy.where`", "`jnp.where`")),
]


def _hints_at_every_level(error: BaseException) -> dict[str, str | None]:
    described = describe_exception(error)
    hints = {}
    for level in messages.HINT_LEVELS:
        with messages.hints_at(level):
            hints[level] = hint_for(described.mro, described.message)
    return hints


def _assert_levels(hints: dict[str, str | None], said: tuple[str, str, str]) -> None:
    """Each level says its own part; only the recipe shows the recipe's code."""
    for level, expected in zip(messages.HINT_LEVELS, said, strict=True):
        assert hints[level] is not None and expected in hints[level], (level, hints[level])
    recipe_code = said[2]
    if recipe_code not in said[:2]:
        assert recipe_code not in hints["idea"] and recipe_code not in hints["api"], hints


@pytest.mark.parametrize("expected_type, trigger, said", ERRORS, ids=[e[0] for e in ERRORS])
def test_jax_error_maps_to_a_hint_at_every_level(expected_type, trigger, said):
    with pytest.raises(Exception) as caught:
        trigger()
    assert expected_type in describe_exception(caught.value).mro
    _assert_levels(_hints_at_every_level(caught.value), said)


def test_trace_count_on_a_students_own_jit_object():
    @partial(jax.jit, static_argnums=1)
    def power(x, n):
        result = jnp.ones_like(x)
        for _ in range(n):
            result = result * x
        return result

    calls = [((jnp.full(3, float(i)), n), {}) for i, n in enumerate([2, 2, 3, 3, 2])]
    assert is_jitted(power)
    report = count_traces(power, calls)
    assert report.traces == 2 and report.per_call == [1, 0, 1, 0, 0]


def test_trace_count_of_a_plain_function_wraps_it_in_jit():
    def square(x, negate):
        return lax.cond(negate, lambda v: -v**2, lambda v: v**2, x)

    calls = [((jnp.float32(i), jnp.bool_(i % 2)), {}) for i in range(4)]
    assert count_traces(square, calls).traces == 1
    assert count_traces(square, [((1.0, True), {}), ((1.0, False), {})], static_argnums=(1,)).traces == 2


def test_trace_count_explains_cache_misses():
    @jax.jit
    def f(x):
        return x + 1

    report = count_traces(f, [((jnp.ones(2),), {}), ((jnp.ones(3),), {})])
    assert report.traces == 2
    assert any("CACHE MISS" in e for e in report.explanations)


def test_count_all_sees_a_fresh_jit_per_step():
    def run(x, steps):
        for _ in range(steps):
            x = jax.jit(lambda v: v * 0.5)(x)
        return x

    report = count_traces(run, [((jnp.ones(2), 3), {})], static_argnums=(1,), count_all=True)
    assert report.traces >= 3


def test_tracing_still_checks_jittability_when_jit_is_disabled():
    previous = jax.config.jax_disable_jit
    jax.config.update("jax_disable_jit", True)
    try:
        with pytest.raises(jax.errors.TracerBoolConversionError):
            trace_jaxpr(_python_if, (1.0,))
        assert trace_jaxpr(jnp.sin, (1.0,)) is not None
    finally:
        jax.config.update("jax_disable_jit", previous)


def test_jaxpr_walk_finds_primitives_inside_nested_jit():
    @jax.jit
    def inner(x, flag):
        return lax.cond(flag, jnp.sin, jnp.cos, x)

    jaxpr = trace_jaxpr(lambda x, flag: inner(x, flag) * 2, (1.0, True))
    assert {"cond", "sin", "cos", "mul"} <= jaxpr_walk.primitive_names(jaxpr)


def test_static_keyword_arguments_are_bound_before_tracing():
    jaxpr = trace_jaxpr(lambda x, axis: x.sum(axis=axis), (jnp.ones((2, 3)),), {"axis": 1}, static_argnames=("axis",))
    assert "reduce_sum" in jaxpr_walk.primitive_names(jaxpr)


# --- hints for jax.vmap's in_axes and loop carries (07_vmap_pytrees, 08_scan_purity) ---

def _predict(params, x):
    return x @ params["w"] + params["b"]


def _scan_with_int_carry():
    return lax.scan(lambda total, v: (total + v, total + v), jnp.int32(0), jnp.arange(4.0))


def _scan_with_tuple_carry_returned():
    return lax.scan(lambda total, v: ((total, v), v), jnp.float32(0), jnp.arange(4.0))


VMAP_AND_CARRY_ERRORS = [
    ("params mapped with the batch", lambda: jax.vmap(_predict)({"w": jnp.ones((3, 2)), "b": jnp.ones(2)}, jnp.ones((5,
                                                                                                                     3))),
     ("must not be mapped", "`jax.vmap(in_axes=...)`", "in_axes=(None, 0)")),
    ("0-d params leaf mapped", lambda: jax.vmap(_predict)({"w": jnp.ones(3), "b": jnp.float32(0)}, jnp.ones((5, 3))),
     ("must not be mapped", "`jax.vmap(in_axes=...)`", "in_axes=(None, 0)")),
    ("in_axes dict for a list", lambda: jax.vmap(lambda p, x: x, in_axes=({"w": None}, 0))([jnp.ones(2)], jnp.ones(3)),
     ("must match its structure", "`jax.vmap(in_axes=...)`", "None covers a whole pytree")),
    ("scan carry dtype", _scan_with_int_carry, ("must keep its type", "`jax.lax.scan`", "jnp.zeros((), x.dtype)")),
    ("scan carry structure", _scan_with_tuple_carry_returned,
     ("structure, shapes and dtypes", "structure, shapes and dtypes", "structure, shapes and dtypes")),
    ("while_loop carry dtype", lambda: lax.while_loop(lambda n: n < 3, lambda n: n + 1.5, jnp.int32(0)),
     ("initial carry", "initial carry", "initial carry")),
]


@pytest.mark.parametrize("trigger, said", [e[1:] for e in VMAP_AND_CARRY_ERRORS],
                         ids=[e[0] for e in VMAP_AND_CARRY_ERRORS])
def test_vmap_and_carry_errors_map_to_a_hint_at_every_level(trigger, said):
    with pytest.raises((ValueError, TypeError)) as caught:
        trigger()
    _assert_levels(_hints_at_every_level(caught.value), said)


REMOVED_APIS = [
    ("jax.tree_map", lambda: jax.tree_map(lambda x: x, [1]), "jax.tree.map"),
    ("jax.ops.index_update", lambda: jax.ops.index_update(jnp.zeros(3), 0, 1.0), "x.at[...]"),
    ("raw PRNGKey beside a typed key", lambda: jnp.stack([jax.random.key(0), jax.random.PRNGKey(1)]),
     "jax.random.split"),
]


@pytest.mark.parametrize("trigger, fix", [e[1:] for e in REMOVED_APIS], ids=[e[0] for e in REMOVED_APIS])
def test_apis_from_older_tutorials_get_a_hint_naming_the_current_api(trigger, fix):
    with pytest.raises((AttributeError, ValueError, TypeError)) as caught:
        trigger()
    for level, hint in _hints_at_every_level(caught.value).items():
        assert hint is not None and fix in hint, (level, hint)


def _jitted_with_static_flag_inside_jit():
    inner = jax.jit(lambda x, flag: -x if flag else x, static_argnums=1)
    return jax.jit(lambda x, flag: inner(x, flag))(1.0, True)


def _python_float_updated():
    total = 0.0
    return total.at[0].set(1.0)


# Misuses whose error JAX (or NumPy) words in its own terms: each gets one sentence of cause, at every level.
MISUSE_ERRORS = [
    ("devices reshaped to a count written in", lambda: np.array(jax.devices()).reshape(2, 4),
     ("number of devices", "`jax.device_count`", "jax.device_count()")),
    ("psum over an axis no pmap names", lambda: jax.pmap(lambda x: lax.psum(x, "data"))(jnp.ones((1, 2))),
     ("axis name exists only inside", "`jax.pmap(axis_name=...)`", "axis_name='data'")),
    ("PartitionSpec axis not in the mesh", lambda: jax.device_put(jnp.ones(2), jax.sharding.NamedSharding(
        jax.make_mesh((1,), ("x",)), jax.sharding.PartitionSpec("data"))),
     ("axis name exists only inside", "`jax.sharding.PartitionSpec`", "PartitionSpec('data')")),
    ("a traced value reaches a static argument", _jitted_with_static_flag_inside_jit,
     ("cannot be static", "`jax.lax.cond`", "lax.cond(flag, ...)")),
    ("a per-example mean against the batch", lambda: jnp.ones((3, 4)) - jnp.ones((3, 4)).mean(axis=1),
     ("trailing axis of size 1", "keepdims=True", "v[:, None]")),
    ("a slice bound that is traced", lambda: jax.jit(lambda x, n: x[:n])(jnp.ones(4), 2),
     ("loop with JAX's loops", "`jax.lax.fori_loop`", "`lax.fori_loop` / `lax.while_loop`")),
    ("a size that is traced", lambda: jax.jit(lambda x, n: lax.dynamic_slice(x, (0,), (n,)))(jnp.ones(4), 2),
     ("loop with JAX's loops", "`jax.lax.fori_loop`", "`lax.fori_loop` / `lax.while_loop`")),
    ("a Python float where an array is needed", _python_float_updated,
     ("Make it a JAX array first", "`jax.numpy.asarray`", "jnp.asarray(value, dtype=jnp.float32)")),
]


@pytest.mark.parametrize("trigger, said", [e[1:] for e in MISUSE_ERRORS], ids=[e[0] for e in MISUSE_ERRORS])
def test_a_known_misuse_keeps_jaxs_error_and_adds_its_cause(trigger, said):
    with pytest.raises(Exception) as caught:
        trigger()
    _assert_levels(_hints_at_every_level(caught.value), said)


def test_an_array_as_a_static_argument_is_still_told_arrays_are_not_hashable():
    with pytest.raises(ValueError) as caught:
        jax.jit(lambda x, n: x, static_argnums=1)(1.0, jnp.ones(2))
    assert "hashable" in _hints_at_every_level(caught.value)["idea"]
    assert "traced value" not in _hints_at_every_level(caught.value)["idea"]


def test_a_refined_hint_keeps_the_errors_key_that_suites_tell_errors_apart_by():
    """03's and 08's suites retry a check when hint_key says "hint.UnhashableStatic": a tracer given to a static
    argument is still that error; only the sentence the student reads is the more precise one."""
    with pytest.raises(ValueError) as caught:
        _jitted_with_static_flag_inside_jit()
    described = describe_exception(caught.value)
    assert hint_key(described.mro, described.message) == "hint.UnhashableStatic"
    assert hint_for(described.mro, described.message) == messages.text("hint.StaticTraced")

