"""grades.csv: one row per submission of a batch."""

from __future__ import annotations

import csv
import os
from pathlib import Path

COLUMNS = ("submission", "assignment", "score", "max_score", "passed", "failed", "seed", "path")


def write(rows: list[dict], path: Path) -> None:
    """Write rows built from results.json files (see `row`), atomically."""
    temporary = path.with_suffix(".csv.tmp")
    with open(temporary, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    os.replace(temporary, path)


def row(results_json: dict) -> dict:
    extra = results_json.get("extra_data", {})
    tests = results_json.get("tests", [])
    return {
        "submission": extra.get("submission"),
        "assignment": extra.get("assignment") or "",
        "score": results_json.get("score", 0),
        "max_score": extra.get("max_score", sum(t.get("max_score", 0) for t in tests)),
        "passed": sum(1 for t in tests if t.get("status") == "passed"),
        "failed": sum(1 for t in tests if t.get("status") != "passed"),
        "seed": extra.get("seed"),
        "path": extra.get("path"),
    }
