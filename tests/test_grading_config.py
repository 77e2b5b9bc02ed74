"""grading.toml and the suites agree: every test has points, every points entry has a test."""

from __future__ import annotations

import ast

import pytest

from autograder.check.runner import SUITES, suite_path


def graded_marks(assignment: str) -> list[tuple[str, str, str]]:
    """(test name, function, property) for every @graded test in the suite, read statically."""
    tree = ast.parse(suite_path(assignment).read_text(encoding="utf-8"))
    marks = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "graded":
                    function, prop = (arg.value for arg in decorator.args)
                    marks.append((node.name, function, prop))
    return marks


def test_every_assignment_has_a_suite(config):
    missing = [a for a in config.assignments if not suite_path(a).exists()]
    assert not missing, f"grading.toml has assignments without a suite in {SUITES}: {missing}"


def test_every_test_has_points_and_every_points_entry_has_a_test(config):
    problems = []
    for assignment in config.assignments:
        marks = graded_marks(assignment)
        graded = {(f, p) for _, f, p in marks}
        configured = {(f, p) for f, props in config.points[assignment].items() for p in props}
        problems += [f"{assignment}: test for {f} / {p!r} has no points" for f, p in sorted(graded - configured)]
        problems += [f"{assignment}: points for {f} / {p!r} have no test" for f, p in sorted(configured - graded)]
    assert not problems, "\n".join(problems)


def test_every_test_function_is_graded(config):
    for assignment in config.assignments:
        tree = ast.parse(suite_path(assignment).read_text(encoding="utf-8"))
        tests = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
        graded = {name for name, *_ in graded_marks(assignment)}
        assert set(tests) == graded, f"{assignment}: tests without @graded: {sorted(set(tests) - graded)}"


def test_each_property_is_graded_once(config):
    for assignment in config.assignments:
        pairs = [(f, p) for _, f, p in graded_marks(assignment)]
        duplicates = {pair for pair in pairs if pairs.count(pair) > 1}
        assert not duplicates, f"{assignment}: properties graded by more than one test: {duplicates}"


@pytest.mark.parametrize("bad, message", [
    ('[limits]\nsubmission_seconds = 1\nload_seconds = 1\ncall_seconds = 1\n[assignments.a.f]\n"p" = -1\n',
     "non-negative"),
    ("[limits]\nsubmission_seconds = 1\n", "load_seconds"),
    ("not toml [", "not valid TOML"),
    ('[limits]\nsubmission_seconds = 1\nload_seconds = 1\ncall_seconds = 1\n[assignments.a.selu]\n"p" = 1\n'
     '[assignments.b.selu]\n"p" = 1\n', "unique across assignments"),
])
def test_malformed_grading_toml_is_reported(tmp_path, bad, message):
    from autograder import grading_config

    path = tmp_path / "grading.toml"
    path.write_text(bad)
    with pytest.raises(grading_config.GradingConfigError, match=message):
        grading_config.load(path)
