"""Which JAX the student package checks with, and what a student reads when it cannot (student/jax_support.py).

The JAX-version matrix (tests/test_jax_versions.py) runs the checks on every release of the range; here,
in this process, the decision itself: a missing, broken, mismatched or out-of-range JAX gets one sentence
with the line to run, in the notebook's language, and a supported one none.
"""

from __future__ import annotations

import importlib.metadata

import pytest

from autograder.catalog import messages
from autograder.check import jax_api_versions
from autograder.student import jax_support


@pytest.mark.parametrize("text, parsed", [("0.4.38", (0, 4, 38)), ("0.9.0.1", (0, 9, 0, 1)),
                                          ("0.5.0.dev20250101", (0, 5, 0)), ("0.10.2rc1", (0, 10, 2))])
def test_versions_parse_as_jax_writes_them(text, parsed):
    assert jax_api_versions.parse_version(text) == parsed


def test_the_pinned_jax_runs_the_checks():
    assert jax_support.problem() is None


def _with(monkeypatch, jax: str | None, jaxlib: str | None = None, absl: bool = True) -> jax_support.JaxProblem | None:
    found = {"jax": jax, "jaxlib": jaxlib if jaxlib is not None else jax}
    monkeypatch.setattr(jax_support, "installed_version", lambda distribution, module: found[distribution])
    if not absl:
        real = jax_support.importlib.util.find_spec
        monkeypatch.setattr(jax_support.importlib.util, "find_spec",
                            lambda name, *a: None if name == "absl" else real(name, *a))
    return jax_support.problem()


@pytest.mark.parametrize("jax, key", [(None, "student.jax_missing"), ("0.4.38", "student.jax_unsupported"),
                                      ("0.11.0", "student.jax_unsupported"), ("0.3.25", "student.jax_unsupported")])
def test_outside_the_range_no_check_runs(monkeypatch, jax, key):
    problem = _with(monkeypatch, jax)
    assert problem is not None and problem.key == key


def test_jax_and_jaxlib_of_different_releases_are_named_with_the_line_that_matches_them(monkeypatch):
    problem = _with(monkeypatch, "0.7.2", "0.6.2")
    assert problem is not None and problem.key == "student.jax_mismatched"
    sentence = problem.sentence(in_notebook=True)
    assert "0.7.2" in sentence and "0.6.2" in sentence and '%pip install "jax[cpu]==0.7.2"' in sentence


def test_an_older_jax_without_absl_is_told_to_install_it(monkeypatch):
    problem = _with(monkeypatch, "0.5.3", absl=False)
    assert problem is not None and problem.key == "student.absl_missing"
    assert "%pip install absl-py" in problem.sentence(in_notebook=True)
    assert _with(monkeypatch, "0.6.2", absl=False) is None  # from 0.6 jax.export needs no absl-py


def test_a_jax_that_fails_to_import_says_why(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "jax.export" or (name == "jax" and args and args[2] and "export" in args[2]):
            raise RuntimeError("jaxlib version 0.6.2 is older than the required 0.7.0\nmore details")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", broken)
    problem = _with(monkeypatch, "0.7.2")
    assert problem is not None and problem.key == "student.jax_broken"
    assert "RuntimeError: jaxlib version 0.6.2 is older than the required 0.7.0" in problem.sentence(True)
    assert "more details" not in problem.sentence(True)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_sentence_has_the_line_to_run_where_the_student_is(monkeypatch, language):
    problem = _with(monkeypatch, "0.4.38")
    assert problem is not None
    with messages.using(language):
        in_cell, in_terminal = problem.sentence(in_notebook=True), problem.sentence(in_notebook=False)
        assert messages.text("student.jax_then_notebook") in in_cell
        assert messages.text("student.jax_then_command") in in_terminal
    assert '%pip install "jax[cpu]>=0.5.0,<0.11"' in in_cell and '`pip install "jax[cpu]>=0.5.0,<0.11"`' in in_terminal
    assert "0.4.38" in in_cell and "0.5.0" in in_cell and "0.11" in in_cell
    assert (language == "ko") == any("\uac00" <= ch <= "\ud7a3" for ch in in_cell)


def test_versions_for_a_report_name_the_installed_jax():
    said = jax_support.versions()
    assert f"jax {importlib.metadata.version('jax')}" in said and "jaxlib " in said and "python 3." in said
