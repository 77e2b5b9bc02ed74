"""Reading a submission file into the code cells the grader will run.

A submission is a notebook (read and validated with nbformat) or a `.py`
file (one cell). Check cells and IPython-only lines (as IPython's own input
transformer finds them) are dropped here, each with a note, so that executing
the cells needs no IPython; a cell that cannot be read costs only itself.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

from autograder.catalog import messages
from autograder.load import bounded_json
from autograder.load.assignment_names import assignment_in_file_name

# What jsonschema's format checkers import when installed (they are, as Jupyter dependencies):
# rfc3987_syntax builds an Earley parser for IRIs at import time, about 1 s of CPU, more than
# importing JAX; the others (arrow among them) take another 40 ms. Notebook schemas check no
# formats ("format" is only a property name there), so none of them is needed to read a notebook.
_FORMAT_CHECKER_MODULES = ("rfc3987_syntax", "rfc3987", "rfc3986_validator", "rfc3339_validator", "fqdn", "idna",
                           "webcolors", "jsonpointer", "uri_template", "isoduration")


def _import_nbformat():
    """nbformat, without the second that jsonschema spends on format checkers notebooks never use.

    Their imports are refused while nbformat loads (jsonschema then registers no checker for
    those formats) and allowed again afterwards. In a process that imported jsonschema before
    (nbgrader's), this changes nothing.
    """
    if "nbformat" in sys.modules:
        return sys.modules["nbformat"]
    blocked = [name for name in _FORMAT_CHECKER_MODULES if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # makes `import name` raise ImportError
    try:
        import nbformat
    finally:
        for name in blocked:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]
    return nbformat


nbformat = _import_nbformat()


# The largest submission file read, as the sandbox's own cap on what it sends a child
# (sandbox.parent.SUBMISSION_CAP_BYTES): far above any notebook of these exercises with its outputs.
MAX_SUBMISSION_BYTES = 32 << 20


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
    language: str | None = None  # the notebook's own language (metadata autograder.language), if any
    shown: str = ""  # how messages name the file (see `read`); "" : its path


_CHECK_CALL = re.compile(r"^\s*(from\s+autograder(\.\w+)*\s+import|import\s+autograder)", re.M)


def read(path: Path | str, shown: str | None = None) -> SubmissionSource:
    """Read `path` into code cells; raise SubmissionError if it cannot be read.

    `shown` is how the messages name the file: grading passes what the student handed in (its path
    inside their submission), never the grading machine's path to it; `check` shows the path given.
    """
    path = Path(path)
    # Messages name the file as shown; a message is built with that name, never edited after.
    name = Path(shown) if shown is not None else path
    if path.is_dir():  # a common slip (`check my_folder`): say what it is, not that it is missing
        notebooks = sorted(path.glob("*.ipynb"))
        example = name / notebooks[0].name if notebooks else name / "<notebook>.ipynb"
        raise SubmissionError(messages.text("load.is_folder", path=name, example=example))
    if not path.is_file():
        raise SubmissionError(messages.text("load.file_missing", path=name))
    try:
        raw = _read_capped(path, name).decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(messages.text("load.not_utf8", path=name)) from None
    if path.suffix == ".py":
        source = SubmissionSource(path, (CodeCell(1, raw),), None, ())
    elif path.suffix != ".ipynb":
        raise SubmissionError(messages.text("load.bad_suffix", path=name))
    else:
        source = _read_notebook(name, path, raw)
    return source if shown is None else dataclasses.replace(source, shown=shown)


def _read_capped(path: Path, name: Path) -> bytes:
    """The file's bytes; SubmissionError if it holds more than MAX_SUBMISSION_BYTES (only that much is read)."""
    with open(path, "rb") as handle:
        raw = handle.read(MAX_SUBMISSION_BYTES + 1)
    if len(raw) > MAX_SUBMISSION_BYTES:
        raise SubmissionError(messages.text("load.too_large", path=name, limit_mib=MAX_SUBMISSION_BYTES >> 20))
    return raw


def _read_notebook(name: Path, path: Path, raw: str) -> SubmissionSource:
    # Bounded first: nbformat parses the same text with json.loads, whose recursion a deeply nested
    # document turns into RecursionError in whichever process reads it (a grading worker, the child).
    try:
        bounded_json.loads(raw, max_bytes=MAX_SUBMISSION_BYTES)
    except bounded_json.JSONLimitExceeded as error:
        raise SubmissionError(messages.text("load.too_deep", path=name, depth=error.limit.maximum)) from None
    except ValueError as error:  # not JSON, or a number JSON allows and Python will not convert
        raise SubmissionError(messages.text("load.not_json", path=name, error=error)) from None
    try:
        notebook = nbformat.reads(raw, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:  # nbformat raises several unrelated types
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SubmissionError(
            messages.text("load.invalid_notebook", path=name, error=detail)
        ) from None
    cells: list[CodeCell] = []
    notes: list[str] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        if is_check_cell(cell):
            continue
        readable = readable_cell(number, cell.source)
        notes.extend(readable.notes)
        if readable.source is not None:
            cells.append(CodeCell(number, readable.source))
    return SubmissionSource(path, tuple(cells), _declared(notebook.metadata, "assignment"), tuple(notes),
                            _declared(notebook.metadata, "language"))


def _declared(metadata: object, field: str) -> str | None:
    """A text field of the notebook's `autograder` metadata; None if it is missing or not text."""
    section = metadata.get("autograder") if isinstance(metadata, dict) else None
    value = section.get(field) if isinstance(section, dict) else None
    return value if isinstance(value, str) else None


def is_check_cell(cell) -> bool:
    """A check cell is an nbgrader grade cell, or any cell that imports the kit."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    if nbgrader.get("grade") and not nbgrader.get("solution"):
        return True
    return bool(_CHECK_CALL.search(cell.get("source", "")))


@dataclasses.dataclass(frozen=True)
class ReadableCell:
    source: str | None  # Python to run, or None: the cell cannot run at all
    notes: tuple[str, ...] = ()


# Cell magics whose body is plain Python that runs as it is: grading runs the body.
BODY_RUNS_AS_IS = frozenset({"time", "timeit", "capture", "prun"})
MAX_CELL_CHARACTERS = 1_000_000


def readable_cell(number: int, source: str) -> ReadableCell:
    """The Python a code cell runs in grading, with a note for whatever of it cannot run there.

    IPython's own input transformer decides what is a magic or a shell command
    (a `%` or `!=` that continues an expression in parentheses is Python); such
    lines become `pass`, so line numbers stay those the student sees. A cell
    magic's body runs as it is for `%%time` and the like, and the whole cell is
    skipped for others (`%%bash`, `%%writefile`). A cell that cannot be read as
    text (a lone surrogate, a NUL) or by IPython costs only that cell.
    """
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:
        return ReadableCell(None, (messages.text("load.cell_unreadable", cell=number,
                                                 reason=messages.text("load.unreadable.character",
                                                                      position=error.start + 1)),))
    if "\0" in source or len(source) > MAX_CELL_CHARACTERS:
        reason = (messages.text("load.unreadable.nul") if "\0" in source
                  else messages.text("load.unreadable.too_long", limit=MAX_CELL_CHARACTERS))
        return ReadableCell(None, (messages.text("load.cell_unreadable", cell=number, reason=reason),))
    if "%" not in source and "!" not in source and "?" not in source:
        return ReadableCell(source)  # nothing IPython would transform: the common case, no parsing
    try:
        transformed = _transformer().transform_cell(source)
    except Exception as error:  # IPython's transformer raises several types on input it cannot handle
        return ReadableCell(None, (messages.text("load.cell_unreadable", cell=number,
                                                 reason=messages.text("load.unreadable.ipython_error",
                                                                      error_type=type(error).__name__)),))
    original, converted = source.splitlines(), transformed.splitlines()
    if converted and converted[0].lstrip().startswith("get_ipython().run_cell_magic(") and original:
        return _cell_magic(number, original)
    if len(original) != len(converted):
        return ReadableCell(None, (messages.text("load.cell_unreadable", cell=number,
                                                 reason=messages.text("load.unreadable.ipython_lines")),))
    kept, notes = [], []
    for before, after in zip(original, converted, strict=False):  # IPython may add or drop lines
        if before != after and "get_ipython()" in after:
            notes.append(messages.text("load.magic_skipped", cell=number, line=before.strip()))
            # `pass` keeps an indented block that held only a magic valid.
            kept.append(f"{before[: len(before) - len(before.lstrip())]}pass")
        else:
            kept.append(before)
    return ReadableCell("\n".join(kept) if notes else source, tuple(notes))


def _cell_magic(number: int, lines: list[str]) -> ReadableCell:
    magic = lines[0].strip()[2:].split(maxsplit=1)[0] if lines[0].strip()[2:].strip() else ""
    if magic in BODY_RUNS_AS_IS:
        body = readable_cell(number, "\n".join(lines[1:]))
        note = messages.text("load.cell_magic_body_run", cell=number, magic=magic)
        source = None if body.source is None else "\n".join(["pass", body.source])  # line 1 was the magic
        return ReadableCell(source, (note, *body.notes))
    return ReadableCell(None, (messages.text("load.cell_magic_skipped", cell=number, magic=magic),))


def _transformer():
    global _TRANSFORMER
    if _TRANSFORMER is None:
        from IPython.core.inputtransformer2 import TransformerManager

        _TRANSFORMER = TransformerManager()
    return _TRANSFORMER


_TRANSFORMER = None


def strip_ipython_lines(source: str) -> tuple[str, list[str]]:
    """The cell's source with IPython-only lines made `pass` (see readable_cell), and the lines skipped."""
    readable = readable_cell(0, source)
    if readable.source is None:
        return source, []
    skipped = [line for line, kept in zip(source.splitlines(), readable.source.splitlines(), strict=False)
               if line != kept]
    return readable.source, [line.strip() for line in skipped]


def resolve_assignment(source: SubmissionSource, known: list[str], override: str | None) -> str:
    """The assignment to grade: --assignment, else notebook metadata, else the file name."""
    for candidate in (override, source.assignment_hint, assignment_in_file_name(source.path, known)):
        if candidate in known:
            return candidate
    raise SubmissionError(
        messages.text("load.unknown_assignment", path=source.shown or source.path, known=", ".join(known))
    )


def guess_assignment(path: Path, known: list[str], override: str | None) -> str | None:
    """For a result made without grading (a placeholder, an unreadable file): resolve_assignment's order,
    without reading the cells; None if nothing names a known assignment."""
    for candidate in (override, _declared_assignment(path), assignment_in_file_name(path, known)):
        if candidate in known:
            return candidate
    return None


def _declared_assignment(path: Path) -> str | None:
    """The assignment a notebook's metadata names, from its JSON alone; None for anything unreadable."""
    try:
        if path.suffix != ".ipynb" or not path.is_file():
            return None
        notebook = bounded_json.read(path, max_bytes=MAX_SUBMISSION_BYTES)
    except (OSError, ValueError):  # bounded_json's limits are ValueErrors too
        return None
    return _declared(notebook.get("metadata") if isinstance(notebook, dict) else None, "assignment")
