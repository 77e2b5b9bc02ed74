"""Points for GitHub Classroom, in the form its autograding reporter reads.

GitHub Classroom takes a repository's grade from its "Autograding Tests"
workflow: the last step, classroom-resources/autograding-grading-reporter,
reads one result per "runner" and posts `Points <score>/<max>`, which
Classroom records. For each step id listed in its `runners` input it reads
the environment variable `<STEP ID IN CAPITALS>_RESULTS`: base64 of a JSON
object such as the autograding-command-grader action writes,

    {"version": 1, "status": "pass" | "fail" | "error", "max_score": 2,
     "tests": [{"name": ..., "status": "pass" | "fail" | "error", "score": 2,
                "message": ..., "test_code": "", "filename": "", "line_no": 0, "duration": 0}]}

The points it posts are the sum of every test's `score` over the sum of
every runner's `max_score`. Its log shows, per runner, (passed tests / all
tests) x max_score, which is right only when each runner holds one test or
all of its tests are worth the same. So each check here is a runner of its
own, with its own points: the log, the table and the grade all agree.

`python -m autograder.integrations.github_classroom OUT_DIR --assignment A`
(after `autograder grade ... --out OUT_DIR`) writes, in a workflow step:
- `<ID>_RESULTS=<base64>` for each check into $GITHUB_ENV, so the reporter
  step after it sees them;
- `runners=<id>,<id>,...` (for the reporter's `runners` input),
  `result=<base64 of all checks as one runner>` and `points=<score>/<max>`
  into $GITHUB_OUTPUT;
- a table of the checks with the feedback of each failed one into
  $GITHUB_STEP_SUMMARY (the run's summary page), and to its own log, since
  the reporter prints only the names of failed checks.
Outside Actions (no $GITHUB_OUTPUT) those lines are printed instead. When
nothing was graded (no results.json), one runner "grading" scores 0 of the
assignment's total (from grading.toml) and says why, so Classroom records a
zero rather than nothing.

The workflow template and the instructors' steps are in the
github_classroom/ folder beside this module (`--print-workflow` prints it).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import sys
from pathlib import Path

from autograder.load import bounded_json
from autograder.reports.out_dir import MAX_READ_BYTES
from autograder.reports.result_json import mapping, mappings, number

WORKFLOW = Path(__file__).resolve().parent / "github_classroom" / "classroom.yml"
MESSAGE_MAX_CHARS = 2000  # each runner's JSON travels in an environment variable
GRADER_PROBLEMS = frozenset({"grader_error", "sandbox_failed"})  # the grader's fault: "error", not "fail"


def load_results(path: Path) -> list[dict]:
    """The results.json dicts at `path`: one file, or every `<name>/results.json` of an out dir."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(path.glob("*/results.json")) if path.is_dir() else []
    results = []
    for file in files:
        try:
            data = bounded_json.read(file, max_bytes=MAX_READ_BYTES)
        except (OSError, ValueError):  # bounded_json's limits are ValueErrors too
            continue
        if isinstance(data, dict):
            results.append(data)
    return results


def runner_results(results: list[dict], *, max_score: float = 0.0,
                   reason: str = "No result was written: grading did not run or did not finish.") -> list[tuple[str,
                                                                                                                dict]]:
    """(runner id, reporter JSON) for every check of every result, in order.

    With no check at all, one runner "grading" that scores 0 of `max_score`
    (or of the results' own maximum) with `reason` (or the results' output).
    """
    runners: list[tuple[str, dict]] = []
    taken: set[str] = set()
    several = len(results) > 1
    for result in results:
        extra = mapping(result.get("extra_data"))
        status_if_failed = "error" if extra.get("problem") in GRADER_PROBLEMS else "fail"
        prefix = f"{extra.get('submission') or 'submission'}: " if several else ""
        for test in mappings(result.get("tests")):
            if not isinstance(test, dict):
                continue
            name = str(test.get("name") or "check")
            points = number(test.get("max_score"))
            passed = test.get("status") == "passed"
            status = "pass" if passed else status_if_failed
            runner = _runner_id(name, taken)
            runners.append((runner, _reporter_json(status, points, [
                _test(prefix + name, status, number(test.get("score")),
                      "" if passed else str(test.get("output") or ""))])))
    if runners:
        return runners
    maximum = max_score or max((number((r.get("extra_data") or {}).get("max_score")) for r in results), default=0.0)
    said = next((str(r.get("output")) for r in results if r.get("output")), "") or reason
    return [("grading", _reporter_json("error", maximum, [_test("grading", "error", 0.0, said)]))]


def combined_result(runners: list[tuple[str, dict]]) -> dict:
    """Every runner's tests as one reporter JSON (for a workflow that lists a single runner)."""
    tests = [test for _, result in runners for test in result["tests"]]
    statuses = {test["status"] for test in tests}
    status = "error" if "error" in statuses else "fail" if "fail" in statuses else "pass"
    return _reporter_json(status, sum(result["max_score"] for _, result in runners), tests)


def points(runners: list[tuple[str, dict]]) -> tuple[float, float]:
    """(score, max) exactly as the reporter adds them up for Classroom."""
    score = maximum = 0.0
    for _, result in runners:
        if result["max_score"]:
            maximum += result["max_score"]
            score += sum(test["score"] for test in result["tests"])
    return score, maximum


def encode(result: dict) -> str:
    """base64 of the compact UTF-8 JSON, as the autograding actions' `result` outputs are."""
    return base64.b64encode(json.dumps(result, ensure_ascii=False, separators=(",",
                                                                               ":")).encode("utf-8")).decode("ascii")


def environment_name(runner: str) -> str:
    """The variable the reporter reads for `runner`."""
    return f"{runner.strip().upper()}_RESULTS"


def summary_markdown(runners: list[tuple[str, dict]]) -> str:
    score, maximum = points(runners)
    lines = [f"### Autograding: {score:g} / {maximum:g} points", "", "| check | points | result |", "|---|---|---|"]
    for _, result in runners:
        for test in result["tests"]:
            mark = "passed" if test["status"] == "pass" else "failed" if test["status"] == "fail" else "not graded"
            lines.append(f"| {_cell(test['name'])} | {test['score']:g} / {result['max_score']:g} | {mark} |")
    failed = [(t["name"], t["message"]) for _,
              r in runners for t in r["tests"] if t["status"] != "pass" and t["message"]]
    if failed:
        lines += ["", "#### Feedback", ""]
        for name, message in failed:
            lines += [f"**{_cell(name)}**", "", "```text", message.replace("```", "'''"), "```", ""]
    return "\n".join(lines) + "\n"


def log_text(runners: list[tuple[str, dict]]) -> str:
    score, maximum = points(runners)
    lines = []
    for _, result in runners:
        for test in result["tests"]:
            mark = "PASS" if test["status"] == "pass" else "FAIL" if test["status"] == "fail" else "ERROR"
            lines.append(f"{mark}  {test['score']:g}/{result['max_score']:g}  {test['name']}")
            if test["status"] != "pass" and test["message"]:
                lines += ["      " + line for line in test["message"].splitlines()]
    lines.append(f"Points {score:g}/{maximum:g}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder.integrations.github_classroom",
        description="Turn `autograder grade` results into the runners GitHub Classroom's autograding reporter reads.")
    parser.add_argument("path", type=Path, nargs="?", metavar="OUT_DIR_OR_RESULTS_JSON")
    parser.add_argument("--assignment", help="the assignment graded: its total is the maximum when nothing was graded")
    parser.add_argument("--config", type=Path, help="the course's grading.toml (default: the current directory's)")
    parser.add_argument("--github-output", type=Path, default=_path_from_env("GITHUB_OUTPUT"))
    parser.add_argument("--github-env", type=Path, default=_path_from_env("GITHUB_ENV"))
    parser.add_argument("--summary", type=Path, default=_path_from_env("GITHUB_STEP_SUMMARY"))
    parser.add_argument("--print-workflow", action="store_true", help="print the workflow template and exit")
    args = parser.parse_args(argv)
    if args.print_workflow:
        sys.stdout.write(WORKFLOW.read_text(encoding="utf-8"))
        return 0
    if args.path is None:
        parser.error("give the out dir of `autograder grade` or a results.json")
    results = load_results(args.path)
    runners = runner_results(results, max_score=_assignment_total(args.assignment, args.config))
    score, maximum = points(runners)
    outputs = [("runners", ",".join(runner for runner, _ in runners)), ("result", encode(combined_result(runners))),
               ("points", f"{score:g}/{maximum:g}")]
    environment = [(environment_name(runner), encode(result)) for runner, result in runners]
    sys.stdout.write(log_text(runners))
    if args.github_env is not None:
        _append(args.github_env, environment)
    else:
        sys.stdout.write("".join(f"{name}={value}\n" for name, value in environment))
    if args.github_output is not None:
        _append(args.github_output, outputs)
    else:
        sys.stdout.write("".join(f"{name}={value}\n" for name, value in outputs))
    if args.summary is not None:
        with open(args.summary, "a", encoding="utf-8") as handle:
            handle.write(summary_markdown(runners))
    return 0


def _reporter_json(status: str, max_score: float, tests: list[dict]) -> dict:
    return {"version": 1, "status": status, "max_score": max_score, "tests": tests}


def _test(name: str, status: str, score: float, message: str) -> dict:
    if len(message) > MESSAGE_MAX_CHARS:
        message = message[:MESSAGE_MAX_CHARS - 1] + "…"
    return {"name": name, "status": status, "score": score, "message": message, "test_code": "", "filename": "",
            "line_no": 0, "duration": 0}


def _runner_id(name: str, taken: set[str]) -> str:
    """A step-id-like name for the check `name`: lowercase letters and digits, unique.

    The function's name, at most 16 characters, and a number: short enough
    for the reporter's table (20 columns) to show it whole.
    """
    base = re.sub(r"[^a-z0-9]", "", name.split(":")[0].lower())[:16] or "check"
    number = 1
    while f"{base}{number}" in taken:
        number += 1
    taken.add(f"{base}{number}")
    return f"{base}{number}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _assignment_total(assignment: str | None, config_path: Path | None) -> float:
    if not assignment:
        return 0.0
    try:
        from autograder import grading_config

        config = grading_config.load(config_path or grading_config.DEFAULT_PATH)
        return config.assignment_total(assignment) if assignment in config.assignments else 0.0
    except Exception:
        return 0.0


def _path_from_env(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _append(path: Path, pairs: list[tuple[str, str]]) -> None:
    """`name=value` lines, as GitHub Actions reads $GITHUB_OUTPUT and $GITHUB_ENV (values here are one line)."""
    with open(path, "a", encoding="utf-8") as handle:
        for name, value in pairs:
            if "\n" in value or "\n" in name or "=" in name:
                raise ValueError(f"{name!r} cannot be written as a single name=value line")
            handle.write(f"{name}={value}\n")


if __name__ == "__main__":
    raise SystemExit(main())
