""""No Python loop" is judged on what an unrolled loop repeats: counts per kind of operation.

The clean room counts the operations of each kind in a program
(ProgramFacts.operation_counts). A loop unrolled at trace time repeats its
own kinds once per entry; padding of other kinds, whether it shrinks or grows
with the input size, cannot hide that, where it could hide it in the total
count (set_diagonal padded with additions whose number falls as n grows scored
full marks). Honest programs, whose every kind keeps its count, pass.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

from autograder.check.expectations import assert_not_unrolled
from autograder.cleanroom import module_walk
from autograder.protocol.program_facts import ProgramFacts

N_SMALL, N_LARGE = 5, 37
PADDING_BUDGET = 400  # more padding operations than the loop makes at N_LARGE


def _facts(set_diagonal, n: int) -> ProgramFacts:
    exported = jax.export.export(jax.jit(set_diagonal))(jax.ShapeDtypeStruct((n, n), jnp.float32),
                                                        jax.ShapeDtypeStruct((n,), jnp.float32))
    return module_walk.facts_of(exported)


def _pad(m, count: int):
    """`count` value-neutral operations of several kinds (additions, multiplications, maxima, selects)."""
    neutral = jnp.float32(0)
    for i in range(count):
        kind = i % 4
        neutral = (neutral + 0.0 if kind == 0 else neutral * 1.0 if kind == 1 else
                   jnp.maximum(neutral, -1.0) if kind == 2 else jnp.where(neutral > 1e9, 1.0, neutral))
    return m + neutral


def _looped(padding):
    def set_diagonal(m, values):
        n = m.shape[0]
        for i in range(n):
            m = m.at[i, i].set(values[i])
        return _pad(m, padding(n))
    return set_diagonal


def _honest(m, values):
    idx = jnp.arange(m.shape[0])
    return m.at[idx, idx].set(values)


@pytest.mark.parametrize("padding", [lambda n: PADDING_BUDGET - 8 * n, lambda n: 8 * n, lambda n: 0],
                         ids=["falls as n grows", "grows with n", "none"])
def test_an_unrolled_loop_is_caught_however_it_is_padded(padding):
    small, large = _facts(_looped(padding), N_SMALL), _facts(_looped(padding), N_LARGE)
    with pytest.raises(AssertionError) as failed:
        assert_not_unrolled(small, large, function="set_diagonal", n_small=N_SMALL, n_large=N_LARGE, fix="")
    assert "unrolled into the program" in str(failed.value), "a kind grew by one operation per entry at least"


def test_padding_that_falls_as_n_grows_shrinks_the_total_count():
    """Not vacuous: the total count alone would have passed the padded loop."""
    padded = _looped(lambda n: PADDING_BUDGET - 8 * n)
    assert _facts(padded, N_LARGE).equation_count <= _facts(padded, N_SMALL).equation_count


def test_an_honest_program_keeps_every_kind_at_every_size():
    small, large = _facts(_honest, N_SMALL), _facts(_honest, N_LARGE)
    assert small.operation_counts == large.operation_counts
    assert_not_unrolled(small, large, function="set_diagonal", n_small=N_SMALL, n_large=N_LARGE, fix="")


def test_the_feedback_names_the_kind_that_grew_with_its_counts():
    small, large = _facts(_looped(lambda n: 0), N_SMALL), _facts(_looped(lambda n: 0), N_LARGE)
    with pytest.raises(AssertionError) as failed:
        assert_not_unrolled(small, large, function="set_diagonal", n_small=N_SMALL, n_large=N_LARGE, fix="")
    grown = dict(large.operation_counts)["scatter"] - dict(small.operation_counts)["scatter"]
    assert grown == N_LARGE - N_SMALL
    assert f"n={N_SMALL}" in str(failed.value) and f"n={N_LARGE}" in str(failed.value)
