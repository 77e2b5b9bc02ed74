"""What run_autograder runs inside Gradescope's container: grade one submission, write results.json.

It writes a results.json in every case: a zero saying "grading did not
finish" before it starts (so a timeout leaves that), a zero with the reason
when no notebook was found or grading failed, and otherwise the graded result
in the form Gradescope reads, with a note naming the files it did not grade.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.catalog import messages
from autograder.grade.batch_env import IMAGE_WITHOUT_SOLUTIONS
from autograder.integrations.atomic_file import replace_atomically
from autograder.reports import grade_status

# Checks named in the first line of what the student reads; the rest are counted.
LOOK_AT_CHECKS = 5
# Time for Python, JAX and pytest to start and for the worker's own steps, on top of the submission's limit.
START_MARGIN_SECONDS = 180


def run(root: Path, assignment: str, config_path: Path, *, sandbox: str = "os", python: str = sys.executable,
        visibility: str = "visible", stdout_visibility: str = "hidden") -> dict:
    """Grade the submission in `<root>/submission/` and write `<root>/results/results.json`; returns what it wrote.

    A zero that says grading did not finish is written first, so a run that
    Gradescope stops at its time limit still leaves a results.json.
    """
    started = time.monotonic()
    root = Path(root)
    settings = {"visibility": visibility, "stdout_visibility": stdout_visibility}
    config = _load_config(config_path)
    _write_results(root, failure_result(messages.text("gradescope.not_finished"), assignment, config, **settings))
    submission = find_submission(root / "submission", assignment)
    if isinstance(submission, str):
        data = failure_result(submission, assignment, config, problem="no_submission", **settings)
        _write_results(root, data)
        return data
    limit = (config.limits.submission_seconds if config else 240.0) + START_MARGIN_SECONDS
    with tempfile.TemporaryDirectory(prefix="autograder-gradescope-out-") as out:
        command = [python, "-m", "autograder", "--config", str(config_path), "grade", str(submission),
                   "--out", out, "--jobs", "1", "--assignment", assignment, "--sandbox", sandbox]
        print("run_autograder: " + " ".join(command), flush=True)
        try:
            # The image holds no solutions, by design: the batch's staff note says so, not to add them.
            environment = dict(os.environ, **{IMAGE_WITHOUT_SOLUTIONS: "1"})
            completed = subprocess.run(command, capture_output=True, text=True, timeout=limit, env=environment)
            stdout, stderr, code = completed.stdout, completed.stderr, completed.returncode
            reason = _last_line(stderr) or f"`autograder grade` exited with status {code}"
        except subprocess.TimeoutExpired as expired:
            stdout, stderr, code = _text(expired.stdout), _text(expired.stderr), None
            reason = f"grading did not finish within {limit:g} s"
        except OSError as error:
            stdout, stderr, code = "", str(error), None
            reason = f"{python} could not be started: {error.strerror or error}"
        sys.stdout.write(stdout)
        sys.stderr.write(stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        graded = _read_single_result(Path(out))
    if code == 0 and graded is not None:
        data = to_gradescope(graded, execution_time=time.monotonic() - started, **settings)
        data = _with_ignored_files(data, root / "submission", submission, assignment)
    else:
        if code == 0:
            reason = "`autograder grade` finished but wrote no result"
        # The reason names the image's files and the kit's errors: course staff read it here, in the autograder's
        # output; the student reads that it is not their fault.
        print(f"run_autograder: could not grade the submission: {reason}", flush=True)
        data = failure_result(messages.text("gradescope.could_not_grade"), assignment, config, **settings)
    _write_results(root, data)
    return data


def find_submission(directory: Path, assignment: str) -> Path | str:
    """The one notebook (or .py file) in `directory` to grade, or a sentence for the student saying what is wrong.

    Only regular files count (no symbolic links), outside hidden folders and
    files (macOS's `._` files, `.ipynb_checkpoints`, `__MACOSX`). Notebooks
    come first; among several, the batch's rule (load/submission_choice): the
    notebook whose metadata names the assignment, then `<assignment>.ipynb`,
    then the newest. `run` tells the student which files were not graded.
    """
    found = _gradable_files(directory)
    candidates = found[".ipynb"] or found[".py"]
    if not candidates:
        return messages.text("gradescope.no_notebook", assignment=assignment)
    from autograder.load.submission_choice import choose_in_folder

    return choose_in_folder(candidates, assignment)[0]


def _gradable_files(directory: Path) -> dict[str, list[Path]]:
    """The notebooks and .py files in `directory` that `find_submission` considers, by suffix."""
    found: dict[str, list[Path]] = {".ipynb": [], ".py": []}
    if directory.is_dir() and not directory.is_symlink():
        for folder, subfolders, names in os.walk(directory):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d != "__MACOSX")
            for name in sorted(names):
                suffix = Path(name).suffix.lower()
                path = Path(folder) / name
                if suffix in found and not name.startswith(".") and path.is_file() and not path.is_symlink():
                    found[suffix].append(path)
    return found


def _with_ignored_files(data: dict, directory: Path, graded: Path, assignment: str) -> dict:
    """`data` with a note naming the files of the submission that were not graded, if any (the student reads it)."""
    from autograder.load.submission_choice import ignored_note

    found = _gradable_files(directory)
    ignored = [path for path in found[".ipynb"] + found[".py"] if path != graded]
    if ignored:
        note = ignored_note(graded, ignored, directory, assignment)
        data["output"] = "\n".join(part for part in (data.get("output") or "", note) if part)
        data.setdefault("extra_data", {})["ignored_files"] = [str(p.relative_to(directory)) for p in ignored]
    return data


def to_gradescope(result: dict, *, visibility: str = "visible", stdout_visibility: str = "hidden",
                  execution_time: float | None = None) -> dict:
    """A results.json from `autograder grade` in the form Gradescope reads, with its display settings."""
    tests = []
    for test in result.get("tests", []):
        shown = {
            "name": test.get("name", "check"),
            "score": test.get("score", 0),
            "max_score": test.get("max_score", 0),
            "status": test.get("status", "failed"),
            "output": test.get("output", ""),
            "output_format": "text",
        }
        if isinstance(test.get("extra_data"), dict):  # "outcome": "not_checked" (results.json's own field)
            shown["extra_data"] = test["extra_data"]
        tests.append(shown)
    recorded = result.get("extra_data")
    extra: dict = recorded if isinstance(recorded, dict) else {}
    score = result.get("score", 0)
    max_score = extra.get("max_score", sum(t.get("max_score", 0) for t in result.get("tests", [])))
    looks: list[str] | None = [t.get("name", "check") for t in result.get("tests", []) if t.get("status") != "passed"]
    if not grade_status.of(result).graded:
        looks = None  # its checks' zeros are no verdict on the notebook: the note below says why
    with messages.using(extra.get("language")):  # the language of the feedback below it
        first = score_line(score, max_score, looks)
    data = {
        "score": score,
        "output": "\n\n".join(part for part in (first, result.get("output", "")) if part),
        "output_format": "text",
        "visibility": visibility,
        "stdout_visibility": stdout_visibility,
        "tests": tests,
        "extra_data": result.get("extra_data", {}),
    }
    if execution_time is not None:
        data["execution_time"] = max(0, round(execution_time))
    return data


def failure_result(reason: str, assignment: str | None, config=None, *, problem: str = "grader_error",
                   visibility: str = "visible", stdout_visibility: str = "hidden") -> dict:
    """A results.json that scores 0 and says why: every check of the assignment at zero with `reason`."""
    tests = []
    max_score = 0.0
    if config is not None and assignment in getattr(config, "assignments", []):
        for function, properties in config.points[assignment].items():
            for prop, points in properties.items():
                tests.append({"name": f"{function}: {prop}", "score": 0.0, "max_score": points, "status": "failed",
                              "output": reason, "output_format": "text"})
        max_score = config.assignment_total(assignment)
    return {
        "score": 0.0,
        "output": f"{score_line(0.0, max_score, None)}\n{reason}",
        "output_format": "text",
        "visibility": visibility,
        "stdout_visibility": stdout_visibility,
        "tests": tests,
        "extra_data": {"assignment": assignment, "max_score": max_score, "problem": problem},
    }


def score_line(score: float, max_score: float, looks: list[str] | None) -> str:
    """The first line the student reads: the score, and the checks to look at (`looks`; None: not graded)."""
    if looks is None:
        return messages.text("gradescope.score_not_graded", score=score, max_score=max_score)
    if not looks:
        return messages.text("gradescope.score_all_passed", score=score, max_score=max_score)
    shown = looks[:LOOK_AT_CHECKS]
    if len(looks) > LOOK_AT_CHECKS:
        shown.append(messages.text("gradescope.more_checks", count=len(looks) - LOOK_AT_CHECKS))
    return messages.text("gradescope.score_look_at", score=score, max_score=max_score, checks=", ".join(shown))


def _load_config(path: Path):
    try:
        from autograder import grading_config

        return grading_config.load(path)
    except Exception as error:  # still write a result; the reason goes to the autograder's output
        print(f"run_autograder: could not read {path}: {error}", file=sys.stderr)
        return None


def _read_single_result(out: Path) -> dict | None:
    found = sorted(out.glob("*/results.json"))
    if len(found) != 1:
        return None
    try:
        from autograder.load import bounded_json
        from autograder.reports.out_dir import MAX_READ_BYTES

        data = bounded_json.read(found[0], max_bytes=MAX_READ_BYTES)
    except (OSError, ValueError):  # bounded_json's limits are ValueErrors too
        return None
    return data if isinstance(data, dict) and isinstance(data.get("tests", []), list) else None


def _write_results(root: Path, data: dict) -> None:
    directory = root / "results"
    directory.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    replace_atomically(directory / "results.json", lambda handle: handle.write(text.encode("utf-8")))


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    return line[:500]

