"""The readable table `autograder check` prints."""

from __future__ import annotations

from autograder.catalog import messages
from autograder.check.results import STATUS_MARKS, SubmissionResult
from autograder.reports.display_width import display_width, fill, ljust

WIDTH = 100  # terminal columns; a Hangul syllable takes two


def render(result: SubmissionResult) -> str:
    """A table of checks (function, property, points, status) with feedback under each failure."""
    lines = [messages.text("report.header", name=result.name, assignment=result.assignment, seed=result.seed), ""]
    if result.notes:
        lines.append(messages.text("report.notes"))
        lines.extend(fill(n, WIDTH, initial_indent="  - ", subsequent_indent="    ") for n in result.notes)
        lines.append("")
    fn_width = max([len(c.function) for c in result.checks] + [8])
    prop_width = max([display_width(c.label) for c in result.checks] + [8])
    for check in result.checks:
        status = messages.text(f"report.{check.status}")
        mark = STATUS_MARKS[check.status]
        points = f"{check.score:g}/{check.max_score:g}"
        lines.append(f"{mark} {check.function:<{fn_width}}  {ljust(check.label, prop_width)}  {points:>6}  {status}")
        if not check.passed and check.feedback:
            for paragraph in check.feedback.splitlines():
                lines.append(fill(paragraph, WIDTH, initial_indent="      ", subsequent_indent="      "))
    lines.append("")
    lines.append(messages.text("report.total", score=result.score, max_score=result.max_score))
    if result.all_passed:
        lines.append(messages.text("report.all_passed"))
    return "\n".join(lines)
