"""Each assignment's own sentences, kept beside its suite as `suites/messages_<assignment>.py`.

Adding an assignment adds its catalog there and edits no shared file but the
translations. A catalog module defines ENGLISH (its sentences, and the
recipe level of its hints), IDEAS and APIS (the first two hint levels), and
may define CHECK_NAMES, the names of the graded properties only its suite
has (the common ones, "correct" and "jittable", are catalog/messages.py's),
and KEPT_IN_ENGLISH, the words its Korean text keeps in English beside
those of catalog/locale/GLOSSARY.md (read by the Korean feedback's test).
They are found by name, not imported by a statement, so the sandbox child
(whose view holds only the modules it imports) and the student package
(which ships no suites) never hold the suites' advice, which may quote
reference code. Their translations are the assignment's own too: beside the
catalog, messages_<assignment>.<language>.po (`translations`), under the same
keys as every other sentence; catalog/locale/<language>.po holds the kit's
common sentences only. The student package's wheel adds the assignments' check
names to its catalog/locale/<language>.po (student/wheel.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

PACKAGE = "autograder.suites"
PREFIX = "messages_"
CHECK_NAME_PREFIX = "check_name."  # the catalog key of a graded property's name: "check_name.<English name>"


def found() -> list[ModuleType]:
    """The catalog modules beside the suites, in name order; none where the suites are absent."""
    try:
        suites = importlib.import_module(PACKAGE)
    except ImportError:
        return []
    names = sorted(info.name for info in pkgutil.iter_modules(suites.__path__) if info.name.startswith(PREFIX))
    return [importlib.import_module(f"{PACKAGE}.{name}") for name in names]


def merge(into: dict, entries: dict, source: str) -> None:
    """Add `entries` to a shared catalog; a key defined twice is an error naming both places."""
    clashes = sorted(set(into) & set(entries))
    if clashes:
        raise ValueError(f"{source} defines {clashes[:3]}, which another catalog already defines; "
                         "keys are unique: prefix each with its assignment's name")
    into.update(entries)


def check_names(catalog: ModuleType) -> dict[str, str]:
    """A catalog's CHECK_NAMES as catalog entries, key "check_name.<name>" and the English name itself."""
    return {CHECK_NAME_PREFIX + name: name for name in getattr(catalog, "CHECK_NAMES", ())}


def own_keys(catalog: ModuleType) -> list[str]:
    """Every key a catalog brings: its sentences, its check names and its hints' ideas ("<key>.idea")."""
    return [*catalog.ENGLISH, *check_names(catalog), *(f"{key}.idea" for key in catalog.IDEAS)]


def translations(catalog: ModuleType | Path, language: str) -> Path:
    """The PO file translating a catalog into `language`: messages_<assignment>.<language>.po beside it."""
    path = Path(catalog.__file__ or "") if isinstance(catalog, ModuleType) else Path(catalog)
    return path.with_name(f"{path.stem}.{language}.po")
