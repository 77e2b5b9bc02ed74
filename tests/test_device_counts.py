"""Grading with several device counts (grading.toml [devices]): how counts are declared, how runs merge,
and how a result's placement is judged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from corpus_cases import mistakes

from autograder import grading_config
from autograder.check.device_runs import DeviceRun, merged_outcomes
from autograder.check.failure import Failure
from autograder.check.placement_checks import assert_spread
from autograder.check.pytest_plugin import CheckOutcome
from autograder.protocol.placements import Placement


def _outcome(passed: bool, feedback: str = "") -> CheckOutcome:
    return CheckOutcome("global_mean", "correct", passed, None if passed else Failure(feedback))


def test_a_check_passes_only_if_it_passed_with_every_device_count():
    merged = merged_outcomes([DeviceRun(4, [_outcome(True)]), DeviceRun(2, [_outcome(False, "wrong")])])
    assert [outcome.passed for outcome in merged] == [False]


def test_a_failed_check_says_which_device_count_it_failed_with():
    (merged,) = merged_outcomes([DeviceRun(4, [_outcome(True)]), DeviceRun(2, [_outcome(False, "mesh of 4")])])
    assert "2 CPU devices" in merged.feedback and "mesh of 4" in merged.feedback


def test_one_device_count_leaves_the_outcomes_as_they_are():
    outcomes = [_outcome(False, "wrong values")]
    assert merged_outcomes([DeviceRun(1, outcomes)]) == outcomes


def test_the_assignment_that_needs_devices_declares_four_and_two():
    assert grading_config.load().device_counts("10_parallel") == (4, 2)
    assert grading_config.load().device_counts("01_immutable_updates") == ()


def test_devices_for_an_assignment_that_is_not_graded_is_refused(tmp_path):
    text = grading_config.DEFAULT_PATH.read_text(encoding="utf-8").replace('"10_parallel" = [4, 2]',
                                                                           '"99_missing" = [4, 2]')
    path = tmp_path / "grading.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(grading_config.GradingConfigError, match="99_missing"):
        grading_config.load(path)


def test_rows_split_one_block_per_device_is_spread_by_rows():
    placement = Placement({0: (0, 2), 1: (2, 4), 2: (4, 6), 3: (6, 8)})
    assert_spread([placement], "rows", devices=4, call="shard_rows(f32[8, 3])", why="")


def test_a_result_held_by_one_device_is_not_spread_over_four():
    with pytest.raises(AssertionError, match="1 of the 4 devices"):
        assert_spread([Placement({0: None})], "rows", devices=4, call="shard_rows(f32[8, 3])", why="")


def test_a_result_split_by_rows_is_not_replicated():
    placement = Placement({0: (0, 4), 1: (4, 8)})
    with pytest.raises(AssertionError, match="not held whole"):
        assert_spread([placement], "replicated", devices=2, call="data_parallel_step(...)", why="")


def test_a_placement_survives_the_runners_pipe():
    placement = Placement({0: None, 1: (3, 6)}, axes=("data",))
    assert Placement.from_wire(placement.to_wire()) == placement
    assert Placement.from_wire(Placement({}, on_host=True).to_wire()).on_host


def test_rows_split_over_a_mesh_axis_the_spec_does_not_name_are_refused():
    placement = Placement({0: (0, 4), 1: (4, 8)}, axes=("batch",))
    assert_spread([placement], "rows", devices=2, call="shard_rows(f32[8, 3])", why="")  # any axis: spread
    with pytest.raises(AssertionError, match='axis "batch"; the exercise names that axis "data"'):
        assert_spread([placement], "rows", devices=2, call="shard_rows(f32[8, 3])", why="", axis="data")
    assert_spread([Placement(placement.rows, axes=("data",))], "rows", devices=2, call="", why="", axis="data")


def test_a_result_brought_back_to_numpy_is_on_no_device():
    with pytest.raises(AssertionError, match="on the host: none of the 2 devices holds it"):
        assert_spread([Placement({}, on_host=True)], "replicated", devices=2, call="data_parallel_step(...)", why="")


def test_a_placement_from_the_pipe_that_is_not_typed_data_is_refused():
    for raw in ([[0, None, None]], {"rows": [[0, None, None]], "axes": "data"}, {"rows": [], "host": "yes"}):
        with pytest.raises(ValueError):
            Placement.from_wire(raw)


def _checked(path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "--lang", "en", "check", str(path), "--assignment",
                           "10_parallel", *extra], capture_output=True, text=True, timeout=600, cwd=REPO,
                          env={k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))})


def test_autograder_check_fails_a_device_count_written_in_as_grading_does():
    """`autograder check` in a fresh process checks 10 with each of grading's device counts: a mesh of 4 written
    into the code fails with 2 devices, the checks the corpus says grading fails."""
    case = next(c for c in mistakes() if c.id == "10_parallel/global_mean_mesh_of_4")
    checked = _checked(case.file, "--exercise", case.function)
    assert checked.returncode == 1, checked.stdout[-3000:] + checked.stderr[-3000:]
    failed = {" ".join(line.split()[2:-2]) for line in checked.stdout.splitlines() if line.startswith("✗")}
    assert failed == set(case.fails), checked.stdout[-3000:]
    assert "Graded with 2 CPU devices" in checked.stdout


def test_autograder_check_passes_code_that_uses_the_devices_it_has():
    checked = _checked(REPO / "tests" / "corpus" / "10_parallel" / "correct" / "alternative.py")
    assert checked.returncode == 0 and "All checks passed." in checked.stdout, checked.stdout[-3000:]
