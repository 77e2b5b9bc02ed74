"""grades.csv: one row per submission of a batch, at the top of the out dir."""

from __future__ import annotations

import csv
import io

from autograder.reports.out_dir import OutDir

FILENAME = "grades.csv"
COLUMNS = ("student", "submission", "assignment", "score", "max_score", "passed", "failed", "seed", "path")


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
    return {
        "student": extra.get("student") or "",
        "submission": extra.get("submission"),
        "assignment": extra.get("assignment") or "",
        "score": results_json.get("score", 0),
        "max_score": extra.get("max_score", sum(t.get("max_score", 0) for t in tests)),
        "passed": sum(1 for t in tests if t.get("status") == "passed"),
        "failed": sum(1 for t in tests if t.get("status") != "passed"),
        "seed": extra.get("seed"),
        "path": extra.get("path"),
    }
