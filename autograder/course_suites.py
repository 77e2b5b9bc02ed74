"""A course's own assignments: the suites and catalogs in its suites/ folder, found as the kit's are.

The kit's suites are the package `autograder.suites` (test_<a>.py and
messages_<a>.py). A course directory may add its own assignments beside its
grading.toml: suites/test_<a>.py, suites/messages_<a>.py and their
translations in suites/locale/<language>.po. When a course's grading.toml is
read (grading_config.load), its suites/ folder joins the package's search
path, so the suites' runner (check.runner.suite_path), the catalogs and their
translations find the course's assignments exactly as they find the kit's.
The kit's own folder stays first: a course file named like a kit suite never
replaces it. These run only on the trusted side: a sandbox child never reads a
grading.toml, and its view holds no course directory.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from autograder.catalog import assignment_catalogs, messages
from autograder.course import Course


class CourseSuitesError(ValueError):
    """A course's own catalogs cannot be added (a catalog that does not import, or a key taken)."""


def use(course: Course) -> None:
    """Make `course`'s suites/ folder, if it has one, part of the suites package (once per folder)."""
    folder = course.suites
    suites = importlib.import_module(assignment_catalogs.PACKAGE)
    if not folder.is_dir() or str(folder) in suites.__path__:
        return
    suites.__path__.append(str(folder))
    try:
        found = [module for module in assignment_catalogs.found()
                 if Path(module.__file__ or "").resolve().parent == folder.resolve()]
        messages.include_catalogs(found, folder / "locale")
    except Exception as error:  # the course's own code: say which folder, never a traceback
        suites.__path__.remove(str(folder))
        raise CourseSuitesError(f"the course's own catalogs in {folder} cannot be used: {error}") from None


def folders() -> list[Path]:
    """Where suites are looked for: the kit's own folder first, then each course's that was used."""
    suites = importlib.import_module(assignment_catalogs.PACKAGE)
    return [Path(folder) for folder in suites.__path__]
