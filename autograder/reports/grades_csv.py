"""grades.csv: one row per submission of a batch, at the top of the out dir.

Its columns are a stable schema, documented in the README ("grades.csv"):
`status` and `reason` (reports.grade_status) tell a grade from a placeholder,
and a submission not graded has no score, passed or failed count at all, so
that no gradebook imports its placeholder 0 as earned. `path` is relative to
the path given on the command line that it was found under, never the
grading machine's absolute path.
"""

from __future__ import annotations

import csv
import io
import posixpath

from autograder.reports import grade_status
from autograder.reports.out_dir import OutDir

FILENAME = "grades.csv"
COLUMNS = ("student", "submission", "assignment", "status", "reason", "score", "max_score", "passed", "failed",
           "seed", "path")


def write(rows: list[dict], out: OutDir) -> None:
    """Write rows built from results.json files (see `row`) to `<out>/grades.csv`, atomically."""
    out.write_file(None, FILENAME, render(rows).encode("utf-8"), mode=0o666)


def render(rows: list[dict]) -> str:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows({key: _inert(value) for key, value in row.items()} for row in rows)
    return text.getvalue()


# Spreadsheets run a cell that starts with one of these as a formula; a file
# named `=HYPERLINK(...).ipynb` must arrive as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _inert(value):
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def row(results_json: dict) -> dict:
    extra = results_json.get("extra_data", {})
    tests = results_json.get("tests", [])
    status = grade_status.of(results_json)
    graded = status.graded
    return {
        "student": extra.get("student") or "",
        "submission": extra.get("submission"),
        "assignment": extra.get("assignment") or "",
        "status": status.status,
        "reason": status.reason,
        "score": results_json.get("score", 0) if graded else "",
        "max_score": extra.get("max_score", sum(t.get("max_score", 0) for t in tests)),
        "passed": sum(1 for t in tests if t.get("status") == "passed") if graded else "",
        "failed": sum(1 for t in tests if t.get("status") != "passed") if graded else "",
        "seed": extra.get("seed"),
        "path": shown_path(extra),
    }


def shown_path(extra: dict) -> str:
    """The submission's path relative to the graded root (extra_data.relative_path), else its file name alone."""
    relative = extra.get("relative_path")
    if isinstance(relative, str) and relative:
        return relative
    path = extra.get("path")
    return posixpath.basename(path.replace("\\", "/")) if isinstance(path, str) else ""
