""""No Python loop" is judged on what an unrolled loop repeats: counts per kind of operation.

The clean room counts the operations of each kind in a program
(ProgramFacts.operation_counts). A loop unrolled at trace time repeats its
own kinds once per entry; padding of other kinds, whether it shrinks or grows
with the input size, cannot hide that, where it could hide it in the total
count (set_diagonal padded with additions whose number falls as n grows scored
full marks). Honest programs, whose every kind keeps its count, pass.

Padding with the loop's own kinds, C - n more of each for C above every drawn
size, keeps every count the same at both sizes; what it cannot change is that
a loop over n entries leaves at least n operations of some kind at size n. The
large size is drawn far above the most operations of one kind a correct program
holds, so a kind with n_large operations or more at n_large is a loop unrolled.
"""

from __future__ import annotations

import ast
import re

import jax
import jax.numpy as jnp
import pytest
from conftest import REPO

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


# The largest sizes the suites draw for set_diagonal (01) and convolve (10): the padding budgets
# below are above them, so the padded programs hold the same count of every kind at both sizes.
SAME_KIND_SIZES = {"set_diagonal": (5, 96), "convolve": (6, 64)}
SAME_KIND_BUDGETS = (200, 1000)


def _padded_with_own_kind(budget: int):
    """set_diagonal as a Python loop, one scatter per entry, after `budget - n` scatters of the same shape
    (indices read from an iota, as the loop's are, so no index constant grows with n either)."""
    def set_diagonal(m, values):
        n = m.shape[0]
        idx = jnp.arange(n)
        for _ in range(budget - n):
            m = m.at[idx[0], idx[0]].set(values[0])  # overwritten by the loop below
        for i in range(n):
            m = m.at[idx[i], idx[i]].set(values[i])
        return m
    return set_diagonal


def _convolve_padded_with_own_kind(budget: int):
    """convolve as a Python loop over the n - 2 outputs, with `budget - (n - 2)` more of the same term, dropped."""
    def convolve(x, w):
        n = x.shape[0]
        terms = [x[i] * w[0] + x[i + 1] * w[1] + x[i + 2] * w[2] for i in range(n - 2)]
        terms += [x[0] * w[0] + x[1] * w[1] + x[2] * w[2] for _ in range(budget - (n - 2))]
        return jnp.stack(terms)[: n - 2]
    return convolve


def _convolve_facts(convolve, n: int) -> ProgramFacts:
    exported = jax.export.export(jax.jit(convolve))(jax.ShapeDtypeStruct((n,), jnp.float32),
                                                    jax.ShapeDtypeStruct((3,), jnp.float32))
    return module_walk.facts_of(exported)


@pytest.mark.parametrize("budget", SAME_KIND_BUDGETS)
@pytest.mark.parametrize("function", sorted(SAME_KIND_SIZES))
def test_a_loop_padded_with_its_own_kinds_is_caught_at_the_large_size(function, budget):
    n_small, n_large = SAME_KIND_SIZES[function]
    small, large = ((_facts(_padded_with_own_kind(budget), n) if function == "set_diagonal"
                     else _convolve_facts(_convolve_padded_with_own_kind(budget), n)) for n in (n_small, n_large))
    # Not vacuous: every kind holds the same count at both sizes, so no kind grows.
    assert small.operation_counts == large.operation_counts
    with pytest.raises(AssertionError) as failed:
        assert_not_unrolled(small, large, function=function, n_small=n_small, n_large=n_large, fix="")
    said = str(failed.value)
    assert f"for n={n_large} entries, at least one per entry" in said, said
    named = re.search(r"holds (\d+) `(\w+)` operations", said)
    assert named and int(named[1]) == dict(large.operation_counts)[named[2]] >= budget, said


def test_correct_programs_hold_far_fewer_of_each_kind_than_the_smallest_drawn_size():
    """The separation the rule rests on, on two honest programs at the largest drawn size."""
    def convolve(x, w):
        return x[:-2] * w[0] + x[1:-1] * w[1] + x[2:] * w[2]
    for facts, smallest_large in ((_facts(_honest, 96), 40), (_convolve_facts(convolve, 64), 32)):
        assert max(count for _, count in facts.operation_counts) * 2 < smallest_large, facts.operation_counts


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assigned_from(function: ast.FunctionDef) -> dict[str, ast.AST]:
    """Each local name the function assigns, and the expression it is assigned from (paired in tuples)."""
    found: dict[str, ast.AST] = {}
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                    and len(target.elts) == len(node.value.elts):
                pairs = list(zip(target.elts, node.value.elts, strict=True))
            else:
                pairs = [(element, node.value) for element in
                         (target.elts if isinstance(target, ast.Tuple) else [target])]
            found.update({t.id: value for t, value in pairs if isinstance(t, ast.Name)})
    return found


def test_every_no_python_loop_check_draws_its_sizes_from_the_runs_hidden_seed():
    """No suite judges "no Python loop" at fixed sizes: n_small and n_large are drawn from `rng` (the run's
    hidden seed) in the check itself, so the student package records only the public seed's draws."""
    suites = sorted((REPO / "autograder" / "suites").glob("test_*.py"))
    checked = []
    for path in suites:
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef):
                continue
            calls = [c for c in ast.walk(function) if isinstance(c, ast.Call)
                     and getattr(c.func, "id", getattr(c.func, "attr", "")) == "assert_not_unrolled"]
            assigned = _assigned_from(function)
            for call in calls:
                sizes = {k.arg: k.value for k in call.keywords if k.arg in ("n_small", "n_large")}
                for name, value in sizes.items():
                    where = f"{path.name}::{function.name} {name}"
                    assert isinstance(value, ast.Name) and value.id in assigned, f"{where} is not drawn in the check"
                    assert "rng" in _names_in(assigned[value.id]), f"{where} is not drawn from rng"
                checked.append(f"{path.name}::{function.name}")
    assert len(checked) == 9, checked  # 01, 03, 07 (three), 08 (two), 09, 10
