"""Student-facing sentences of the student distribution that the main catalog does not have yet.

`text(key, **fields)` takes the sentence from `autograder.catalog.messages` (and so
from its translations) once the key is there, and from `ENGLISH` below
until then.
"""

from __future__ import annotations

from autograder.catalog import messages

ENGLISH: dict[str, str] = {
    "student.report_header": "{name} ({assignment}), checked on the public inputs of this release",
    "student.unknown_function": "No check for a function named `{function}` in this package. Known functions: {known}.",
    "student.construct_missing": "{call}: the traced program contains no `{primitives}`, but this exercise asks for {construct}.",
    "student.value_limit": "the limit the grader sets for these inputs",
    "student.install_failed": "The checks of this notebook are not installed. Run `pip install {address}` (in a notebook cell: `%pip install {address}`), then restart the kernel and run this cell again.",
    "student.install_comment": "Installs the checks of this notebook (the `autograder` package) when they are missing, e.g. on Colab.",
    "student.data_missing": "The checks of {assignment} could not be read ({detail}). Reinstall the package.",
}


def text(key: str, **fields: object) -> str:
    """The sentence `key` in the current language (the main catalog's, once it has the key), with `fields` filled in."""
    if messages.has(key):
        return messages.text(key, **fields)
    return ENGLISH[key].format(**fields)
