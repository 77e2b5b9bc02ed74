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
from autograder.check.results import STATUS_MARKS, SubmissionResult

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
            f'<div class="autograder-check" style="{_BLOCK}">'
            f"<div><b>{header}</b></div>"
            + (f"<div>{html.escape(messages.text('report.notes'))}<ul>{notes}</ul></div>" if notes else "")
            + f'<table style="{_TABLE}">'
            + "".join(rows)
            + f"</table><div><b>{total}</b></div></div>"
        )


# Every frontend styles a rendered table its own way: JupyterLab 4 and Notebook 7 right-align every
# td and centre the table (`.jp-RenderedHTMLCommon td {text-align: right}`, `table {margin: auto}`),
# Colab and VS Code have rules of their own. A class selector loses to an inline style, so every
# element carries its layout inline; a style on the <table> alone is overridden by the td rule.
_BLOCK = "font-size:13px;text-align:left"
_TABLE = ("border-collapse:collapse;border:none;margin:0 auto 0 0;table-layout:auto;width:auto;"
          "text-align:left;font-size:13px")
_CELL = "text-align:left;vertical-align:top;padding:2px 8px;border:none;white-space:normal;line-height:1.4"
_ROW = "background:transparent"  # JupyterLab stripes and highlights rows; a hint belongs to the row above


def _td(content: str, style: str = "", colspan: int = 1) -> str:
    """One table cell: left-aligned and top-aligned whatever the frontend's CSS says, then `style`."""
    span = f' colspan="{colspan}"' if colspan > 1 else ""
    return f'<td{span} style="{_CELL};{style}">{content}</td>'


def _row(check) -> str:
    color = {"passed": "#1a7f37", "not_checked": "#6e7781"}.get(check.status, "#cf222e")
    mark = STATUS_MARKS[check.status]
    status = html.escape(messages.text(f"report.{check.status}"))
    cells = (_td(mark, f"color:{color}")
             + _td(f"<code>{html.escape(check.function)}</code>")
             + _td(html.escape(check.label))
             + _td(f"{check.score:g}/{check.max_score:g}", "text-align:right")  # points: digits line up
             + _td(status, f"color:{color}"))
    row = f'<tr style="{_ROW}">{cells}</tr>'
    if not check.passed and check.feedback:
        feedback = "<br>".join(_feedback_line(line) for line in check.feedback.splitlines())
        row += f'<tr style="{_ROW}">{_td("")}{_td(feedback, "padding:0 8px 6px 8px", colspan=4)}</tr>'
    return row


# An indented line of feedback is laid out by its spaces (the got and expected rows of wrong values, an
# excerpt of code): in a proportional font, with HTML collapsing spaces, its columns would not line up.
_LAID_OUT = "font-family:SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;white-space:pre"


def _feedback_line(line: str) -> str:
    """One line of a check's feedback: prose as text, an indented line in monospace with its spaces kept."""
    if line[:1].isspace():
        return f'<span class="autograder-laid-out" style="{_LAID_OUT}">{html.escape(line, quote=False)}</span>'
    return _inline(line)


def _inline(line: str) -> str:
    """Escape `line`, with its `code spans` in <code>."""
    return _CODE_SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", html.escape(line, quote=False))
