"""The child's tamper detector: every change to the grading machinery is reported once and undone."""

from __future__ import annotations

import jax
import pytest

from autograder.child import executor, tamper
from autograder.protocol import requests


@pytest.fixture()
def snapshot():
    taken = tamper.take()
    yield taken
    tamper.find_and_undo(taken)  # whatever a failing test left changed


def test_nothing_changed_reports_nothing(snapshot):
    assert tamper.find_and_undo(snapshot) == []


def test_a_replaced_jax_function_is_reported_and_put_back(snapshot):
    original = jax.jit
    jax.jit = lambda f, **_: f
    assert tamper.find_and_undo(snapshot) == ["jax.jit was replaced"]
    assert jax.jit is original


def test_a_replaced_method_of_the_childs_code_is_reported_and_put_back(snapshot):
    original = executor.Executor._export
    executor.Executor._export = lambda self, request, arrays: ({"ok": True}, [])
    assert tamper.find_and_undo(snapshot) == ["autograder.child.executor.Executor['_export'] was replaced"]
    assert executor.Executor._export is original


def test_a_replaced_dispatch_table_entry_is_reported_and_put_back(snapshot):
    original = executor._HANDLERS[requests.Export]
    executor._HANDLERS[requests.Export] = lambda self, request, arrays: ({"ok": True}, [])
    (change,) = tamper.find_and_undo(snapshot)
    assert change.startswith("autograder.child.executor._HANDLERS[") and change.endswith("was replaced")
    assert executor._HANDLERS[requests.Export] is original


def test_a_changed_jax_option_is_reported_and_put_back(snapshot):
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", not before)
    expected = f"jax.config.jax_enable_x64 was changed from {before!r} to {not before!r}"
    assert tamper.find_and_undo(snapshot) == [expected]
    assert jax.config.jax_enable_x64 == before
