"""What a check cell shows: a small HTML table in Jupyter, the text table elsewhere.

The cell's last value matters to nbgrader, which reads an `execute_result`
as the partial credit of a grade cell. So under nbgrader (autograde,
validate) the cell prints the text table and ends with the points; in a
student's own kernel it displays the table (HTML, with the text as the
plain-text form) and ends with nothing, so no stray `Out: 5.0` follows it.
"""

from __future__ import annotations

import html
import os
import re

from autograder.catalog import messages
from autograder.check.results import SubmissionResult

_CODE_SPAN = re.compile(r"`([^`]+)`")


def show(result: SubmissionResult, text: str) -> float | None:
    """Show `result` (its text table is `text`); the points under nbgrader or outside IPython, else None."""
    if os.environ.get("NBGRADER_EXECUTION") or not _in_ipython():
        print(text)
        return result.score
    from IPython.display import display

    display(CheckCellTable(result, text))
    return None


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


class CheckCellTable:
    """The check's result with two forms: `_repr_html_` for Jupyter, the text table for everything else."""

    def __init__(self, result: SubmissionResult, text: str):
        self.result = result
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(self.text)

    def _repr_html_(self) -> str:
        result = self.result
        header = html.escape(self.text.splitlines()[0] if self.text else "")
        rows = [_row(check) for check in result.checks]
        notes = "".join(f"<li>{_inline(note)}</li>" for note in result.notes)
        total = html.escape(messages.text("report.total", score=result.score, max_score=result.max_score))
        return (
            '<div class="autograder-check" style="font-size:13px">'
            f"<div><b>{header}</b></div>"
            + (f"<div>{html.escape(messages.text('report.notes'))}<ul>{notes}</ul></div>" if notes else "")
            + '<table style="border-collapse:collapse;text-align:left">'
            + "".join(rows)
            + f"</table><div><b>{total}</b></div></div>"
        )


def _row(check) -> str:
    color = "#1a7f37" if check.passed else "#cf222e"
    mark = "✓" if check.passed else "✗"
    status = html.escape(messages.text("report.passed" if check.passed else "report.failed"))
    cells = (f'<td style="color:{color};padding:2px 8px">{mark}</td>'
             f'<td style="padding:2px 8px"><code>{html.escape(check.function)}</code></td>'
             f'<td style="padding:2px 8px">{html.escape(check.prop)}</td>'
             f'<td style="padding:2px 8px;text-align:right">{check.score:g}/{check.max_score:g}</td>'
             f'<td style="color:{color};padding:2px 8px">{status}</td>')
    row = f"<tr>{cells}</tr>"
    if not check.passed and check.feedback:
        feedback = "<br>".join(_inline(line) for line in check.feedback.splitlines())
        row += f'<tr><td></td><td colspan="4" style="padding:0 8px 6px 8px">{feedback}</td></tr>'
    return row


def _inline(line: str) -> str:
    """Escape `line`, with its `code spans` in <code>."""
    return _CODE_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", html.escape(line, quote=False))
