"""A worker's pytest session collects the suites the batch's names suggest; any other assignment still grades.

Collecting every suite costs a worker about 1 s at start, most of a small
batch's wait for its first result; the batch parent passes the assignments
the layout or the file names name (a guess about what to prepare, never
about grades), and a submission of another assignment runs its suite in a
pytest run of its own, with the same result.
"""

from __future__ import annotations

import shutil

from conftest import REPO

from autograder import grading_config
from autograder.grade.batch import BatchItem, _likely_assignments, grade_batch
from autograder.grade.run_options import RunOptions

CONFIG = grading_config.load()


def _item(name: str, assignment: str | None = None) -> BatchItem:
    return BatchItem(name=name, path=REPO / "submissions" / f"{name}.ipynb", assignment=assignment)


def test_the_assignments_the_names_suggest_are_collected():
    items = [_item("alice_01_immutable_updates"), _item("bob_02_where"), _item("carol", assignment="06_prng")]
    assert _likely_assignments(items, CONFIG, None) == ["01_immutable_updates", "02_where", "06_prng"]


def test_a_name_that_suggests_nothing_collects_every_suite():
    assert _likely_assignments([_item("alice_01_immutable_updates"), _item("homework")], CONFIG, None) is None


def test_the_assignment_given_is_the_only_one_collected():
    assert _likely_assignments([_item("homework")], CONFIG, "02_where") == ["02_where"]


def test_a_submission_of_an_assignment_not_collected_gets_the_same_grade(tmp_path):
    batch = tmp_path / "batch"
    batch.mkdir()
    # Both names say 01; the second notebook is 02's solution (its metadata says so), graded by a suite
    # the workers did not collect.
    shutil.copy(REPO / "solutions" / "01_immutable_updates" / "01_immutable_updates.ipynb",
                batch / "alice_01_immutable_updates.ipynb")
    shutil.copy(REPO / "solutions" / "02_where" / "02_where.ipynb", batch / "bob_01_immutable_updates.ipynb")
    results = {r["extra_data"]["submission"]: r for r in grade_batch([batch], tmp_path / "out",
                                                                        RunOptions(CONFIG, 5), jobs=1)}
    bob = results["bob_01_immutable_updates"]
    assert bob["extra_data"]["assignment"] == "02_where" and bob["score"] == bob["extra_data"]["max_score"] > 0, bob
    alice = results["alice_01_immutable_updates"]
    assert alice["score"] == alice["extra_data"]["max_score"] > 0, alice
