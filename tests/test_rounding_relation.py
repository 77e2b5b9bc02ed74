"""A wrong float32 value is said to be float32 rounding only when the same code, run in 64 bits, is right.

The variance of values far from 0 written as E[x²] - E[x]² cancels: in
float32 it loses every digit, in float64 it is the variance. A wrong formula
(a missing square, an eps), code that computes in float32 whatever JAX's mode
(an explicit cast) and code that fails in 64 bits are not rounding, and the
sentence never says they are. Both paths say it: grading's `expect_output`
and the student package's replay of a recorded call.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from autograder.catalog import messages
from autograder.check.failure import failure_of
from autograder.check.rounding_relation import rounding_hint
from autograder.check.submission import Submission
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.student import recorded, replay
from autograder.suites.expect import expect_output

CODE = textwrap.dedent('''
    import jax.numpy as jnp

    def cancelling_variance(x):
        return jnp.mean(x ** 2) - jnp.mean(x) ** 2

    def two_pass_variance(x):
        return jnp.mean((x - jnp.mean(x)) ** 2)

    def variance_plus_eps(x):
        return jnp.mean((x - jnp.mean(x)) ** 2) + 1e-3

    def second_moment(x):
        return jnp.mean(x ** 2)

    def cancelling_in_float32_always(x):
        x = x.astype(jnp.float32)
        return jnp.mean(x ** 2) - jnp.mean(x) ** 2

    def raising_in_64_bits(x):
        if x.dtype == jnp.float64:
            raise ValueError("only float32")
        return jnp.mean(x ** 2) - jnp.mean(x) ** 2

    def rows_cancelling(x):
        return jnp.mean(x ** 2) - jnp.mean(x) ** 2

    def cancelling_in_a_list(x):
        return [jnp.mean(x ** 2) - jnp.mean(x) ** 2]
''')


@pytest.fixture(scope="module")
def submission(tmp_path_factory):
    path = tmp_path_factory.mktemp("rounding") / "variances.py"
    path.write_text(CODE)
    namespace, report = load_namespace(read(path), 60)
    return Submission(InProcessTransport(namespace, report, 30, 240), report.notes)


@pytest.fixture(scope="module")
def far_from_zero():
    """Values about 3000 with a spread of about 1: their float32 squares keep no digit of the spread."""
    return (3000.0 + np.random.default_rng(3).normal(size=64)).astype(np.float32)


def _variance(x):
    x = np.asarray(x, dtype=np.float64)
    return np.asarray(np.mean((x - x.mean()) ** 2))


def test_cancellation_that_is_right_in_64_bits_is_said_to_be_rounding(submission, far_from_zero):
    got = submission.call("cancelling_variance", far_from_zero)
    assert not np.isclose(got, _variance(far_from_zero), rtol=1e-5)  # the float32 value is wrong
    said = rounding_hint(submission, "cancelling_variance", (far_from_zero,), {}, _variance(far_from_zero), {})
    assert said == messages.text("relation.float32_rounding")


@pytest.mark.parametrize("function", ["variance_plus_eps", "second_moment", "cancelling_in_float32_always",
                                      "raising_in_64_bits", "cancelling_in_a_list"])
def test_what_is_not_rounding_is_never_said_to_be(submission, far_from_zero, function):
    assert rounding_hint(submission, function, (far_from_zero,), {}, _variance(far_from_zero), {}) is None


def test_a_call_with_nothing_to_widen_is_not_made_again(submission):
    integers = np.arange(8, dtype=np.int32)
    assert rounding_hint(submission, "cancelling_variance", (integers,), {}, np.asarray(5.25), {}) is None


def test_a_jit_call_is_made_again_as_a_plain_one(submission, far_from_zero):
    said = rounding_hint(submission, "cancelling_variance", (far_from_zero,), {}, _variance(far_from_zero),
                         {"mode": "jit"})
    assert said == messages.text("relation.float32_rounding")


def test_vmap_calls_keep_their_mode(submission, far_from_zero):
    rows = np.stack([far_from_zero, far_from_zero[::-1] + 1])
    expected = np.stack([_variance(row) for row in rows])
    said = rounding_hint(submission, "rows_cancelling", (rows,), {}, expected, {"mode": "vmap"})
    assert said == messages.text("relation.float32_rounding")


def test_grading_says_it_first_when_no_other_relation_holds(submission, far_from_zero):
    with pytest.raises(AssertionError) as raised:
        expect_output(submission, "cancelling_variance", (far_from_zero,), _variance(far_from_zero),
                      hint="the exercise's recipe")
    failure = failure_of(raised.value)
    assert failure.hints[0] == messages.text("relation.float32_rounding"), failure.hints


def test_a_check_of_work_spread_over_the_devices_asks_it_too(submission, far_from_zero):
    """`on_devices` lets a wrong value be a factor of the device count; it does not stop the 64-bit question."""
    with pytest.raises(AssertionError) as raised:
        expect_output(submission, "cancelling_variance", (far_from_zero,), _variance(far_from_zero),
                      hint="the exercise's recipe", on_devices=True)
    assert failure_of(raised.value).hints[0] == messages.text("relation.float32_rounding")


def test_the_sentence_is_in_korean_too():
    messages.choose("ko")
    try:
        korean = messages.text("relation.float32_rounding")
    finally:
        messages.choose(None)
    assert "float32" in korean and korean != messages.ENGLISH["relation.float32_rounding"]


def test_the_student_package_says_it_on_a_recorded_call(submission, far_from_zero):
    arrays: list[np.ndarray] = []
    step = {"function": "cancelling_variance", "args": recorded.encode((far_from_zero,), arrays),
            "kwargs": recorded.encode({}, arrays), "outcome": {"value": recorded.encode(_variance(far_from_zero),
                                                                                         arrays)}}
    with pytest.raises(AssertionError) as raised:
        replay._call(step, arrays, submission, {})
    assert failure_of(raised.value).hints[0] == messages.text("relation.float32_rounding")
