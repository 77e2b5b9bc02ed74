"""A function defined under a close but wrong name gets "did you mean" feedback, and still scores 0."""

from __future__ import annotations

import pytest

from autograder.grade.pipeline import GradingOptions, grade_submission

MISNAMED = """import jax.numpy as jnp

def set_elemnt(x, index, value):
    return x.at[index].set(value)

def Set_Diagonal(m, values):
    idx = jnp.arange(m.shape[0])
    return m.at[idx, idx].set(values)
"""


@pytest.mark.parametrize("backend", ["inprocess", "os"])
def test_a_misspelled_function_name_gets_did_you_mean(tmp_path, backend, config, seed):
    path = tmp_path / "sub.py"
    path.write_text(MISNAMED)
    result = grade_submission(path, config,
                              GradingOptions(seed=seed, sandbox=backend, assignment="01_immutable_updates",
                                             functions={"set_element", "set_diagonal", "histogram"}))
    feedback = {c.function: c.feedback for c in result.checks if not c.passed}
    assert result.score == 0
    assert "Did you mean `set_elemnt`?" in feedback["set_element"]
    assert "Did you mean `Set_Diagonal`?" in feedback["set_diagonal"]
    assert "Did you mean" not in feedback["histogram"]
