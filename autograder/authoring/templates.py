"""The scaffold's text, kept as data in `skeletons/` and filled with `string.Template` ($name, $function...)."""

from __future__ import annotations

import string
import tomllib
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "skeletons"


def fill(template: str, **fields: object) -> str:
    """`skeletons/<template>` with its $fields filled; a field the template needs and is not given is an error."""
    return string.Template((FOLDER / template).read_text(encoding="utf-8")).substitute(fields)


def cells(language: str) -> dict[str, str]:
    """The notebook cells' text in `language` ("en" or "ko"): title, setup, intro, demo, task, solution, check."""
    return tomllib.loads((FOLDER / f"notebook_{language}.toml").read_text(encoding="utf-8"))


def fill_text(text: str, **fields: object) -> str:
    """A template given as text (a notebook cell) with its $fields filled."""
    return string.Template(text).substitute(fields)
