"""The released notebook's compiled programs: built from kit code, copied afresh into each child.

A child may do what it likes with its copy; the store, and so every other
child, stays as built; and grading with the programs gives the same results
as compiling everything.
"""

from __future__ import annotations

import hashlib

import pytest

from autograder import grading_config
from autograder.grading import grade_submission
from autograder.sandbox.limits import ChildLimits
from autograder.sandbox.notebook_programs import CACHE_DIRECTORY, NotebookPrograms, build_with_sandbox
from autograder.sandbox.parent import SandboxTransport
from autograder.sandbox.zygote_client import Zygote
from conftest import REPO

ASSIGNMENT = "02_where"
SOLUTION = REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
STUB = REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"

SPOILER = f'''
import os
for name in os.listdir({CACHE_DIRECTORY!r}):
    with open(os.path.join({CACHE_DIRECTORY!r}, name), "wb") as handle:
        handle.write(b"not a program")
import jax.numpy as jnp

def sum_of_positive_numbers(x):
    return jnp.where(x > 0, x, 0).sum()
'''


@pytest.fixture(scope="module")
def zygote():
    started = Zygote()
    yield started
    started.close()


@pytest.fixture(scope="module")
def programs(zygote):
    config = grading_config.load()

    def build(assignment, directory):
        def transport(stub, **options):
            return SandboxTransport(stub, config.limits, child_limits=ChildLimits.from_config(config.sandbox),
                                    zygote=zygote, **options)
        build_with_sandbox(STUB, transport, directory)

    store = NotebookPrograms(build)
    yield store
    store.close()


def _fingerprint(directory):
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(directory.iterdir())}


def test_the_released_notebook_programs_are_built_once(programs):
    directory = programs.for_assignment(ASSIGNMENT)
    assert directory is not None and programs.for_assignment(ASSIGNMENT) == directory
    names = [path.name for path in directory.iterdir()]
    assert names and all(name.startswith("jit_") for name in names), names


def test_a_child_that_spoils_its_copy_spoils_nothing_else(programs, zygote, config, seed, tmp_path):
    directory = programs.for_assignment(ASSIGNMENT)
    before = _fingerprint(directory)
    spoiler = tmp_path / "spoiler.py"
    spoiler.write_text(SPOILER)
    result = grade_submission(spoiler, config, seed=seed, assignment=ASSIGNMENT, zygote=zygote, programs=programs,
                              functions={"sum_of_positive_numbers"})
    assert result.score == result.max_score > 0, [c.feedback for c in result.checks]
    assert _fingerprint(directory) == before
    solution = grade_submission(SOLUTION, config, seed=seed, zygote=zygote, programs=programs)
    assert solution.score == solution.max_score, [c.feedback for c in solution.checks if not c.passed]


def test_grading_with_the_programs_gives_the_same_results(programs, zygote, config, seed):
    with_programs = grade_submission(SOLUTION, config, seed=seed, zygote=zygote, programs=programs)
    without = grade_submission(SOLUTION, config, seed=seed, zygote=zygote)
    assert with_programs.to_gradescope()["tests"] == without.to_gradescope()["tests"]
    assert not with_programs.notes, with_programs.notes  # in particular, no "changed the grading environment"
