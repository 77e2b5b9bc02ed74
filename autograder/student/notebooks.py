"""The released notebooks of the student distribution: nbgrader's release, with an install cell first.

The install cell is a new, unlocked code cell without nbgrader metadata,
placed before the first code cell; every other cell, its id and its nbgrader
metadata stay as nbgrader released them. When `import autograder.notebook`
fails (a fresh Colab runtime, say), it runs `%pip install <address>`, and if
the import still fails it prints one line saying what to run, and puts in
place an `autograder.notebook` whose `check` prints that line: the check
cells below say what to do, in the notebook's language, rather than raise a
bare ModuleNotFoundError.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from autograder.catalog import messages
from autograder.student.strings import text

INSTALL_CELL_ID = "install-checks"

_TEMPLATE = """\
# {comment}
try:
    import autograder.notebook
except ImportError:
    %pip install --quiet {quoted}
    import importlib
    importlib.invalidate_caches()
    try:
        import autograder.notebook
    except ImportError:
        _not_installed = {message!r}
        print(_not_installed)
        import sys, types
        sys.modules.setdefault("autograder", types.ModuleType("autograder"))
        sys.modules["autograder.notebook"] = types.SimpleNamespace(
            check=lambda *args, said=_not_installed, **kwargs: print(said))
"""


def install_cell_source(address: str, language: str | None = None) -> str:
    """The install cell's code, its sentences in `language`.

    A notebook in another language than English also sets `AUTOGRADER_LANG`
    in the kernel, which the check cells read (an explicit $AUTOGRADER_LANG wins).
    """
    with messages.using(language):
        comment = text("student.install_comment")
        message = text("student.install_failed", address=address)
    source = _TEMPLATE.format(comment=comment, quoted=_shell_quoted(address), message=message)
    if language and messages.normalize(language) not in (None, "en"):
        source += f"AUTOGRADER_LANG = {messages.normalize(language)!r}\n"
    return source


def _shell_quoted(address: str) -> str:
    """`address` as one argument of the %pip line: IPython's $name and {name} escaped, then quoted for the shell."""
    if "'" in address or "\n" in address:
        raise ValueError(f"the install address {address!r} holds a quote or a line break")
    escaped = address.replace("$", "$$").replace("{", "{{").replace("}", "}}")
    return f"'{escaped}'"


def with_install_cell(notebook, address: str):
    """A copy of `notebook` with the install cell before its first code cell."""
    notebook = copy.deepcopy(notebook)
    language = notebook.metadata.get("autograder", {}).get("language")
    cell = nbformat.v4.new_code_cell(install_cell_source(address, language if isinstance(language, str) else None))
    cell["id"] = INSTALL_CELL_ID
    first_code = next((i for i, c in enumerate(notebook.cells) if c.cell_type == "code"), len(notebook.cells))
    notebook.cells.insert(first_code, cell)
    return notebook


def write_student_notebook(released: Path, target: Path, address: str) -> None:
    """Read nbgrader's released notebook `released` and write it to `target` with the install cell."""
    notebook = nbformat.read(released, as_version=4)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(with_install_cell(notebook, address), target)
