"""Feedback says each thing once, in the student's terms: retraces explained, arrays compact, places findable."""

from __future__ import annotations

import re

from conftest import REPO

from autograder.catalog import messages
from autograder.grade.pipeline import GradingOptions, grade_submission

CORPUS = REPO / "tests" / "corpus"


def _failed(config, seed, case: str, function: str) -> list:
    assignment, name = case.split("/")
    result = grade_submission(CORPUS / assignment / "mistakes" / f"{name}.py", config,
                              GradingOptions(seed=seed, sandbox="inprocess", assignment=assignment,
                                             functions={function}))
    return [c for c in result.checks if not c.passed]


def test_a_hint_is_said_once_per_function_and_later_checks_point_to_it(config, seed):
    failed = _failed(config, seed, "02_where/safe_log_python_if", "safe_log")
    assert len(failed) == 3
    everything = "\n".join(c.feedback for c in failed)
    assert everything.count("JAX's own control flow") == 1
    assert all(messages.text("call.said_above") in c.feedback for c in failed[1:])


def test_a_static_argument_that_changes_is_named_with_its_values_and_no_grader_internals(config, seed):
    (check,) = _failed(config, seed, "04_static_args/run_steps_static_num_steps", "run_steps")
    assert "Why JAX traced again:" in check.feedback
    assert re.search(r"argument 2 is static and changed \(\d+ → \d+, \d+ → \d+\)", check.feedback), check.feedback
    for internal in ("trace_counting.py", "TRACING CACHE MISS", "Static(val=", "pytree metadata", "/autograder/"):
        assert internal not in check.feedback


def test_a_function_jitted_again_per_call_is_named_with_its_line(config, seed):
    failed = _failed(config, seed, "05_grad_aux/fit_jit_partial_per_call", "fit")
    (check,) = [c for c in failed if c.prop == "train_step traced once in total"]
    assert "is a new function object at every call" in check.feedback
    assert " id=" not in check.feedback and "TRACING CACHE MISS" not in check.feedback


def test_wrong_values_show_a_compact_row_with_the_differing_entries_starred(config, seed):
    failed = _failed(config, seed, "01_immutable_updates/histogram_set_one", "histogram")
    feedback = failed[0].feedback
    got = next(line for line in feedback.splitlines() if line.strip().startswith("got:"))
    expected = next(line for line in feedback.splitlines() if line.strip().startswith("expected:"))
    assert "*1" in got and "*" in expected and len(got) <= 100 and len(expected) <= 100


def test_an_error_names_the_function_and_its_line_not_the_cell_position(config, seed):
    failed = _failed(config, seed, "02_where/selu_python_if", "selu")
    assert "(in `selu`, line " in failed[0].feedback and "[cell" not in failed[0].feedback


def test_a_stub_is_said_to_be_not_implemented_once_per_function(config, seed):
    result = grade_submission(REPO / "assignments" / "02_where" / "02_where.ipynb", config,
                              GradingOptions(seed=seed, sandbox="inprocess", functions={"selu"}))
    failed = [c for c in result.checks if not c.passed]
    assert len(failed) >= 2
    how_to_fix = messages.text("call.not_implemented", function="selu")
    everything = "\n".join(c.feedback for c in failed)
    assert everything.count(how_to_fix) == 1 and how_to_fix in failed[0].feedback
    assert all(c.feedback == messages.text("call.not_implemented_above", function="selu") for c in failed[1:])
