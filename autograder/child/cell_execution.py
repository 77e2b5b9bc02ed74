"""Executing a submission's code cells in a fresh namespace.

A failing cell is reported and the next cells still run, so one broken cell
costs only the functions it defines. Runs wherever student code runs: the
sandbox child, or the in-process backend of `autograder check`.
"""

from __future__ import annotations

import dataclasses
from typing import AbstractSet

from autograder.catalog import messages
from autograder.child.stub_lines import raise_is_stub_body, stub_raise_lines
from autograder.load.submission_source import CodeCell
from autograder.protocol.sentences import from_wire, to_wire


@dataclasses.dataclass
class LoadReport:
    notes: list[str]
    not_implemented_cells: list[int]
    # The notes about cells that failed: they explain why a function is missing.
    problems: list[str] = dataclasses.field(default_factory=list)
    # ("<cell N>", line) of every released stub's `raise NotImplementedError` (child.stub_lines); the
    # child's own: the parent learns only whether an error came from one (ChildError.stub).
    stub_raises: set[tuple[str, int]] = dataclasses.field(default_factory=set)

    def to_json(self) -> dict:
        """The JSON-able form sent over the pipe: each note with its catalog reference (protocol.sentences)."""
        return {"notes": [to_wire(n) for n in self.notes], "not_implemented_cells": self.not_implemented_cells,
                "problems": [to_wire(n) for n in self.problems]}

    @classmethod
    def from_json(cls, data: dict) -> "LoadReport":
        return cls(
            notes=[from_wire(n) for n in data.get("notes", [])],
            not_implemented_cells=[int(c) for c in data.get("not_implemented_cells", [])],
            problems=[from_wire(n) for n in data.get("problems", [])],
        )

    def add_problem(self, note: str) -> None:
        self.notes.append(note)
        self.problems.append(note)


def execute_cells(cells: tuple[CodeCell, ...], namespace: dict, skip: frozenset[int] = frozenset()) -> LoadReport:
    """Run each cell in `namespace`, except the numbers in `skip`; collect a note for every cell that failed.

    `skip` holds the unchanged examples nothing graded depends on (see example_cells).
    """
    report = LoadReport(notes=[], not_implemented_cells=[])
    namespace.setdefault("__name__", "__main__")
    skipped = [cell.number for cell in cells if cell.number in skip]
    if skipped:
        report.notes.append(messages.text("load.demos_skipped", cells=", ".join(map(str, skipped))))
    for cell in cells:
        if cell.number in skip:
            continue
        try:
            code = compile(cell.source, f"<cell {cell.number}>", "exec")
        except SyntaxError as error:
            report.add_problem(messages.text("load.syntax_error", cell=cell.number, line=error.lineno, error=error.msg))
            continue
        except ValueError as error:  # text Python cannot compile (a NUL, an unencodable character)
            report.add_problem(messages.text("load.cell_unreadable", cell=cell.number, reason=first_line(error)))
            continue
        filename = f"<cell {cell.number}>"
        report.stub_raises.update((filename, line) for line in stub_raise_lines(cell.source))
        try:
            exec(code, namespace)  # noqa: S102 - running student code is the point
        except NotImplementedError as error:
            if not raised_by_stub(error, report.stub_raises):
                report.add_problem(messages.text("load.cell_raised", cell=cell.number,
                                                 error_type="NotImplementedError", error=first_line(error)))
                continue
            report.not_implemented_cells.append(cell.number)
            report.notes.append(messages.text("load.cell_not_implemented", cell=cell.number))
        except SystemExit as error:
            report.add_problem(
                messages.text("load.cell_raised", cell=cell.number, error_type="SystemExit",
                              error=first_line(error) or "sys.exit()")
            )
        except Exception as error:
            report.add_problem(
                messages.text(
                    "load.cell_raised",
                    cell=cell.number,
                    error_type=type(error).__name__,
                    error=first_line(error),
                )
            )
    return report


def raised_by_stub(error: BaseException, stub_raises: AbstractSet[tuple[str, int]]) -> bool:
    """Whether `error` was raised by a released stub's own `raise` (its innermost frame is one of `stub_raises`)."""
    innermost = error.__traceback__
    while innermost is not None and innermost.tb_next is not None:
        innermost = innermost.tb_next
    if innermost is None:
        return False
    code, line = innermost.tb_frame.f_code, innermost.tb_lineno
    return (code.co_filename, line) in stub_raises or raise_is_stub_body(code, line)


def first_line(error: BaseException, limit: int = 300) -> str:
    """The first line of an exception's message, shortened for feedback."""
    lines = str(error).strip().splitlines()
    line = lines[0] if lines else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."
