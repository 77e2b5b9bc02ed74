"""Everything a grading suite needs, in one import: `from autograder.suites.api import ...`.

A thin public layer over `autograder.check` and `autograder.suites.expect`
(as chex's `__init__` is over its `_src`): the names below are the suite
author's interface, documented by their own docstrings, from which
`docs/writing-a-suite.md`'s reference is generated
(`make suite-api-docs`; `tests/test_suite_api.py` fails when it drifts).
Each is the very object it re-exports, so the student package's recorder,
which patches a suite's names, still finds them.
"""

from __future__ import annotations

from autograder.catalog.message_ref import joined
from autograder.catalog.messages import has as has_text
from autograder.catalog.messages import text
from autograder.check.calls_shown import describe_call, describe_grad_call
from autograder.check.compare import (
    assert_all_finite,
    assert_close,
    assert_dtype,
    assert_equal,
    assert_same_shapes,
    assert_same_structure,
    describe_structure,
)
from autograder.check.expectations import (
    assert_no_host_callbacks,
    assert_no_value_larger_than,
    assert_not_unrolled,
    assert_trace_count,
    assert_uses_collective,
    assert_uses_primitive,
    expected_error_feedback,
)
from autograder.check.failure import CheckFailed, Failure, fail, failure_of, what_happened, with_advice, with_hint
from autograder.check.jax_error_hints import hint_key
from autograder.check.known_mistakes import Mistake, named_mistake
from autograder.check.pytest_plugin import graded, sizes_for
from autograder.check.submission import ProgramFacts, StudentCodeError, Submission, TraceReport
from autograder.check.typed_key import TypedKey
from autograder.check.value_relations import relation_hint
from autograder.protocol.errors import ErrorKind
from autograder.suites.expect import (
    advice_when_raised,
    comparing_values,
    expect_gradient,
    expect_jittable,
    expect_jittable_on_devices,
    expect_jitted,
    expect_output,
    expect_placement,
    expect_raises,
    expect_trace_count,
)

__all__ = [
    # marking a test and drawing sizes
    "graded",
    "sizes_for",
    # call and compare
    "expect_output",
    "expect_jittable",
    "expect_gradient",
    "expect_trace_count",
    "expect_placement",
    "expect_jittable_on_devices",
    "expect_jitted",
    "expect_raises",
    "expected_error_feedback",
    # a failure as a value: raised, given advice or a hint, marked as wrong values
    "fail",
    "failure_of",
    "what_happened",
    "with_advice",
    "with_hint",
    "comparing_values",
    "advice_when_raised",
    # known mistakes, named from the values they give
    "Mistake",
    "named_mistake",
    "relation_hint",
    # comparisons
    "assert_close",
    "assert_equal",
    "assert_dtype",
    "assert_all_finite",
    "assert_same_structure",
    "assert_same_shapes",
    # the program and its traces
    "assert_uses_primitive",
    "assert_not_unrolled",
    "assert_no_host_callbacks",
    "assert_no_value_larger_than",
    "assert_uses_collective",
    "assert_trace_count",
    # naming things in feedback
    "describe_call",
    "describe_grad_call",
    "describe_structure",
    "hint_key",
    "text",
    "joined",
    "has_text",
    # types
    "Submission",
    "StudentCodeError",
    "CheckFailed",
    "Failure",
    "TypedKey",
    "ProgramFacts",
    "TraceReport",
    "ErrorKind",
]
