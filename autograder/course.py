"""The course directory: the folder that holds grading.toml, and everything a course keeps beside it.

Every command works on one course: the folder of `--config`, else the
current directory, which must then hold grading.toml (`locate`). What the
commands read and write sits beside grading.toml (`Course`): the solution
notebooks, the released ones with their manifest, the course's own suites
and catalogs. Nothing is ever written next to the installed kit, which may be
a read-only site-packages shared by several courses; the kit's own suites,
catalogs and skeletons are read from its package.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

GRADING_TOML = "grading.toml"


class CourseNotFound(ValueError):
    """No course directory where one was looked for; the message says where, and what to do."""


@dataclasses.dataclass(frozen=True)
class Course:
    """The course directory `root` and the places in it that the commands use."""

    root: Path

    @property
    def grading_toml(self) -> Path:
        return self.root / GRADING_TOML

    @property
    def nbgrader_config(self) -> Path:
        return self.root / "nbgrader_config.py"

    @property
    def solutions(self) -> Path:
        """The source notebooks, with the answers: solutions/<a>/<a>.ipynb, solutions/<language>/<a>/."""
        return self.root / "solutions"

    @property
    def assignments(self) -> Path:
        """The released notebooks (nbgrader's release directory) and the release manifest."""
        return self.root / "assignments"

    @property
    def suites(self) -> Path:
        """The course's own assignments' suites and catalogs: suites/test_<a>.py, suites/messages_<a>.py."""
        return self.root / "suites"

    def solution_notebook(self, assignment: str, language: str | None = None) -> Path:
        folder = self.solutions / language if language else self.solutions
        return folder / assignment / f"{assignment}.ipynb"

    def released_notebook(self, assignment: str, language: str | None = None) -> Path:
        folder = self.assignments / language if language else self.assignments
        return folder / assignment / f"{assignment}.ipynb"


def locate(config: Path | None, cwd: Path | None = None) -> Course:
    """The course of a command: `config`'s folder when given, else `cwd` (default: the current directory).

    Raises:
        CourseNotFound: no `config` was given and the current directory holds no grading.toml.
    """
    if config is not None:
        return Course(Path(config).resolve().parent)
    here = Path.cwd() if cwd is None else Path(cwd)
    if not (here / GRADING_TOML).is_file():
        raise CourseNotFound(
            f"no {GRADING_TOML} in the current directory ({here.resolve()}): run the command in the course "
            f"directory that holds it, or pass --config PATH/{GRADING_TOML}; to start a course, run "
            "`autograder init-course DIR`.")
    return Course(here.resolve())


def around(start: Path) -> Course | None:
    """The course a notebook at `start` belongs to: the nearest folder from `start` up that holds grading.toml.

    A check cell runs in its notebook's folder (<course>/solutions/<a>/, a
    student's folder under nbgrader's submitted/, ...), never given a --config.
    """
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / GRADING_TOML).is_file():
            return Course(folder)
    return None
