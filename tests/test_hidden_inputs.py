"""Hidden inputs: reproducible for a seed, different across seeds, and hard-coding earns nothing."""

from __future__ import annotations

import pytest
from conftest import REPO

from autograder.grade.pipeline import GradingOptions, grade_submission

HARDCODED = REPO / "tests" / "corpus" / "hardcoded"
MISTAKE = REPO / "tests" / "corpus" / "01_immutable_updates" / "mistakes" / "histogram_set_one.py"

# Properties that compare values with a reference; jittability or structure
# checks may pass for constant outputs, and that is fine.
VALUE_PROPERTIES = {
    "01_immutable_updates": {"correct", "negative index", "dtype of x kept", "correct with a vector of values",
                             "correct with a scalar value", "duplicates counted", "i == j leaves m unchanged"},
    "02_where": {"correct", "no positive entries gives 0", "empty mask gives 0, not NaN", "gradient finite everywhere"},
}


@pytest.mark.parametrize("assignment", sorted(VALUE_PROPERTIES))
def test_hardcoding_the_notebook_examples_scores_no_correctness_points(assignment, config, seed):
    result = grade_submission(HARDCODED / f"{assignment}.py", config,
                              GradingOptions(seed=seed, sandbox="inprocess", assignment=assignment))
    earned = [c.name for c in result.checks if c.prop in VALUE_PROPERTIES[assignment] and c.score > 0]
    assert not earned, f"hard-coded outputs earned points for {earned}"


def test_same_seed_gives_identical_results(config):
    first = grade_submission(MISTAKE, config,
                             GradingOptions(seed=123, sandbox="inprocess", assignment="01_immutable_updates"))
    second = grade_submission(MISTAKE, config,
                              GradingOptions(seed=123, sandbox="inprocess", assignment="01_immutable_updates"))
    assert first.to_gradescope() == second.to_gradescope()


def test_same_seed_gives_identical_results_across_backends(config):
    inprocess = grade_submission(MISTAKE, config,
                                 GradingOptions(seed=99, sandbox="inprocess", assignment="01_immutable_updates"))
    sandbox = grade_submission(MISTAKE, config,
                               GradingOptions(seed=99, sandbox="os", assignment="01_immutable_updates"))
    assert inprocess.to_gradescope()["tests"] == sandbox.to_gradescope()["tests"]


def test_different_seeds_draw_different_inputs(config):
    feedback = {}
    for seed in (1, 2):
        options = GradingOptions(seed=seed, sandbox="inprocess", assignment="01_immutable_updates")
        feedback[seed] = [c.feedback for c in grade_submission(MISTAKE, config, options).checks if not c.passed]
    assert feedback[1] and feedback[2]
    assert feedback[1] != feedback[2]


def test_the_seed_is_recorded_in_the_results(config):
    result = grade_submission(MISTAKE, config,
                              GradingOptions(seed=4242, sandbox="inprocess", assignment="01_immutable_updates"))
    assert result.to_gradescope()["extra_data"]["seed"] == 4242
