"""`autograder init-course DIR`: a course directory to start from, with the kit's assignments or none.

A course directory (course.Course) holds grading.toml, nbgrader_config.py and
solutions/; every command then runs in it. With the kit's assignments it
starts as the kit's own course: its points, solution notebooks (English and
Korean) and released notebooks with their manifest, so `autograder release`
finds them current. With none, grading.toml keeps only the kit's limits,
sandbox, feedback and seed settings, for `autograder new-assignment` to add to.
The kit's course comes from the package (autograder/kit_course/, which
setup.py builds in), or from the checkout an editable install runs from.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from autograder import installed_kit
from autograder.course import Course

# The folder the built package carries the kit's course in (setup.py).
PACKAGED = installed_kit.PACKAGE / "kit_course"
# The grading.toml tables that name assignments: an empty course keeps every other table.
ASSIGNMENT_TABLES = ("[assignments.", "[devices]")


class CourseLayoutError(ValueError):
    """The course directory cannot be laid out as asked; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class CourseLayout:
    """What `init_course` wrote into `course`, relative to it, and the assignments it starts with."""

    course: Course
    written: tuple[Path, ...]
    assignments: tuple[str, ...]

    def summary(self) -> str:
        root = self.course.root
        lines = [f"Laid out a course in {root}, with "
                 f"{', '.join(self.assignments) if self.assignments else 'no assignments yet'}:"]
        lines += [f"  wrote {path}" for path in self.written]
        lines += [f"Next, in {root}: `autograder new-assignment NN_name --functions f,g` to add an assignment, "
                  "`autograder release --student-dist dist` to release, `autograder grade PATHS --out DIR` to grade "
                  "(docs/a-course-of-your-own.md in the kit's repository walks through the whole cycle)."]
        return "\n".join(lines)


def kit_course() -> Path:
    """The folder holding the kit's own course: the package's copy, else the checkout an editable kit runs from."""
    checkout = installed_kit.PACKAGE.parent
    for folder in (PACKAGED, checkout):
        if (folder / "grading.toml").is_file() and (folder / "solutions").is_dir():
            return folder
    raise CourseLayoutError(f"the kit's own course is missing: looked for grading.toml and solutions/ in {PACKAGED} "
                            f"(an installed kit) and in {checkout} (a checkout of the kit). Reinstall the kit, or "
                            "pass --assignments none for an empty course.")


def init_course(directory: Path, *, with_kit_assignments: bool) -> CourseLayout:
    """Lay out a course directory at `directory` (new, or empty); raises CourseLayoutError, writing nothing then."""
    root = Path(directory).resolve()
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise CourseLayoutError(f"{root} is not an empty directory: a new course is laid out in a new or empty "
                                "one, so that nothing of yours is overwritten. Choose another DIR.")
    source = kit_course()
    course = Course(root)
    root.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "nbgrader_config.py", course.nbgrader_config)
    if with_kit_assignments:
        shutil.copy2(source / "grading.toml", course.grading_toml)
        for folder in ("solutions", "assignments"):
            if (source / folder).is_dir():
                shutil.copytree(source / folder, root / folder,
                                ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    else:
        course.grading_toml.write_text(_without_assignments(source / "grading.toml"), encoding="utf-8")
        course.solutions.mkdir()
    from autograder import grading_config

    assignments = tuple(grading_config.load(course.grading_toml).assignments)
    written = tuple(sorted(path.relative_to(root) for path in root.iterdir()))
    return CourseLayout(course, written, assignments)


def _without_assignments(grading_toml: Path) -> str:
    """The kit's grading.toml up to its first table that names an assignment: limits, sandbox, feedback, seeds."""
    kept = []
    for line in grading_toml.read_text(encoding="utf-8").splitlines():
        if line.startswith(ASSIGNMENT_TABLES):
            break
        kept.append(line)
    return "\n".join(kept).rstrip("\n") + "\n"
