"""Where a cell still holds the released stub: decided from the cell's parsed source.

A function is "not implemented yet" only when it is the stub as released: its
only statement (after a docstring, `pass` or `...`) raises NotImplementedError,
or its cell is the bare `raise NotImplementedError()` of an exercise whose
whole `def` is the student's to write. A NotImplementedError a student raises
anywhere else (`raise NotImplementedError(f"unsupported: {name}")` for an
unknown option) is the student's own error, reported with its message. The
child parses its cells here, next to the code it runs; the parent receives
only the verdict (`ChildError.stub`), which at worst mislabels a student's
own function.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types


def stub_raise_lines(source: str) -> frozenset[int]:
    """The line numbers of the `raise NotImplementedError` statements in `source` that are a stub's body."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    lines = {line for line in (_only_raise(tree.body),) if line}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            line = _only_raise(node.body)
            if line:
                lines.add(line)
    return frozenset(lines)


def _only_raise(body: list[ast.stmt]) -> int | None:
    """The line of the body's raise, when raising NotImplementedError is all the body does."""
    statements = [s for s in body if not _filler(s)]
    if len(statements) != 1 or not isinstance(statements[0], ast.Raise):
        return None
    raised = statements[0].exc
    if isinstance(raised, ast.Call):
        raised = raised.func
    return statements[0].lineno if isinstance(raised, ast.Name) and raised.id == "NotImplementedError" else None


def _filler(statement: ast.stmt) -> bool:
    """A docstring, `pass`, `...` or an import: what a stub may hold besides its raise."""
    if isinstance(statement, (ast.Pass, ast.Import, ast.ImportFrom)):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def raise_is_stub_body(code: types.CodeType, line: int) -> bool:
    """Whether `line` is the stub raise of the function `code` compiled, read from the source Python
    keeps for it (a notebook kernel's cells; the child's own cells are in `stub_raises` already)."""
    try:
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError):
        return False
    return line - first + 1 in stub_raise_lines(textwrap.dedent("".join(lines)))
