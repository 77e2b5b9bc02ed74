"""Reading a submission file into the code cells the grader will run.

A submission is a notebook (read and validated with nbformat) or a `.py`
file (one cell). Check cells and IPython-only lines are dropped here, each
with a note, so that executing the cells needs no IPython.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from pathlib import Path

from autograder import messages


def _import_nbformat():
    """nbformat, without the second that jsonschema spends on an unused grammar.

    nbformat imports jsonschema, whose format checkers import rfc3987_syntax
    when it is installed (it is, as a Jupyter dependency); that module builds
    an Earley parser for IRIs at import time, about 1 s of CPU, more than
    importing JAX. Notebook schemas use no IRI formats, so the import is
    refused while nbformat loads (jsonschema then skips those two checkers)
    and allowed again afterwards.
    """
    if "nbformat" in sys.modules:
        return sys.modules["nbformat"]
    blocked = "rfc3987_syntax" not in sys.modules
    if blocked:
        sys.modules["rfc3987_syntax"] = None  # makes `import rfc3987_syntax` raise ImportError
    try:
        import nbformat
    finally:
        if blocked and sys.modules.get("rfc3987_syntax", ...) is None:
            del sys.modules["rfc3987_syntax"]
    return nbformat


nbformat = _import_nbformat()


class SubmissionError(Exception):
    """The submission cannot be read at all; every check scores 0."""


@dataclasses.dataclass(frozen=True)
class CodeCell:
    number: int  # 1-based position among the notebook's cells, as Jupyter users count
    source: str


@dataclasses.dataclass(frozen=True)
class SubmissionSource:
    path: Path
    cells: tuple[CodeCell, ...]
    assignment_hint: str | None  # from notebook metadata, if any
    notes: tuple[str, ...]


_CHECK_CALL = re.compile(r"^\s*(from\s+autograder(\.\w+)*\s+import|import\s+autograder)", re.M)
_IPYTHON_LINE = re.compile(r"^\s*(%|!)")


def read(path: Path | str) -> SubmissionSource:
    """Read `path` into code cells; raise SubmissionError if it cannot be read."""
    path = Path(path)
    if not path.is_file():
        raise SubmissionError(messages.text("load.file_missing", path=path))
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(messages.text("load.not_utf8", path=path)) from None
    if path.suffix == ".py":
        return SubmissionSource(path, (CodeCell(1, raw),), None, ())
    if path.suffix != ".ipynb":
        raise SubmissionError(messages.text("load.bad_suffix", path=path))
    return _read_notebook(path, raw)


def _read_notebook(path: Path, raw: str) -> SubmissionSource:
    try:
        json.loads(raw)
    except json.JSONDecodeError as error:
        raise SubmissionError(messages.text("load.not_json", path=path, error=error)) from None
    try:
        notebook = nbformat.reads(raw, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:  # nbformat raises several unrelated types
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SubmissionError(
            messages.text("load.invalid_notebook", path=path, error=detail)
        ) from None
    cells: list[CodeCell] = []
    notes: list[str] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        if is_check_cell(cell):
            continue
        source, skipped = strip_ipython_lines(cell.source)
        notes.extend(messages.text("load.magic_skipped", cell=number, line=line) for line in skipped)
        cells.append(CodeCell(number, source))
    hint = notebook.metadata.get("autograder", {}).get("assignment")
    return SubmissionSource(path, tuple(cells), hint if isinstance(hint, str) else None, tuple(notes))


def is_check_cell(cell) -> bool:
    """A check cell is an nbgrader grade cell, or any cell that imports the kit."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    if nbgrader.get("grade") and not nbgrader.get("solution"):
        return True
    return bool(_CHECK_CALL.search(cell.get("source", "")))


def strip_ipython_lines(source: str) -> tuple[str, list[str]]:
    """Blank out `%magic` and `!shell` lines, keeping line numbers stable."""
    kept, skipped = [], []
    for line in source.splitlines():
        if _IPYTHON_LINE.match(line):
            skipped.append(line.strip())
            # `pass` keeps an indented block that held only a magic valid.
            indent = line[: len(line) - len(line.lstrip())]
            kept.append(f"{indent}pass")
        else:
            kept.append(line)
    return "\n".join(kept), skipped


def resolve_assignment(source: SubmissionSource, known: list[str], override: str | None) -> str:
    """The assignment to grade: --assignment, else notebook metadata, else the file name."""
    for candidate in (override, source.assignment_hint):
        if candidate in known:
            return candidate
    stem = source.path.stem
    for name in sorted(known, key=len, reverse=True):
        if name in stem:
            return name
    raise SubmissionError(
        messages.text("load.unknown_assignment", path=source.path, known=", ".join(known))
    )
