"""The kit's code stays in small steps: no function of autograder/ or scripts/ runs over 60 lines.

A function's length is counted as Python counts it, from its `def` (or its
first decorator) to its last line, docstring and comments included.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("autograder", "scripts")
MOST_LINES = 60


def _functions(path: Path):
    """(line, name, lines) of every function and method in `path`, nested ones too."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [decorator.lineno for decorator in node.decorator_list])
            yield node.lineno, node.name, node.end_lineno - first + 1


def _sources() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (REPO / folder).rglob("*.py"))


def test_the_scan_reads_the_kits_modules():
    names = {path.relative_to(REPO).as_posix() for path in _sources()}
    assert {"autograder/cli.py", "autograder/reports/class_report.py"} <= names


def test_no_function_is_longer_than_60_lines():
    too_long = [f"{path.relative_to(REPO)}:{line} {name} is {length} lines"
                for path in _sources() for line, name, length in _functions(path) if length > MOST_LINES]
    assert not too_long, (f"functions over {MOST_LINES} lines; split each into named steps:\n  "
                          + "\n  ".join(too_long))
