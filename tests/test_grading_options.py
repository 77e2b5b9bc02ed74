"""GradingOptions: what a caller decides about grading, checked where it is made."""

import pytest

from autograder.grade.pipeline import SANDBOX_MODES, GradingOptions


def test_an_unknown_sandbox_mode_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"sandbox is 'strict'; expected one of \('os', 'process', 'inprocess'\)"):
        GradingOptions(seed=1, sandbox="strict")


def test_functions_are_kept_as_a_frozen_set_whatever_collection_is_given():
    assert GradingOptions(seed=1, functions=["selu", "selu"]).functions == frozenset({"selu"})
    assert GradingOptions(seed=1).functions is None and GradingOptions(seed=1).sandbox == SANDBOX_MODES[0]
