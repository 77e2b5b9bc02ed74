"""Shards plus merge equal one run: grade a class whole, then as N shards in parallel, merge, compare.

    .venv/bin/python benchmarks/shards_vs_one_run.py [--per-assignment 25] [--shards 3] [--jobs 2]

builds an nbgrader-layout class (`submitted/<student>/<assignment>/`) from
benchmarks/submissions.py (full, partial and stub notebooks; every student
hands in every assignment, so each student has several files), grades it
once with `autograder grade --jobs J`, then as N `autograder grade --shard
K/N --jobs 1` processes started together, merges them with `autograder
merge`, and compares: grades.csv row for row, the JUnit files apart from
their times, every results.json apart from its timings, and report.html
apart from its slowest-submissions section. Prints the differences (none,
when they are equal) and the wall time of each step; exits 1 on a
difference. tests/test_shards.py runs the same comparison on a small class.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import submissions  # noqa: E402

# What may differ between two runs of the same class: how long things took and how much memory they used.
TIMING_EXTRA = ("grading",)  # results.json's extra_data.grading: seconds, peak memory, runner time
_SLOWEST_SECTION = re.compile(r'<section id="slowest">.*?</section>', re.S)


@dataclasses.dataclass(frozen=True)
class Timings:
    whole: float
    shards: float
    merge: float


def build_class(root: Path, per_assignment: int, assignments: list[str] | None = None, seed: int = 0) -> Path:
    """`root/submitted/<student>/<assignment>/<assignment>.ipynb` for `per_assignment` students of each assignment."""
    for assignment in submissions.benchmarked_assignments(assignments):
        for submission in submissions.build(assignment, per_assignment, seed):
            submissions.write(submission, root / "submitted" / submission.student / assignment / f"{assignment}.ipynb")
    return root / "submitted"


def autograder(*args: str | Path) -> list[str]:
    """The command line of `autograder` with these arguments, from this checkout."""
    return [sys.executable, "-m", "autograder", "--config", str(ROOT / "grading.toml"), *map(str, args)]


def run(command: list[str], timeout: float = 3600) -> subprocess.CompletedProcess:
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {completed.returncode}:\n{completed.stderr[-3000:]}")
    return completed


def grade_whole(klass: Path, out: Path, seed: int, jobs: int, sandbox: str) -> None:
    run(autograder("grade", klass, "--out", out, "--seed", str(seed), "--jobs", str(jobs), "--sandbox", sandbox,
                   "--junit-xml", out / "junit.xml"))


def grade_shards(klass: Path, outs: list[Path], seed: int, jobs: int, sandbox: str, timeout: float = 3600) -> None:
    """Every shard a separate `autograder grade --shard K/N` process, all started before any is waited for."""
    count = len(outs)
    running = [subprocess.Popen(autograder("grade", klass, "--out", out, "--seed", str(seed), "--jobs", str(jobs),
                                           "--sandbox", sandbox, "--shard", f"{index}/{count}"),
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for index, out in enumerate(outs)]
    failures = []
    for index, process in enumerate(running):
        _, stderr = process.communicate(timeout=timeout)
        if process.returncode != 0:
            failures.append(f"shard {index}/{count} exited {process.returncode}:\n{stderr[-2000:]}")
    if failures:
        raise RuntimeError("\n".join(failures))


def merge(outs: list[Path], merged: Path) -> subprocess.CompletedProcess:
    return run(autograder("merge", *outs, "--out", merged, "--junit-xml", merged / "junit.xml"))


def differences(whole: Path, merged: Path) -> list[str]:
    """What differs between one run's out dir and the merged one, timings aside (empty: equal)."""
    found = []
    rows_whole, rows_merged = _csv_rows(whole / "grades.csv"), _csv_rows(merged / "grades.csv")
    if rows_whole != rows_merged:
        found.append(f"grades.csv differs: {len(rows_whole)} rows against {len(rows_merged)}; first difference: "
                     f"{next(((a, b) for a, b in zip(rows_whole, rows_merged, strict=False) if a != b), None)}")
    for row in rows_whole:
        name = row["submission"]
        one, other = _result(whole / name / "results.json"), _result(merged / name / "results.json")
        if one != other:
            found.append(f"{name}/results.json differs beyond its timings")
    if junit_without_times(whole / "junit.xml") != junit_without_times(merged / "junit.xml"):
        found.append("the JUnit files differ beyond their times")
    html_whole, html_merged = (report_without_timings(path / "report.html") for path in (whole, merged))
    if html_whole != html_merged:
        found.append("report.html differs beyond its slowest submissions")
    return found


def junit_without_times(path: Path) -> bytes:
    root = ET.parse(path).getroot()
    for element in root.iter():
        element.attrib.pop("time", None)
    return ET.tostring(root)


def report_without_timings(path: Path) -> str:
    return _SLOWEST_SECTION.sub("", path.read_text(encoding="utf-8"))


def _csv_rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _result(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in TIMING_EXTRA:
        data.get("extra_data", {}).pop(key, None)
    return data


def compare(root: Path, per_assignment: int, shards: int, jobs: int, seed: int, sandbox: str,
            assignments: list[str] | None = None) -> tuple[list[str], Timings, int]:
    """Build, grade whole, grade as shards, merge, compare: (differences, timings, submissions)."""
    klass = build_class(root / "class", per_assignment, assignments)
    count = sum(1 for _ in klass.rglob("*.ipynb"))
    started = time.monotonic()
    grade_whole(klass, root / "whole", seed, jobs, sandbox)
    whole = time.monotonic() - started
    outs = [root / f"shard{index}" for index in range(shards)]
    started = time.monotonic()
    grade_shards(klass, outs, seed, 1, sandbox)
    sharded = time.monotonic() - started
    started = time.monotonic()
    merge(outs, root / "merged")
    merged = time.monotonic() - started
    return differences(root / "whole", root / "merged"), Timings(whole, sharded, merged), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-assignment", type=int, default=25)
    parser.add_argument("--assignments", nargs="*", help="default: every benchmarked assignment")
    parser.add_argument("--shards", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2, help="workers of the whole run (each shard uses 1)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sandbox", choices=("os", "process"), default="os")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="autograder-shards-") as temporary:
        root = args.keep or Path(temporary)
        root.mkdir(parents=True, exist_ok=True)
        found, timings, count = compare(root, args.per_assignment, args.shards, args.jobs, args.seed, args.sandbox,
                                        args.assignments)
    print(f"{count} submissions: one run (--jobs {args.jobs}) {timings.whole:.1f} s; {args.shards} shards in "
          f"parallel (--jobs 1 each) {timings.shards:.1f} s; merge {timings.merge:.1f} s")
    print("\n".join(found) if found else "shards + merge equal one run (timings aside)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
