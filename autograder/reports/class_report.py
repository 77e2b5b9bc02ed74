"""The class report: `report.html` in the out dir, and a short summary for the terminal.

Built from the results.json contents of a batch (`build`), it shows, per
assignment, the distribution of scores and the pass rate of every check; the
most common failures, each with the hint its feedback gives; the submissions
that failed to load; and the slowest submissions. This module is its public
face; the parts live beside it:

- class_summary: the typed rows computed from the results (`build`);
- feedback_patterns: how a failure's feedback is read (its cause, its hint);
- class_report_html, class_report_plots: the self-contained page and its plots;
- class_report_terminal: the few lines printed after a batch;
- class_report_text: the report's sentences, and how untrusted text is shown.
"""

from __future__ import annotations

from autograder.reports.class_report_html import COMMON_FAILURES, FILENAME, LINE_CHARS, render_html
from autograder.reports.class_report_terminal import TERMINAL_FAILURES, TERMINAL_WIDTH, render_terminal
from autograder.reports.class_report_text import REPORT_TEXT
from autograder.reports.class_summary import (
    LOAD_PROBLEMS,
    SLOWEST,
    CheckPassRate,
    ClassReport,
    CommonFailure,
    NeedsALook,
    NotAttempted,
    NotLoaded,
    ScoreDistribution,
    SlowSubmission,
    StudentRow,
    build,
    problem_reason,
)
from autograder.reports.feedback_patterns import hint_of, normalize_feedback
from autograder.reports.out_dir import OutDir

__all__ = [
    "COMMON_FAILURES", "FILENAME", "LINE_CHARS", "LOAD_PROBLEMS", "REPORT_TEXT", "SLOWEST", "TERMINAL_FAILURES",
    "TERMINAL_WIDTH", "CheckPassRate", "ClassReport", "CommonFailure", "NeedsALook", "NotAttempted", "NotLoaded",
    "ScoreDistribution", "SlowSubmission", "StudentRow", "build", "hint_of", "normalize_feedback",
    "problem_reason", "render_html", "render_terminal", "write",
]


def write(results: list[dict], out: OutDir) -> ClassReport:
    """Write `<out>/report.html` for `results` through OutDir (atomically, never through a link); return the report."""
    report = build(results)
    out.write_file(None, FILENAME, render_html(report).encode("utf-8"), mode=0o666)
    return report
