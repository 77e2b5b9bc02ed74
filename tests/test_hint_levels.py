"""Hints in levels: the JAX idea, then the API to read about, then a worked recipe; grading.toml chooses."""

from __future__ import annotations

import dataclasses
import string

import pytest
from conftest import REPO

from autograder import grading_config
from autograder.catalog import hint_ideas, messages
from autograder.grade.pipeline import GradingOptions, grade_submission

# The gradient of a single `jnp.where` is NaN at 0: the double-where hint, in its levels.
SINGLE_WHERE = REPO / "tests" / "corpus" / "02_where" / "mistakes" / "safe_log_single_where.py"
IDEA = "the double-where idiom"  # in the hint's idea (and so at the api level)
RECIPE_CODE = "`safe_x = jnp.where(x > 0, x, 1.0)`"  # in the hint's recipe, and in no other level


def _single_where_feedback(config, seed, hints=None) -> str:
    result = grade_submission(SINGLE_WHERE, config,
                              GradingOptions(seed=seed, sandbox="inprocess", assignment="02_where",
                                             functions={"safe_log"}, hints=hints))
    return "\n".join(c.feedback for c in result.checks if not c.passed)


def test_every_hint_has_an_idea_and_apis_and_its_idea_needs_no_field_the_recipe_lacks():
    assert set(hint_ideas.IDEAS) == set(hint_ideas.APIS)
    assert set(hint_ideas.IDEAS) <= set(messages.ENGLISH)
    for key, idea in hint_ideas.IDEAS.items():
        fields = {name for _, name, _, _ in string.Formatter().parse(idea) if name}
        recipe_fields = {name for _, name, _, _ in string.Formatter().parse(messages.ENGLISH[key]) if name}
        assert fields <= recipe_fields, key


def test_the_default_level_names_the_idea_and_the_api_but_not_the_recipe(config, seed):
    feedback = _single_where_feedback(config, seed)
    assert IDEA in feedback and "Read about: `jax.numpy.where`" in feedback
    assert RECIPE_CODE not in feedback


def test_the_idea_level_names_no_api(config, seed):
    feedback = _single_where_feedback(config, seed, hints="idea")
    assert IDEA in feedback
    assert "Read about" not in feedback and RECIPE_CODE not in feedback


def test_the_recipe_level_shows_the_worked_recipe(config, seed):
    assert RECIPE_CODE in _single_where_feedback(config, seed, hints="recipe")


def test_grading_toml_sets_the_level_of_grading_feedback(config, seed):
    recipe = dataclasses.replace(config, hint_levels={"check": "api", "grade": "recipe"})
    assert RECIPE_CODE in _single_where_feedback(recipe, seed)


def test_the_hints_variable_overrides_grading_toml_for_one_run(monkeypatch, capsys):
    """Read where the kit is entered (here a command line), and held: grading.toml's check level is "api"."""
    from autograder import cli

    monkeypatch.setenv(messages.HINT_LEVEL_VARIABLE, "recipe")
    assert cli.main(["--config", str(REPO / "grading.toml"), "check", str(SINGLE_WHERE), "--assignment", "02_where",
                     "--exercise", "safe_log", "--seed", "3"]) == 1
    assert RECIPE_CODE in capsys.readouterr().out


def test_the_hints_variable_is_read_once_where_the_kit_is_entered(config, seed, monkeypatch):
    """A check cell's call holds the level it found on entry: the variable changed later (by the student's own
    code, while it is checked) changes no hint; outside any entry point it is not read at all."""
    monkeypatch.setenv(messages.HINT_LEVEL_VARIABLE, "idea")
    with messages.entering():
        monkeypatch.setenv(messages.HINT_LEVEL_VARIABLE, "recipe")
        assert messages.hint_level() == "idea"
    assert RECIPE_CODE not in _single_where_feedback(config, seed)


def test_an_unknown_level_in_grading_toml_is_refused_with_the_choices(tmp_path):
    text = (REPO / "grading.toml").read_text(encoding="utf-8").replace('check_hints = "api"', 'check_hints = "all"')
    path = tmp_path / "grading.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(grading_config.GradingConfigError, match="check_hints.*idea, api, recipe.*'all'"):
        grading_config.load(path)


def test_the_command_line_check_uses_the_check_level(tmp_path, monkeypatch, capsys):
    from autograder import cli

    text = (REPO / "grading.toml").read_text(encoding="utf-8").replace('check_hints = "api"', 'check_hints = "recipe"')
    path = tmp_path / "grading.toml"
    path.write_text(text, encoding="utf-8")
    monkeypatch.delenv(messages.HINT_LEVEL_VARIABLE, raising=False)
    assert cli.main(["--config", str(path), "check", str(SINGLE_WHERE), "--assignment", "02_where",
                     "--exercise", "safe_log", "--seed", "3"]) == 1
    assert RECIPE_CODE in capsys.readouterr().out
