"""Gradescope's autograder zip for one assignment, and what its run_autograder runs.

Gradescope builds a Docker image (Ubuntu, root) from the zip an instructor
uploads: it unpacks the zip into /autograder/source, runs `setup.sh` once,
and copies `run_autograder` to /autograder/run_autograder. For every
submission it puts the student's files into /autograder/submission/, runs
run_autograder from /autograder, and reads /autograder/results/results.json.

`build` writes that zip:

- `setup.sh`: installs bubblewrap and libseccomp (the OS sandbox) with apt,
  Python 3.11 if the image has none (deadsnakes' PPA on Ubuntu), and the kit
  from the wheel in the zip into /autograder/source/venv, every package
  pinned to the version the zip was built with (the kit's own pins from
  pyproject.toml and, for their dependencies, the versions installed where
  the zip was built); it puts the released notebook where the kit looks for
  it and compiles the suite's reference programs once, into the image.
- `run_autograder`: grades the notebook in /autograder/submission/ with
  `autograder grade` (the OS sandbox by default) and writes Gradescope's
  results.json. It writes a results.json in every case: a zero saying
  "grading did not finish" before it starts (so a timeout leaves that), a
  zero with the reason when no notebook was found or grading failed, and,
  if Python itself cannot start, a minimal one from bash.
- the kit as a wheel, built from pyproject.toml and autograder/ alone;
  `grading.toml`; the released (student) notebook of the assignment.

Nothing else: no solutions (the suites compute their references
themselves; the only reader of solutions/ is the batch's store of shared
compiled programs, which for a single submission per container costs a
second grading instead of saving one, and is skipped when there is no
solution), no tests, no examples, no student data.

Testing hooks (for the kit's tests and for trying a zip on any Linux machine):
- AUTOGRADER_GRADESCOPE_ROOT replaces /autograder in setup.sh and run_autograder;
- AUTOGRADER_GRADESCOPE_PYTHON is the Python that run_autograder uses instead
  of the one setup.sh installed (a Python with the kit installed; setup.sh
  need not have run).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT_VARIABLE = "AUTOGRADER_GRADESCOPE_ROOT"
PYTHON_VARIABLE = "AUTOGRADER_GRADESCOPE_PYTHON"
DEFAULT_ROOT = "/autograder"
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
SANDBOXES = ("os", "process")
# Time for Python, JAX and pytest to start and for the worker's own steps, on top of the submission's limit.
START_MARGIN_SECONDS = 180
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# What goes into the wheel: the package and what pyproject.toml needs to build it.
_WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "LICENSE.md", "LICENSE.txt")


class BuildError(Exception):
    """The zip cannot be built; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class BuiltZip:
    path: Path
    assignment: str
    max_score: float
    wheel: str
    entries: tuple[str, ...]
    pins: tuple[str, ...]

    def summary(self) -> str:
        return (f"Wrote {self.path} for {self.assignment} ({len(self.entries)} files, {len(self.pins)} pinned "
                f"packages). Upload it as the assignment's autograder on Gradescope (Configure Autograder, "
                f"Zip file upload) and set the assignment's points to {self.max_score:g}.")


# --- building the zip ---------------------------------------------------------

def build(assignment: str, output_zip: Path | str, config, *, repo_root: Path | str, sandbox: str = "os",
          visibility: str = "visible", stdout_visibility: str = "hidden") -> BuiltZip:
    """Write Gradescope's autograder zip for `assignment` to `output_zip` (atomically); raises BuildError.

    `config` is the GradingConfig whose file goes into the zip; `repo_root`
    holds pyproject.toml, autograder/ and assignments/. `sandbox` is how
    run_autograder grades ("os": bubblewrap, which needs a container that
    allows namespaces; "process": weaker, a hostile submission could change
    its own grade). `visibility` and `stdout_visibility` are Gradescope's
    settings for the results and for run_autograder's output.
    """
    repo_root = Path(repo_root)
    if assignment not in config.assignments:
        known = ", ".join(config.assignments)
        raise BuildError(f"no assignment named {assignment!r} in {config.source}; known: {known}")
    if not _SAFE_NAME.match(assignment):
        raise BuildError(f"assignment name {assignment!r} must be letters, digits, '_', '.' or '-' to be used in "
                         "the zip's scripts")
    if sandbox not in SANDBOXES:
        raise BuildError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")
    for name, value in (("visibility", visibility), ("stdout_visibility", stdout_visibility)):
        if value not in VISIBILITIES:
            raise BuildError(f"{name} must be one of {', '.join(VISIBILITIES)}, got {value!r}")
    if not (repo_root / "autograder" / "suites" / f"test_{assignment}.py").is_file():
        raise BuildError(f"no suite for {assignment} at {repo_root}/autograder/suites/test_{assignment}.py")
    pins = pinned_requirements(repo_root)
    released = repo_root / "assignments" / assignment / f"{assignment}.ipynb"
    with tempfile.TemporaryDirectory(prefix="autograder-gradescope-") as scratch:
        wheel = build_wheel(repo_root, Path(scratch) / "wheel")
        with zipfile.ZipFile(wheel) as contents:
            if f"autograder/suites/test_{assignment}.py" not in contents.namelist():
                raise BuildError(f"the wheel built from {repo_root} has no suite for {assignment}")
        files: list[tuple[str, bytes, int]] = [
            ("setup.sh", setup_script(assignment, wheel.name, pins, released.is_file()).encode(), 0o755),
            ("run_autograder", run_script(assignment, sandbox, visibility, stdout_visibility).encode(), 0o755),
            (wheel.name, wheel.read_bytes(), 0o644),
            ("grading.toml", Path(config.source).read_bytes(), 0o644),
        ]
        if released.is_file():
            files.append((f"assignments/{assignment}/{assignment}.ipynb", released.read_bytes(), 0o644))
        _write_zip(Path(output_zip), files)
    return BuiltZip(path=Path(output_zip), assignment=assignment, max_score=config.assignment_total(assignment),
                    wheel=wheel.name, entries=tuple(name for name, _, _ in files), pins=tuple(pins))


def build_wheel(repo_root: Path, directory: Path) -> Path:
    """Build the kit's wheel from a clean copy of pyproject.toml and autograder/; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autograder-wheel-") as scratch:
        source = Path(scratch) / "kit"
        source.mkdir()
        for name in _WHEEL_SOURCES:
            if (repo_root / name).is_file():
                shutil.copy2(repo_root / name, source / name)
        shutil.copytree(repo_root / "autograder", source / "autograder",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*"))
        base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                "--wheel-dir", str(directory)]
        # An isolated build fetches the build backend pyproject.toml names; offline, use the one installed here.
        for extra in ([], ["--no-build-isolation"]):
            completed = subprocess.run([*base, *extra, str(source)], capture_output=True, text=True, timeout=600)
            wheels = sorted(directory.glob("autograder-*.whl"))
            if completed.returncode == 0 and wheels:
                return wheels[-1]
        raise BuildError(f"building the kit's wheel failed: {(completed.stderr or completed.stdout).strip()[-1500:]}")


def pinned_requirements(repo_root: Path) -> list[str]:
    """`name==version` for the kit's dependencies and theirs, as Linux x86-64 CPython 3.11 needs them.

    The kit's own pins come from pyproject.toml; every dependency below them
    is pinned to the version installed in this Python, which must have the
    kit's pins installed (raises BuildError otherwise: run `make` first).
    """
    import tomllib

    from packaging.markers import default_environment
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    project = tomllib.loads((repo_root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    environment: dict[str, str] = {key: str(value) for key, value in default_environment().items()}
    environment.update(sys_platform="linux", platform_system="Linux", os_name="posix",
                       platform_machine="x86_64", implementation_name="cpython",
                       platform_python_implementation="CPython")
    pins: dict[str, str] = {}
    pending: list[tuple[str, bool]] = [(text, True) for text in project.get("dependencies", [])]
    mismatched = []
    while pending:
        text, direct = pending.pop()
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        name = canonicalize_name(requirement.name)
        if name in pins:
            continue
        try:
            distribution = importlib.metadata.distribution(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            if direct:
                mismatched.append(f"{requirement} (not installed)")
            continue
        version = distribution.version
        if direct and not requirement.specifier.contains(version, prereleases=True):
            mismatched.append(f"{requirement} (installed: {version})")
            continue
        pins[name] = version
        for dependency in distribution.requires or []:
            try:
                child = Requirement(dependency)
            except InvalidRequirement:
                continue
            extras = [""] + sorted(requirement.extras)
            if child.marker is None or any(child.marker.evaluate(dict(environment, extra=e)) for e in extras):
                pending.append((dependency.split(";")[0].strip(), False))
    if mismatched:
        raise BuildError("this Python does not have the kit's pinned dependencies installed: "
                         f"{'; '.join(sorted(mismatched))}. Build the zip with the kit's own environment "
                         "(`make`, then .venv/bin/autograder), so the zip pins what the kit was tested with.")
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


def setup_script(assignment: str, wheel: str, pins: list[str], has_released: bool) -> str:
    """setup.sh: run once, as root, when Gradescope builds the autograder's image."""
    released = (f'''
# The released notebook where the kit looks for it: the grader then skips the
# notebook's unchanged example cells, which change no grade and cost compile time.
released="$("$VENV/bin/python" -c 'from autograder.load import example_cells; print(example_cells.ASSIGNMENTS)')"
mkdir -p "$released/{assignment}"
cp "$SOURCE/assignments/{assignment}/{assignment}.ipynb" "$released/{assignment}/"

# Compile the suite's reference programs once, into this image's JAX cache, by
# grading the released notebook (kit code only, so without the OS sandbox).
"$VENV/bin/python" -m autograder --config "$SOURCE/grading.toml" grade \\
    "$SOURCE/assignments/{assignment}/{assignment}.ipynb" --out "$(mktemp -d)" --jobs 1 \\
    --assignment {assignment} --sandbox process >/dev/null 2>&1 || true
''' if has_released else "")
    pin_lines = "\n".join(pins)
    return f'''#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image for
# {assignment}. It installs the OS sandbox's tools (bubblewrap, libseccomp),
# Python 3.11, and the kit with every package at the version it was tested with.
set -euo pipefail
ROOT="${{{ROOT_VARIABLE}:-{DEFAULT_ROOT}}}"
SOURCE="$ROOT/source"
VENV="$SOURCE/venv"
export DEBIAN_FRONTEND=noninteractive

apt-get update -qq
apt-get install -y -qq --no-install-recommends bubblewrap libseccomp2 ca-certificates

have_python311() {{
  command -v python3.11 >/dev/null 2>&1 &&
    python3.11 -c 'import sys, ensurepip, venv; assert sys.version_info[:2] == (3, 11)' >/dev/null 2>&1
}}
if ! have_python311; then
  if grep -qi '^ID=ubuntu' /etc/os-release 2>/dev/null; then
    apt-get install -y -qq --no-install-recommends software-properties-common gpg-agent
    add-apt-repository -y ppa:deadsnakes/ppa
    apt-get update -qq
  fi
  apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv
fi
have_python311 || {{ echo "setup.sh: could not install Python 3.11 with ensurepip and venv" >&2; exit 1; }}

python3.11 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip

# Every package at the version the zip was built with (the kit's pins from
# pyproject.toml, and the versions of their dependencies the kit was tested with).
cat > "$SOURCE/constraints.txt" <<'PINS'
{pin_lines}
PINS
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \\
    --constraint "$SOURCE/constraints.txt" "$SOURCE/{wheel}"
"$VENV/bin/python" -c "from autograder import grading_config; grading_config.load('$SOURCE/grading.toml')"
{released}
# Say in the build log whether the OS sandbox works here. The image build may not
# allow what a grading container allows, so this only informs.
if "$VENV/bin/python" -c 'from autograder.sandbox import os_isolation; os_isolation.check_available()'; then
  echo "setup.sh: the OS sandbox works in this image."
else
  echo "setup.sh: the OS sandbox did not start during the image build (see above)."
fi
chmod +x "$ROOT/run_autograder" "$SOURCE/run_autograder" 2>/dev/null || true
'''


def run_script(assignment: str, sandbox: str, visibility: str, stdout_visibility: str) -> str:
    """run_autograder: grade $ROOT/submission into $ROOT/results/results.json, whatever happens."""
    return f'''#!/usr/bin/env bash
# Gradescope runs this for every submission of {assignment}, from /autograder.
# It grades the notebook in $ROOT/submission/ and writes $ROOT/results/results.json,
# in every case (a zero with the reason when grading fails).
# Testing hooks: {ROOT_VARIABLE} replaces /autograder; {PYTHON_VARIABLE} is a
# Python with the kit installed, used instead of the one setup.sh installed.
set -u
ROOT="${{{ROOT_VARIABLE}:-{DEFAULT_ROOT}}}"
SOURCE="$ROOT/source"
PYTHON="${{{PYTHON_VARIABLE}:-$SOURCE/venv/bin/python}}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
rm -f "$RESULTS"

"$PYTHON" -m autograder.integrations.gradescope_zip run --root "$ROOT" --assignment {assignment} \\
    --config "$SOURCE/grading.toml" --sandbox {sandbox} \\
    --visibility {visibility} --stdout-visibility {stdout_visibility}
status=$?

if [ ! -s "$RESULTS" ]; then
  # Python could not start or stopped before writing anything: a zero that says so.
  printf '%s\\n' '{{"score": 0.0, "output": "The autograder could not run, so this submission was not graded and scores 0. This is not your fault: course staff can see what happened in the autograder output.", "output_format": "text", "visibility": "{visibility}", "stdout_visibility": "{stdout_visibility}", "tests": [], "extra_data": {{"assignment": "{assignment}", "problem": "grader_error"}}}}' > "$RESULTS"
  echo "run_autograder: $PYTHON exited with status $status without writing $RESULTS; wrote a zero." >&2
fi
exit 0
'''


def _write_zip(path: Path, files: list[tuple[str, bytes, int]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary_beside(path)
    try:
        with os.fdopen(os.open(temporary, _CREATE, 0o644), "wb") as handle:
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name, data, mode in files:
                    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                    info.external_attr = (0o100000 | mode) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    archive.writestr(info, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        _unlink_quietly(temporary)
        raise


# --- what run_autograder runs ---------------------------------------------------

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
        tests.append({
            "name": test.get("name", "check"),
            "score": test.get("score", 0),
            "max_score": test.get("max_score", 0),
            "status": test.get("status", "failed"),
            "output": test.get("output", ""),
            "output_format": "text",
        })
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
    path = directory / "results.json"
    temporary = _temporary_beside(path)
    try:
        with os.fdopen(os.open(temporary, _CREATE, 0o644), "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        _unlink_quietly(temporary)
        raise


def _temporary_beside(path: Path) -> Path:
    return path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    return line[:500]


# --- command line ------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.integrations.gradescope_zip",
                                     description="Gradescope's autograder zip: build it, "
                                                 "or run what its run_autograder runs.")
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="write the autograder zip for one assignment")
    make.add_argument("assignment")
    make.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.zip")
    make.add_argument("--config", type=Path, help="grading.toml (default: the kit's)")
    make.add_argument("--sandbox", choices=SANDBOXES, default="os")
    make.add_argument("--visibility", choices=VISIBILITIES, default="visible")
    make.add_argument("--stdout-visibility", choices=VISIBILITIES, default="hidden")
    grade = commands.add_parser("run", help="grade <root>/submission into <root>/results/results.json")
    grade.add_argument("--root", type=Path, default=Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT))
    grade.add_argument("--assignment", required=True)
    grade.add_argument("--config", type=Path, required=True)
    grade.add_argument("--sandbox", choices=SANDBOXES, default="os")
    grade.add_argument("--visibility", choices=VISIBILITIES, default="visible")
    grade.add_argument("--stdout-visibility", choices=VISIBILITIES, default="hidden")
    args = parser.parse_args(argv)
    if args.command == "run":
        data = run(args.root, args.assignment, args.config, sandbox=args.sandbox, visibility=args.visibility,
                   stdout_visibility=args.stdout_visibility)
        print(f"run_autograder: {data.get('score', 0):g} / {data.get('extra_data', {}).get('max_score', 0):g} "
              f"written to {args.root}/results/results.json")
        return 0
    from autograder import grading_config

    try:
        config = grading_config.load(args.config or grading_config.DEFAULT_PATH)
        made = build(args.assignment, args.output, config, repo_root=grading_config.REPO_ROOT, sandbox=args.sandbox,
                     visibility=args.visibility, stdout_visibility=args.stdout_visibility)
    except (BuildError, grading_config.GradingConfigError) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(made.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
