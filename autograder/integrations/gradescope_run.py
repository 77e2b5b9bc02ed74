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

from autograder.integrations.atomic_file import replace_atomically

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
    _write_results(root, failure_result(
        "Grading did not finish: the autograder stopped before the end (Gradescope's time limit, or a crash). "
        "This submission scores 0 until it is graded again; tell course staff.", assignment, config, **settings))
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
            completed = subprocess.run(command, capture_output=True, text=True, timeout=limit)
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
        data = failure_result(f"The autograder could not grade this submission ({reason}), so it scores 0. "
                              "This is not your fault: tell course staff.", assignment, config, **settings)
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
        return f"Your submission has no notebook: submit your notebook, {assignment}.ipynb."
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
    data = {
        "score": result.get("score", 0),
        "output": result.get("output", ""),
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
        "output": reason,
        "output_format": "text",
        "visibility": visibility,
        "stdout_visibility": stdout_visibility,
        "tests": tests,
        "extra_data": {"assignment": assignment, "max_score": max_score, "problem": problem},
    }


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

