"""The student package replays a comparison between two of the student's own answers as that comparison.

06's "reproducible for the same key" calls generate_linear_samples twice with the same key and compares the
two answers exactly, as the grader does; it is not a comparison with the reference's values (which a
correct alternative that sums the terms of y in another order differs from by a rounding).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from autograder.check.submission import Submission
from autograder.integrations.release import STUDENT_SEED, solution_notebook
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.student import recording, replay

ROOT = Path(__file__).resolve().parent.parent
FUNCTION, CHECK = "generate_linear_samples", "reproducible for the same key"

NOT_REPRODUCIBLE = '''
import jax

calls = [0]


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    calls[0] += 1  # a Python counter folded into the key: the same key gives other samples each call
    key_x, key_noise = jax.random.split(jax.random.fold_in(key, calls[0]))
    x = jax.random.uniform(key_x, (n_samples,))
    return x, slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)
'''


@pytest.fixture(scope="module")
def recorded(config):
    return recording.record_assignment("06_prng", config, solution_notebook("06_prng", REPO), STUDENT_SEED, {FUNCTION})


def _replayed(path: Path, recorded) -> dict[str, bool]:
    namespace, report = load_namespace(read(path), 60)
    submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
    return {c.prop: c.passed for c in replay.replay(*recorded, submission, {FUNCTION})}


def test_the_record_compares_the_second_call_with_the_first(recorded):
    record, _ = recorded
    (check,) = [c for c in record["checks"] if c["function"] == FUNCTION and c["prop"] == CHECK]
    rules = [rule for step in check["steps"] for rule in step.get("compare", {}).values()]
    assert any(rule.get("same_as") for rule in rules), check["steps"]


def test_a_correct_alternative_that_rounds_otherwise_is_reproducible(recorded):
    passed = _replayed(ROOT / "tests" / "corpus" / "06_prng" / "correct" / "alternatives.py", recorded)
    assert passed[CHECK], passed


def test_samples_that_change_with_each_call_are_not(recorded, tmp_path):
    path = tmp_path / "06_prng.py"
    path.write_text(NOT_REPRODUCIBLE)
    assert _replayed(path, recorded)[CHECK] is False
