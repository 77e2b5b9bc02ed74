"""The class report on the terminal: a few lines after a batch, pointing at `report.html` for the rest.

Every line is shown with control characters as escapes (names and feedback
come from students' files), and a failure and its hint are cut to
TERMINAL_WIDTH.
"""

from __future__ import annotations

from autograder.reports.class_report_html import FILENAME
from autograder.reports.class_report_text import assignment_name, check_label, clip, sentence, visible
from autograder.reports.class_summary import ClassReport

TERMINAL_FAILURES = 3
TERMINAL_WIDTH = 100  # a failure's line and its hint are cut to this


def render_terminal(report: ClassReport) -> str:
    """A few lines for the terminal: the scores of each assignment, the most common failures, who needs a look."""
    lines = [sentence("report.class_terminal_title", count=report.submissions, assignments=len(report.scores),
                   filename=FILENAME)]
    for d in report.scores:
        lines.append("  " + sentence("report.class_terminal_scores", assignment=assignment_name(d.assignment),
                                  count=d.count, mean=d.mean, median=d.median, minimum=d.minimum, maximum=d.maximum,
                                  max_score=d.max_score))
    if report.failures:
        lines.append(sentence("report.class_terminal_failures"))
        for rank, failure in enumerate(report.failures[:TERMINAL_FAILURES], start=1):
            lines.append(clip(visible("  " + sentence("report.class_terminal_failure", rank=rank,
                                                     assignment=assignment_name(failure.assignment),
                                                     check=check_label(failure.check), count=failure.count,
                                                     cause=failure.example)), TERMINAL_WIDTH))
            if failure.hint:
                lines.append(clip(visible("     " + failure.hint), TERMINAL_WIDTH))
    if report.not_attempted:
        items = [sentence("report.class_terminal_not_attempted_item", function=row.function, count=row.count)
                 for row in report.not_attempted]
        lines.append(clip(sentence("report.class_terminal_not_attempted", functions=", ".join(items)), TERMINAL_WIDTH))
    if report.needs_a_look:
        lines.append(sentence("report.class_terminal_look", count=len(report.needs_a_look)))
        for look in report.needs_a_look:
            lines.append("  " + sentence("report.class_terminal_look_item", submission=look.submission,
                                      assignment=assignment_name(look.assignment), reason=look.reason))
    elif report.submissions:
        lines.append(sentence("report.class_terminal_all_fine"))
    return "\n".join(visible(line) for line in lines)
