"""No assignment still holds a scaffold's "write me": every placeholder of `autograder new-assignment` was written."""

from __future__ import annotations

import pytest
from conftest import REPO

from autograder import grading_config
from autograder.authoring.scaffold import PLACEHOLDER

ASSIGNMENTS = grading_config.load().assignments
CURRICULUM = REPO / "docs" / "curriculum.md"


def _files(assignment: str) -> list:
    """The files the scaffold creates for `assignment`, as far as they exist."""
    written = [REPO / "autograder" / "suites" / f"test_{assignment}.py",
               REPO / "autograder" / "suites" / f"messages_{assignment}.py",
               REPO / "solutions" / assignment / f"{assignment}.ipynb",
               REPO / "solutions" / "ko" / assignment / f"{assignment}.ipynb"]
    written += sorted((REPO / "tests" / "corpus" / assignment).rglob("*.*"))
    return [path for path in written if path.is_file()]


def _curriculum_section(assignment: str) -> list[tuple[int, str]]:
    """The numbered lines of the assignment's section of the curriculum: its own file docs/curriculum/<assignment>.md
    (what the scaffold writes), else its part of docs/curriculum.md (`## <assignment> ...` to the next)."""
    own = CURRICULUM.parent / "curriculum" / f"{assignment}.md"
    if own.is_file():
        return list(enumerate(own.read_text(encoding="utf-8").splitlines(), start=1))
    section, inside = [], False
    for number, line in enumerate(CURRICULUM.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("## "):
            inside = line.startswith(f"## {assignment} ")
        if inside:
            section.append((number, line))
    return section


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_no_placeholder_is_left_unwritten(assignment):
    left = [f"{path.relative_to(REPO)}:{number}" for path in _files(assignment)
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if PLACEHOLDER in line]
    own = CURRICULUM.parent / "curriculum" / f"{assignment}.md"
    where = own.relative_to(REPO) if own.is_file() else CURRICULUM.relative_to(REPO)
    left += [f"{where}:{number}" for number, line in _curriculum_section(assignment) if PLACEHOLDER in line]
    assert not left, f'{assignment} still says "{PLACEHOLDER}" at: {", ".join(left)}'


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_assignment_has_a_curriculum_section(assignment):
    assert _curriculum_section(assignment), (f"no curriculum section: neither docs/curriculum/{assignment}.md nor "
                                             f"a section `## {assignment} — ...` of docs/curriculum.md")
