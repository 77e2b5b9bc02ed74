"""The suite author's API: one import, documented by its docstrings, and its new checks."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys

import numpy as np
import pytest
from conftest import REPO

from autograder.check.calls_shown import describe_grad_call
from autograder.protocol.errors import ChildError, ErrorKind
from autograder.suites import api

SUITES = sorted((REPO / "autograder" / "suites").glob("test_*.py"))
# The helpers whose failure a student reads: their docstrings must say arguments and what fails.
HELPERS = [name for name in api.__all__ if name.startswith(("expect_", "assert_"))]


def _reference_script():
    spec = importlib.util.spec_from_file_location("suite_api_reference", REPO / "scripts" / "suite_api_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("suite_api_reference", module)
    spec.loader.exec_module(module)
    return module


def test_the_guides_reference_is_generated_from_the_docstrings():
    """docs/writing-a-suite.md's reference is what `make suite-api-docs` writes now."""
    script = _reference_script()
    guide = script.GUIDE.read_text(encoding="utf-8")
    assert script.rewritten(guide) == guide, "docs/writing-a-suite.md is out of date: run `make suite-api-docs`"


@pytest.mark.parametrize("name", api.__all__)
def test_every_public_name_has_a_docstring(name):
    assert inspect.getdoc(getattr(api, name)), f"autograder.suites.api.{name} has no docstring"


@pytest.mark.parametrize("name", HELPERS)
def test_every_helper_says_its_arguments_and_what_the_student_reads(name):
    doc = inspect.getdoc(getattr(api, name))
    assert "Args:" in doc and "Raises:" in doc and "student" in doc, doc


@pytest.mark.parametrize("suite", SUITES, ids=lambda path: path.stem)
def test_suites_import_the_kit_only_through_the_api(suite):
    """A suite reaches the kit through autograder.suites.api (and its own catalog), never five modules."""
    tree = ast.parse(suite.read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    kit = {module for module in imported if module.startswith("autograder")}
    assert kit <= {"autograder.suites.api"}, f"{suite.name} imports {sorted(kit - {'autograder.suites.api'})}"


def test_the_api_reexports_the_objects_themselves():
    """The student package's recorder patches a suite's names by identity: no wrappers in between."""
    from autograder.check import compare, expectations
    from autograder.suites import expect

    assert api.assert_all_finite is compare.assert_all_finite
    assert api.assert_uses_primitive is expectations.assert_uses_primitive
    assert api.expect_raises is expect.expect_raises


# --- expected errors: one decision for the grader and the student's replay ---------------

def _raised(type_name: str, message: str, mro: tuple[str, ...] = ()) -> ChildError:
    return ChildError(ErrorKind.RAISED, message, "f", type_name, mro or (type_name, "Exception"))


def test_the_expected_error_with_its_words_passes():
    error = _raised("ValueError", "n must be positive, got -1", ("ValueError", "Exception"))
    assert api.expected_error_feedback(error, call="f(-1)", error_type="ValueError", mentions="positive") is None
    assert api.expected_error_feedback(error, call="f(-1)", error_type="Exception") is None  # a base class


def test_returning_normally_says_so():
    feedback = api.expected_error_feedback(None, call="f(-1)", error_type="ValueError")
    assert "f(-1)" in feedback and "ValueError" in feedback and "returned normally" in feedback


def test_another_error_is_named_with_its_first_line():
    feedback = api.expected_error_feedback(_raised("TypeError", "bad operand\nmore"), call="f(-1)",
                                           error_type="ValueError")
    assert "TypeError: bad operand" in feedback and "more" not in feedback


def test_the_right_error_without_the_words_quotes_its_message():
    feedback = api.expected_error_feedback(_raised("ValueError", "nope"), call="f(-1)", error_type="ValueError",
                                           mentions="positive")
    assert "'nope'" in feedback and "'positive'" in feedback


# --- gradients, sizes of intermediates, collectives -----------------------------------

def test_a_gradient_call_is_named_as_the_student_writes_it():
    x = np.zeros(17, np.float32)
    assert describe_grad_call("safe_log", (x,)) == "jax.grad(lambda x: safe_log(x).sum())(f32[17])"
    a = np.zeros((2, 8), np.float32)
    assert (describe_grad_call("checked_divide", (a, a), argnums=(0, 1))
            == "jax.grad(lambda a, b: checked_divide(a, b).sum(), argnums=(0, 1))(f32[2, 8], f32[2, 8])")
    assert (describe_grad_call("selu", (x,), {"alpha": 1.5})
            == "jax.grad(lambda x: selu(x, alpha=1.5).sum())(f32[17])")


def _facts(**fields) -> api.ProgramFacts:
    return api.ProgramFacts(primitives=frozenset(fields.pop("primitives", ())), equation_count=3, **fields)


def test_no_value_larger_than_a_limit():
    api.assert_no_value_larger_than(_facts(largest_value_elements=64), 64, function="f", what="w", fix="x")
    with pytest.raises(AssertionError, match="4096"):
        api.assert_no_value_larger_than(_facts(largest_value_elements=4096), 64, function="pairwise",
                                        what="no m·n matrix", fix="Reduce as you go.")


def test_uses_a_collective():
    api.assert_uses_collective(_facts(primitives={"all_reduce", "add"}), function="f", why="w")
    api.assert_uses_collective(_facts(primitives={"all_gather"}), ["all_gather"], function="f", why="w")
    with pytest.raises(AssertionError, match="all_reduce"):
        api.assert_uses_collective(_facts(primitives={"all_gather"}), ["all_reduce"], function="f", why="w")
    with pytest.raises(AssertionError, match="none"):
        api.assert_uses_collective(_facts(primitives={"add"}), function="f", why="w")
