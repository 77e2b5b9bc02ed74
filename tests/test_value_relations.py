"""A wrong value is related to the expected one when one relation accounts for every entry, and never otherwise.

Each relation is shown firing on the values that code with that mistake
returns, and staying silent on the values a correct solution returns (equal
within the checks' tolerances), on a single scalar that a coincidence would
explain, and where the reference satisfies the relation itself.
"""

from __future__ import annotations

import re
import string

import numpy as np
import pytest

from autograder.catalog import messages
from autograder.check.value_relations import relation_hint

F32 = np.float32
RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 6)).astype(F32)
POSITIVE = (np.abs(X) + 0.5).astype(F32)
# Both signs and some exact zeros, as the input of safe_log.
SIGNS = np.where(RNG.random(12) < 0.25, 0, RNG.standard_normal(12)).astype(F32)


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


CASES = {
    "relation.wider_dtype": (X.astype(np.float64), X, ()),
    "relation.not_finite": (np.where(X > 0, np.log(np.abs(X)), np.nan).astype(F32),
                            np.where(X > 0, np.log(np.abs(X)), 0).astype(F32), ()),
    "relation.one_entry_more": (np.concatenate([np.zeros((4, 1), F32), X], axis=1), X, ()),
    "relation.one_entry_less": (X[:, :-1], X, ()),
    "relation.padded_ends": (np.pad(X, ((0, 0), (1, 1))), X, ()),
    "relation.axes_swapped": (X.T.copy(), X, ()),
    "relation.reversed": (X[:, ::-1].copy(), X, ()),
    "relation.shifted": (np.concatenate([np.zeros((4, 1), F32), X[:, :-1]], axis=1), X, ()),
    "relation.shifted[earlier]": (np.concatenate([X[:, 1:], np.zeros((4, 1), F32)], axis=1), X, ()),
    "relation.flipped_sign": (-X, X, ()),
    "relation.scaled": (4 * X, X, ()),
    "relation.offset": (X + F32(1e-3), X, ()),
    "relation.floored": (np.maximum(X, F32(1e-6)), X, ()),
    "relation.extra_function": (np.log(_softmax(X)).astype(F32), X, ()),
    "relation.missing_function": (POSITIVE ** 2, POSITIVE, ()),
    # log(x + eps) for a log guarded to give 0 where x <= 0: NaN below -eps, log(eps) at 0.
    "relation.constant_inside": (np.log(SIGNS + F32(1e-6), where=SIGNS + F32(1e-6) > 0,
                                        out=np.full(SIGNS.shape, np.nan, F32)),
                                 np.where(SIGNS > 0, np.log(np.where(SIGNS > 0, SIGNS, 1)), 0).astype(F32), (SIGNS,)),
    "relation.partial_step": (np.asarray(0.5 + 0.1 * (2.0 - 0.5), F32), np.asarray(2.0, F32),
                              ("quartic", np.asarray(0.5, F32), 1)),
    # Parameters in a dict: the step of a sum over 4 devices where the mean is meant, from each parameter.
    "relation.step_multiplied": ({"b": F32(0.3 - 4 * 0.2), "w": F32(-0.5 - 4 * 0.1)}, {"b": F32(0.1), "w": F32(-0.6)},
                                 ({"b": F32(0.3), "w": F32(-0.5)}, X[:3], X[:3], F32(0.1))),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_each_relation_is_named_when_it_holds_on_every_entry(key):
    actual, expected, args = CASES[key]
    key = key.split("[")[0]  # a second case of one relation: "[...]" says which
    hint = relation_hint(actual, expected, args)
    assert hint == messages.text(key, **_said_fields(hint, key)), hint


def _said_fields(hint: str | None, key: str) -> dict:
    """The fields of `key`'s sentence as `hint` fills them (so the comparison is of the whole sentence)."""
    assert hint is not None, f"{key}: no relation found"
    parts = [literal for literal, _, _, _ in string.Formatter().parse(messages.ENGLISH[key])]
    names = [name for _, name, _, _ in string.Formatter().parse(messages.ENGLISH[key]) if name]
    pattern = "(.*?)".join(re.escape(part) for part in parts[:len(names) + 1]) + ".*"
    found = re.fullmatch(pattern, hint, re.S)
    assert found, f"{key}: {hint!r}"
    return dict(zip(names, found.groups(), strict=False))


def test_the_relations_say_the_numbers_they_found():
    assert "4 times" in relation_hint(4 * X, X)
    assert "plus 0.001 " in relation_hint(X + F32(1e-3), X)
    assert "0.1 of the way" in relation_hint(*CASES["relation.partial_step"][:2], CASES["relation.partial_step"][2])
    assert "`jax.nn.log_softmax`" in relation_hint(*CASES["relation.extra_function"][:2])
    assert "`jnp.sqrt`" in relation_hint(*CASES["relation.missing_function"][:2])
    steps = np.asarray([1, -1, -1, 1, 1], np.int32)
    assert "`jnp.cumsum`" in relation_hint(steps, np.cumsum(steps).astype(np.int32))
    assert "float64 where JAX computes float32" in relation_hint(X.astype(np.float64), X)
    assert "moved -1 times the expected step" in relation_hint(np.asarray(-1.0, F32), np.asarray(2.0, F32),
                                                                (np.asarray(0.5, F32),))


def test_a_tuple_holding_the_expected_value_is_named_with_the_items_place():
    assert relation_hint((X + 1, X), X) == messages.text("relation.wrapped", index="1", count="2")
    assert relation_hint((X,), X) == messages.text("relation.wrapped", index="0", count="1")
    assert relation_hint((X + 1, X + 2), X) is None


def test_a_scalar_eps_where_zero_is_expected_is_a_floor():
    hint = relation_hint(np.asarray(1e-4, F32), np.asarray(0.0, F32))
    assert hint == messages.text("relation.floored", floor="0.0001")


@pytest.mark.parametrize("key", sorted(CASES))
def test_no_relation_is_said_for_values_within_the_tolerance(key):
    _, expected, args = CASES[key]
    leaves = expected if isinstance(expected, dict) else {"": expected}
    noisy = {name: (leaf * (1 + F32(3e-6))).astype(leaf.dtype) for name, leaf in leaves.items()}
    assert relation_hint(noisy, leaves, args) is None
    assert relation_hint(dict(leaves), leaves, args) is None


def test_a_single_wrong_scalar_is_related_to_nothing_a_coincidence_would_explain():
    assert relation_hint(np.asarray(3.7, F32), np.asarray(2.2, F32)) is None
    # 0.3721 of the way from the start: any scalar between start and answer is some fraction of the way.
    assert relation_hint(np.asarray(0.5 + 0.3721 * 1.5, F32), np.asarray(2.0, F32), (np.asarray(0.5, F32),)) is None
    # A count argument (num_steps) is no start.
    assert relation_hint(np.asarray(1.5, F32), np.asarray(2.0, F32), (1,)) is None


def test_a_reference_that_satisfies_the_relation_itself_proves_nothing():
    symmetric = (X[:, :4] @ X[:, :4].T).astype(F32)
    palindrome = np.asarray([1.0, 2.0, 3.0, 2.0, 1.0], F32)
    positive = np.asarray([1.0, 2.0, 3.0], F32)
    wrong = positive + np.asarray([0.5, -1.0, 2.0], F32)
    assert relation_hint(symmetric.T.copy() + 1, symmetric) == messages.text("relation.offset", offset="1")
    assert relation_hint(palindrome[::-1] * 2, palindrome) == messages.text("relation.scaled", factor="2",
                                                                             inverse="0.5")
    assert relation_hint(wrong, positive) is None  # abs(positive) == positive: no jnp.abs relation either


def test_unrelated_wrong_values_have_no_relation():
    other = RNG.standard_normal(X.shape).astype(F32)
    assert relation_hint(other, X) is None
    assert relation_hint({"w": X, "b": other}, {"w": X, "b": X}) is None


def test_only_the_first_differing_leaf_of_a_pytree_is_related():
    hint = relation_hint({"w": X, "b": -X}, {"w": X, "b": X})
    assert hint == messages.text("relation.flipped_sign")


# A batch of 5 examples (the first axis of the inputs of two or more axes), and its targets.
BATCH = (RNG.standard_normal((5, 3)).astype(F32), RNG.standard_normal(5).astype(F32))


def test_a_factor_that_is_the_device_count_is_said_to_be_it():
    devices = messages.text("relation.count_devices", count=4)
    assert relation_hint(4 * X, X, (), devices=4) == devices + " " + messages.text("relation.scaled", factor="4",
                                                                                  inverse="0.25")
    assert relation_hint(X / 4, X, (), devices=4).startswith(devices)
    step = CASES["relation.step_multiplied"]
    assert relation_hint(step[0], step[1], step[2], devices=4).startswith(devices)
    # Without devices, or with a count a missing 1/2 would explain as well, only the factor is said.
    assert relation_hint(4 * X, X, ()) == messages.text("relation.scaled", factor="4", inverse="0.25")
    assert relation_hint(2 * X, X, (), devices=2) == messages.text("relation.scaled", factor="2", inverse="0.5")


def test_a_factor_that_is_the_batch_size_is_said_to_be_it():
    batch = messages.text("relation.count_batch", count=5)
    assert relation_hint(5 * X, X, BATCH).startswith(batch)
    assert relation_hint(X / 5, X, BATCH).startswith(batch)
    assert batch not in relation_hint(4 * X, X, BATCH)
    # The batch and the devices of the same size: either could be the cause, so neither is named.
    said = relation_hint(5 * X, X, BATCH, devices=5)
    assert batch not in said and messages.text("relation.count_devices", count=5) not in said


def test_a_loss_summed_over_the_batch_where_the_mean_is_meant_is_named_though_it_is_one_number():
    mean = np.asarray(0.8123, F32)
    batch = messages.text("relation.count_batch", count=5)
    assert relation_hint((5 * mean, {"mse": mean}), (mean, {"mse": mean}), ({"w": F32(1)}, *BATCH)) == \
        batch + " " + messages.text("relation.scaled", factor="5", inverse="0.2")
    assert relation_hint(mean / 5, mean, BATCH).startswith(batch)
    # Any other ratio of one number is a coincidence: nothing is said.
    assert relation_hint(4.3 * mean, mean, BATCH) is None
    assert relation_hint(5 * mean, mean, ()) is None


def test_inputs_and_targets_of_one_axis_are_a_batch_but_one_sequence_is_not():
    x, y = RNG.standard_normal(6).astype(F32), RNG.standard_normal(6).astype(F32)
    mean = np.asarray(0.4321, F32)
    assert relation_hint(6 * mean, mean, ({"w": F32(1)}, x, y)).startswith(messages.text("relation.count_batch",
                                                                                          count=6))
    assert messages.text("relation.count_batch", count=6) not in relation_hint(6 * x, x, (x,))
