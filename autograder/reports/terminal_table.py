"""The readable table `autograder check` prints."""

from __future__ import annotations

import textwrap

from autograder.catalog import messages
from autograder.check.results import SubmissionResult

WIDTH = 100


def render(result: SubmissionResult) -> str:
    """A table of checks (function, property, points, status) with feedback under each failure."""
    lines = [messages.text("report.header", name=result.name, assignment=result.assignment, seed=result.seed), ""]
    if result.notes:
        lines.append(messages.text("report.notes"))
        lines.extend(textwrap.fill(n, WIDTH, initial_indent="  - ", subsequent_indent="    ") for n in result.notes)
        lines.append("")
    fn_width = max([len(c.function) for c in result.checks] + [8])
    prop_width = max([len(c.prop) for c in result.checks] + [8])
    for check in result.checks:
        status = messages.text("report.passed" if check.passed else "report.failed")
        mark = "✓" if check.passed else "✗"
        points = f"{check.score:g}/{check.max_score:g}"
        lines.append(f"{mark} {check.function:<{fn_width}}  {check.prop:<{prop_width}}  {points:>6}  {status}")
        if not check.passed and check.feedback:
            for paragraph in check.feedback.splitlines():
                lines.append(textwrap.fill(paragraph, WIDTH, initial_indent="      ", subsequent_indent="      "))
    lines.append("")
    lines.append(messages.text("report.total", score=result.score, max_score=result.max_score))
    if result.all_passed:
        lines.append(messages.text("report.all_passed"))
    return "\n".join(lines)
