"""The feedback language is chosen once, where the kit is entered, and held: text() never reads $AUTOGRADER_LANG.

The entry points are the command lines (`speaking(asked_for(argv))`), a check cell's call in a notebook's kernel
(`entering`) and nbgrader's process (`nbgrader_converters.install`, `hold`). Changing the variable after an entry
point chose a language (a student's function may do it while it is called) changes no sentence.
"""

from __future__ import annotations

import os
import re

import pytest

from autograder.catalog import messages

HANGUL = re.compile(r"[가-힣]")
KEY = "check.wrong_values"  # any sentence with a Korean translation


def _said() -> str:
    return messages.catalog(messages.language()).get(KEY) or messages.ENGLISH[KEY]


@pytest.fixture
def no_language(monkeypatch):
    """No language held and no variable set; whatever a test sets is undone after it."""
    # Set, then deleted: so that monkeypatch restores the variable's absence too, whatever a test writes to it.
    monkeypatch.setenv(messages.LANGUAGE_VARIABLE, "en")
    monkeypatch.delenv(messages.LANGUAGE_VARIABLE)
    monkeypatch.setattr(messages, "_run_language", None)
    monkeypatch.setattr(messages, "_run_hints", None)
    return monkeypatch


def test_text_does_not_read_the_environment(no_language):
    os.environ[messages.LANGUAGE_VARIABLE] = "ko"  # set where no entry point read it
    assert messages.language() == "en" and not HANGUL.search(_said())


@pytest.mark.parametrize("first, then", [("ko", "en"), ("en", "ko"), (None, "ko")])
def test_a_check_cells_call_holds_the_language_it_found(no_language, first, then):
    if first is not None:
        os.environ[messages.LANGUAGE_VARIABLE] = first
    with messages.entering():
        os.environ[messages.LANGUAGE_VARIABLE] = then
        assert messages.language() == (first or "en")
        with messages.using("ko" if first is None else None):  # a notebook's own language, when none was held
            assert messages.language() == (first or "ko")


def test_a_command_line_holds_the_language_it_asked_for(no_language):
    os.environ[messages.LANGUAGE_VARIABLE] = "ko"
    with messages.speaking(messages.asked_for(["check", "notebook.ipynb"])):
        os.environ[messages.LANGUAGE_VARIABLE] = "en"
        assert messages.language() == "ko" and HANGUL.search(_said())
    assert messages.language() == "en", "the run's language ends with the command"


def test_nbgraders_process_holds_the_language_its_configuration_found(no_language):
    pytest.importorskip("nbgrader")
    from autograder.integrations import nbgrader_converters

    os.environ[messages.LANGUAGE_VARIABLE] = "ko"
    nbgrader_converters.install()  # what nbgrader_config.py calls when nbgrader loads it
    os.environ[messages.LANGUAGE_VARIABLE] = "en"
    assert messages.language() == "ko" and HANGUL.search(_said())


def test_a_function_that_sets_the_variable_while_checked_does_not_change_the_feedbacks_language(no_language,
                                                                                                  capsys):
    """A check cell's whole table is in the language found when the cell was run, whatever the student's code
    does to the environment while it is called."""
    from autograder.integrations import notebook

    def selu(x, alpha=1.67, lmbda=1.05):
        os.environ[messages.LANGUAGE_VARIABLE] = "ko"
        return x  # wrong values: the table says so, in a sentence of the catalog

    notebook.check("selu", {"selu": selu}, seed=1)
    said = capsys.readouterr().out
    assert "selu" in said and not HANGUL.search(said), said
