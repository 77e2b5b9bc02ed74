"""The class report's words: its sentences, and how any text is shown in it so that none of it acts.

Much of what the report shows comes from students' files and code (names,
paths, feedback): `visible` writes control and direction-changing characters
as escapes, on the page and on the terminal alike.
"""

from __future__ import annotations

import unicodedata

from autograder.catalog import messages

# The report's sentences, to be moved into the message catalog (messages.py).
REPORT_TEXT: dict[str, str] = {
    "report.class_title": "Class report",
    "report.class_overview": "{count} submission(s) of {assignments} assignment(s), graded with seed {seeds}.",
    "report.class_overview_no_seed": "{count} submission(s) of {assignments} assignment(s).",
    "report.class_nothing": "No results to report.",
    "report.class_contents": "Contents",
    "report.class_scores_heading": "Scores by assignment",
    "report.class_scores_note": "Every submission counts, including those that failed to load (they score 0).",
    "report.class_assignment_heading": "{assignment}",
    "report.class_no_assignment": "(no assignment)",
    "report.class_col_assignment": "Assignment",
    "report.class_col_submissions": "Submissions",
    "report.class_col_mean": "Mean",
    "report.class_col_median": "Median",
    "report.class_col_min": "Min",
    "report.class_col_max": "Max",
    "report.class_col_out_of": "Out of",
    "report.class_col_full_marks": "Full marks",
    "report.class_col_check": "Check",
    "report.class_col_points": "Points",
    "report.class_col_passed": "Passed",
    "report.class_col_pass_rate": "Pass rate",
    "report.class_col_count": "Submissions",
    "report.class_col_failure": "Failure (first line of feedback)",
    "report.class_col_hint": "Hint",
    "report.class_col_submission": "Submission",
    "report.class_student": "student {student}",
    "report.class_col_problem": "Problem",
    "report.class_col_detail": "Detail",
    "report.class_col_seconds": "Seconds",
    "report.class_col_memory": "Sandbox peak memory (MiB)",
    "report.class_col_path": "File",
    "report.class_passed_of": "{passed} of {total}",
    "report.class_checks_heading": "Pass rate of every check",
    "report.class_failures_heading": "Most common failures",
    "report.class_failures_note": "Failures of the same check whose feedback starts alike (numbers and array values aside) are counted together; submissions that failed to load are listed on their own below.",
    "report.class_no_failures": "No check failed.",
    "report.class_who": "Submissions: {names}",
    "report.class_not_loaded_heading": "Submissions that failed to load",
    "report.class_none_not_loaded": "Every submission loaded.",
    "report.class_look_heading": "Other submissions to look at",
    "report.class_slowest_heading": "Slowest submissions",
    "report.class_no_timings": "No grading times were recorded.",
    "report.class_histogram_alt": "Histogram of the scores of {assignment}: {count} submission(s), mean {mean:.3g}, median {median:.3g} of {max_score:g}.",
    "report.class_histogram_x": "score (of {max_score:g})",
    "report.class_histogram_y": "submissions",
    "report.class_histogram_mean": "mean {mean:.3g}",
    "report.class_histogram_median": "median {median:.3g}",
    "report.class_pass_rates_alt": "Pass rate of each of the {count} checks of {assignment}, from {lowest:.0f}% to {highest:.0f}%.",
    "report.class_pass_rates_x": "pass rate (%)",
    "report.class_problem_unreadable": "the file could not be read as a notebook",
    "report.class_problem_timeout": "its top-level code did not finish within the time limit",
    "report.class_problem_exited": "its top-level code ended the grading process",
    "report.class_problem_sandbox_failed": "the grader could not start a sandbox for it",
    "report.class_problem_child_failed": "the grader could not run it",
    "report.class_problem_grader_error": "grading did not finish",
    "report.class_problem_no_notebook": "no notebook handed in (its result names the files found)",
    "report.class_problem_other": "it was not graded normally ({problem})",
    "report.class_look_mismatch": "graded as another assignment than its file name or metadata says",
    "report.class_look_tampered": "its code changed the grading environment",
    "report.class_look_internal_error": "the grader failed in one of its checks",
    "report.class_look_identity": "who handed it in is not certain from where it sits",
    "report.class_look_ignored": "files not graded (one per assignment is): {files}",
    "report.class_terminal_title": "Class report: {count} submission(s), {assignments} assignment(s); {filename} in the out dir",
    "report.class_terminal_scores": "{assignment}: {count} submission(s), mean {mean:.3g}, median {median:.3g}, min {minimum:g}, max {maximum:g} of {max_score:g}",
    "report.class_terminal_failures": "Most common failures:",
    "report.class_terminal_failure": "{rank}. {assignment} / {check}: {count} submission(s): {cause}",
    "report.class_terminal_look": "Need a look ({count}):",
    "report.class_terminal_look_item": "{submission} ({assignment}): {reason}",
    "report.class_terminal_all_fine": "No submission needs a look.",
    "report.class_students_heading": "Every submission",
    "report.class_students_note": "By student. Feedback opens the submission's results.json: every check, its points and the feedback the student gets.",
    "report.class_col_student": "Student",
    "report.class_col_score": "Score",
    "report.class_col_look": "Needs a look",
    "report.class_col_feedback": "Feedback",
    "report.class_feedback_link": "results.json",
    "report.class_score_of": "{score} of {max_score}",
    "report.class_not_attempted_heading": "Not attempted",
    "report.class_not_attempted_note": "Functions a submission left as the released stub (it still raises NotImplementedError). Their checks are not counted among the most common failures.",
    "report.class_none_not_attempted": "Every submission attempted every function.",
    "report.class_col_function": "Function",
    "report.class_terminal_not_attempted": "Not attempted: {functions}",
    "report.class_terminal_not_attempted_item": "{function} ({count})",
}


def sentence(key: str, **fields: object) -> str:
    """A sentence of the report: from the message catalog once it is there, else from REPORT_TEXT."""
    if messages.has(key):
        return messages.text(key, **fields)
    return REPORT_TEXT[key].format(**fields)


def assignment_name(assignment: str | None) -> str:
    """How the report names an assignment; results that name none are grouped under "(no assignment)"."""
    return assignment if assignment else sentence("report.class_no_assignment")


_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """Control and direction-changing characters as `\\x1b`-style escapes, so none acts on a terminal or page."""
    out = []
    for ch in text:
        if keep_newlines and ch in "\n\t":
            out.append(ch)
        elif unicodedata.category(ch) == "Cc" or ch in _BIDI or ch in "\u2028\u2029":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut after a whole word, with "…", never inside a word."""
    if len(text) <= limit:
        return text
    cut = text[:limit]  # room for the "…" comes from the space dropped before it
    words = cut[:cut.rfind(" ")] if " " in cut.lstrip() else cut[:limit - 1]
    return words.rstrip(" ,;:") + "…"
