"""The English catalog of a copy of the repository, or of a course's own assignments, in its own order.

The order of `messages.ENGLISH` is made at import (the common sentences, then each assignment's
catalog by name, then every hint's idea), so it is read from the catalog itself rather than
re-derived, as is which assignment catalog brings which keys (`kit_translations`: an assignment's
sentences are translated in its own PO file). A fresh interpreter imports it from `root`, so the
copy's own catalogs are read (and the current process's catalog, imported before a scaffold added
one, is never the one used).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

_READ = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from autograder.catalog import messages
where = Path(messages.__file__).resolve()
if Path(sys.argv[1]).resolve() not in where.parents:
    sys.exit(f"imported the catalog from {where}, not from {sys.argv[1]}")
from autograder.catalog import assignment_catalogs
owners = {module.__file__: assignment_catalogs.own_keys(module) for module in assignment_catalogs.found()}
print(json.dumps({"english": list(messages.ENGLISH.items()), "owners": owners}, ensure_ascii=False))
"""


class CatalogUnreadable(RuntimeError):
    """The English catalog of the copy could not be imported."""


def english(root: Path) -> list[tuple[str, str]]:
    """(key, English template) for every sentence of the repository at `root`, in `messages.ENGLISH` order."""
    return [(key, text) for key, text in _read(root)["english"]]


def kit_translations(root: Path, language: str) -> list[tuple[Path, list[tuple[str, str]]]]:
    """Each PO file of `language` in the repository at `root` with the sentences it translates, in English order:
    catalog/locale/<language>.po the kit's common ones, and each assignment's messages_<a>.<language>.po beside
    its catalog that assignment's own (assignment_catalogs.own_keys)."""
    from autograder.catalog import assignment_catalogs

    read = _read(root)
    english_ = [(key, text) for key, text in read["english"]]
    owned = {key for keys in read["owners"].values() for key in keys}
    files = [(Path(root) / "autograder" / "catalog" / "locale" / f"{language}.po",
              [(key, text) for key, text in english_ if key not in owned])]
    for module_file, keys in sorted(read["owners"].items()):
        own = set(keys)
        files.append((assignment_catalogs.translations(Path(module_file), language),
                      [(key, text) for key, text in english_ if key in own]))
    return files


def _read(root: Path) -> dict:
    completed = subprocess.run([sys.executable, "-c", _READ, str(Path(root).resolve())], capture_output=True,
                               text=True, encoding="utf-8", timeout=120)
    if completed.returncode != 0:
        raise CatalogUnreadable(f"Could not import the catalogs of {root} (autograder/catalog/messages.py and "
                                f"autograder/suites/messages_*.py):\n{completed.stderr.strip()}\n"
                                "Fix the error above (a catalog module that does not import), then run again.")
    return json.loads(completed.stdout)


def course_english(suites: Path) -> list[tuple[str, str]]:
    """(key, English template) for every sentence of a course's own catalogs (suites/messages_*.py), in the
    order the kit adds them (course_suites): each catalog's sentences and check names by name, then every
    hint's idea."""
    import importlib.util

    from autograder.catalog import assignment_catalogs

    sentences: list[tuple[str, str]] = []
    ideas: list[tuple[str, str]] = []
    for path in sorted(Path(suites).glob("messages_*.py")):
        try:
            spec = importlib.util.spec_from_file_location(f"_course_catalog_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            spec.loader.exec_module(module)  # type: ignore[union-attr]
            sentences += [*module.ENGLISH.items(), *assignment_catalogs.check_names(module).items()]
            ideas += [(f"{key}.idea", idea) for key, idea in module.IDEAS.items()]
        except Exception as error:  # the course's own file: one sentence naming it
            raise CatalogUnreadable(f"Could not read the catalog {path} ({type(error).__name__}: {error}). Fix it "
                                    "(it defines ENGLISH, IDEAS and APIS, as the scaffold wrote it), then run "
                                    "again.") from None
    return sentences + ideas
