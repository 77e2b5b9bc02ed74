"""A function's first failed check leads with the most causal hint that any of its failed checks found."""

from __future__ import annotations

from autograder.catalog import messages
from autograder.check.cause_first import lead_with_the_cause, recipe_sentences
from autograder.check.failure import Failure, FailureKind
from autograder.check.results import CheckResult
from autograder.check.said_once import say_each_thing_once


def _failed(function: str, prop: str, detail: str, *hints: str) -> CheckResult:
    check = CheckResult(function, prop, 0.0, 1.0, False, "")
    return check.failing_with(Failure(detail, FailureKind.STUDENT_CODE, hints=hints))


def test_a_tracing_error_found_under_jit_is_the_first_hint_of_the_values_check():
    numpy_used = messages.text("hint.TracerArrayConversionError")
    values = _failed("power_iteration", "correct", "power_iteration(f32[5, 5], 3) returned dtype float64.",
                     "The exercise's recipe.")
    jitted = _failed("power_iteration", "jittable", "jit(power_iteration(...)) raised TracerArrayConversionError.",
                     numpy_used)
    first, second = say_each_thing_once(lead_with_the_cause([values, jitted]))
    assert first.failure.hints == (numpy_used, "The exercise's recipe.")
    assert first.feedback.index(numpy_used) < first.feedback.index("The exercise's recipe.")
    assert numpy_used not in second.feedback and messages.text("call.said_above") in second.feedback


def test_the_most_causal_hint_wins_and_a_first_hint_as_causal_is_kept():
    bool_hint, numpy_hint = messages.text("hint.TracerBoolConversionError"), messages.text(
        "hint.TracerArrayConversionError")
    checks = [_failed("f", "correct", "d1", "recipe"), _failed("f", "jit", "d2", bool_hint),
              _failed("f", "once", "d3", numpy_hint)]
    assert lead_with_the_cause(checks)[0].failure.hints == (numpy_hint, "recipe")
    already = [_failed("f", "correct", "d1", numpy_hint), _failed("f", "jit", "d2", bool_hint)]
    assert lead_with_the_cause(already) == already


def test_hints_that_name_no_cause_and_other_functions_are_left_where_they_are():
    checks = [_failed("f", "correct", "d1", "recipe"), _failed("f", "jit", "d2", "another idea"),
              _failed("g", "correct", "d3", messages.text("hint.TracerBoolConversionError"))]
    assert lead_with_the_cause(checks) == checks


def test_the_exercise_recipe_is_said_after_every_hint_never_as_the_first():
    recipe = messages.text("09_autodiff.safe_norm.values")
    relation = messages.text("relation.offset", offset="1e-06")
    alone = _failed("safe_norm", "correct", "safe_norm(f32[5]) returned wrong values: got 1e-06, expected 0.",
                    recipe)
    related = _failed("safe_norm", "jittable", "jit(safe_norm(f32[5])) returned wrong values.", recipe, relation)
    first, second = lead_with_the_cause([alone, related])
    assert first.failure.hints == () and first.failure.recipes == (recipe,)
    assert first.feedback.startswith("safe_norm(f32[5]) returned wrong values")
    assert messages.text("call.hint", hint=recipe) not in first.feedback
    assert messages.text("call.recipe", recipe=recipe) in first.feedback
    assert second.failure.hints == (relation,)
    assert second.feedback.index(relation) < second.feedback.index(recipe)


def test_a_recipe_replayed_as_advice_is_said_after_the_hints_too():
    recipe = messages.text("09_autodiff.safe_norm.values")
    relation = messages.text("relation.offset", offset="1e-06")
    check = CheckResult("safe_norm", "correct", 0.0, 1.0, False, "").failing_with(
        Failure("d", FailureKind.WRONG_VALUES, advice=(recipe,), hints=(relation,)))
    (led,) = lead_with_the_cause([check])
    assert led.failure.advice == () and led.failure.recipes == (recipe,)
    assert led.feedback.index(relation) < led.feedback.index(recipe)


def test_a_recipe_said_by_an_earlier_check_of_the_function_is_not_repeated():
    recipe = messages.text("09_autodiff.safe_norm.values")
    checks = [_failed("safe_norm", "correct", "d1", recipe), _failed("safe_norm", "jittable", "d2", recipe)]
    first, second = say_each_thing_once(lead_with_the_cause(checks))
    assert recipe in first.feedback and recipe not in second.feedback
    assert messages.text("call.said_above") in second.feedback


def test_every_recipe_restated_by_a_suite_is_recognised_as_one():
    recipes = recipe_sentences()
    for key in ("09_autodiff.safe_norm.values", "06_prng.dropout.recipe", "05_grad_aux.train_step.params",
                "10_parallel.global_mean.values"):
        assert messages.text(key) in recipes, key
    # A hint that names a cause is not one.
    assert messages.text("09_autodiff.safe_norm.gradient") not in recipes
    assert messages.text("hint.TracerBoolConversionError") not in recipes
