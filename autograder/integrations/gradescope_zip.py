"""Gradescope's autograder zip for one assignment: building it, and the command its run_autograder calls.

Gradescope builds a Docker image (Ubuntu, root) from the zip an instructor
uploads: it unpacks the zip into /autograder/source, runs `setup.sh` once,
and copies `run_autograder` to /autograder/run_autograder. For every
submission it puts the student's files into /autograder/submission/, runs
run_autograder from /autograder, and reads /autograder/results/results.json.

`build` writes that zip:

- `setup.sh`: installs bubblewrap and libseccomp (the OS sandbox) with apt,
  Python 3.11 if the image has none (deadsnakes' PPA on Ubuntu), and the kit
  from the wheel in the zip into /autograder/source/venv, every package
  pinned to the version the zip was built with (the kit's own pins, as its
  installed metadata declares them, and, for their dependencies, the versions
  installed where the zip was built); it compiles the suite's reference
  programs once, into the image.
- `run_autograder`: grades the notebook in /autograder/submission/ with
  `autograder grade` (the OS sandbox by default) and writes Gradescope's
  results.json. It writes a results.json in every case: a zero saying
  "grading did not finish" before it starts (so a timeout leaves that), a
  zero with the reason when no notebook was found or grading failed, and,
  if Python itself cannot start, a minimal one from bash.
- the kit as a wheel, built from the installed package (the kit the course
  uses, at its version; no checkout of the kit is needed); the course's
  `grading.toml`; the course's released (student) notebook of the assignment,
  which /autograder/source/ then holds as a course directory does.

For a course's own assignment (course_suites), also the course's suites/,
beside grading.toml. Nothing else: no solutions (the suites compute their references
themselves; the only reader of solutions/ is the batch's store of shared
compiled programs, which for a single submission per container costs a
second grading instead of saving one, and is skipped when there is no
solution), no tests, no examples, no student data.

The scripts' text is in gradescope_scripts (with its testing hooks,
AUTOGRADER_GRADESCOPE_ROOT and AUTOGRADER_GRADESCOPE_PYTHON), and what
run_autograder runs in gradescope_run; `python -m
autograder.integrations.gradescope_zip run` is how run_autograder calls it.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import BinaryIO

from autograder import installed_kit
from autograder.integrations.atomic_file import replace_atomically
from autograder.integrations.gradescope_run import run
from autograder.integrations.gradescope_scripts import DEFAULT_ROOT, ROOT_VARIABLE, run_script, setup_script

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
SANDBOXES = ("os", "process")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


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

def build(assignment: str, output_zip: Path | str, config, *, sandbox: str = "os", visibility: str = "visible",
          stdout_visibility: str = "hidden") -> BuiltZip:
    """Write Gradescope's autograder zip for `assignment` to `output_zip` (atomically); raises BuildError.

    `config` is the course's GradingConfig: its file goes into the zip, and its
    course directory's released notebook; the kit is the installed one, as a
    wheel built from its package (installed_kit). `sandbox` is how
    run_autograder grades ("os": bubblewrap, which needs a container that
    allows namespaces; "process": weaker, a hostile submission could change
    its own grade). `visibility` and `stdout_visibility` are Gradescope's
    settings for the results and for run_autograder's output.
    """
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
    own_suites = _course_suite_files(config, assignment)
    pins = pinned_requirements()
    released = config.course.released_notebook(assignment)
    with tempfile.TemporaryDirectory(prefix="autograder-gradescope-") as scratch:
        wheel = build_wheel(Path(scratch) / "wheel")
        with zipfile.ZipFile(wheel) as contents:
            if not own_suites and f"autograder/suites/test_{assignment}.py" not in contents.namelist():
                raise BuildError(f"the wheel built from {installed_kit.PACKAGE} has no suite for {assignment}")
        files: list[tuple[str, bytes, int]] = [
            ("setup.sh", setup_script(assignment, wheel.name, pins, released.is_file()).encode(), 0o755),
            ("run_autograder", run_script(assignment, sandbox, visibility, stdout_visibility).encode(), 0o755),
            (wheel.name, wheel.read_bytes(), 0o644),
            ("grading.toml", Path(config.source).read_bytes(), 0o644),
            *own_suites,
        ]
        if released.is_file():
            files.append((f"assignments/{assignment}/{assignment}.ipynb", released.read_bytes(), 0o644))
        _write_zip(Path(output_zip), files)
    return BuiltZip(path=Path(output_zip), assignment=assignment, max_score=config.assignment_total(assignment),
                    wheel=wheel.name, entries=tuple(name for name, _, _ in files), pins=tuple(pins))


def _course_suite_files(config, assignment: str) -> list[tuple[str, bytes, int]]:
    """The course's own suites/ (suites, catalogs, translations) when `assignment`'s suite is the course's, as
    the zip's files beside its grading.toml; none for a suite of the kit's. Raises BuildError when it has none."""
    from autograder import course_suites
    from autograder.check.runner import suite_path

    suite = suite_path(assignment)
    if not suite.is_file():
        looked = ", ".join(str(folder) for folder in course_suites.folders())
        raise BuildError(f"{assignment}'s suite is missing: looked for test_{assignment}.py in {looked}")
    own = config.course.suites
    if suite.resolve().parent != own.resolve():
        return []
    paths = [*sorted(own.glob("*.py")), *sorted(own.glob("locale/*.po"))]
    return [(f"suites/{path.relative_to(own).as_posix()}", path.read_bytes(), 0o644) for path in paths]


def build_wheel(directory: Path) -> Path:
    """Build the installed kit's wheel, at its installed version, from a clean copy of its package; returns its
    path. Its pyproject.toml is written from the installed metadata (installed_kit), so no checkout is read."""
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autograder-wheel-") as scratch:
        source = Path(scratch) / "kit"
        # Without the kit's own course (kit_course/: its solutions): the zip holds no answer key.
        shutil.copytree(installed_kit.PACKAGE, source / "autograder",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*", "kit_course"))
        try:
            (source / "pyproject.toml").write_text(_wheel_project(), encoding="utf-8")
        except installed_kit.KitNotInstalled as error:
            raise BuildError(str(error)) from None
        base = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                "--wheel-dir", str(directory)]
        # An isolated build fetches the build backend pyproject.toml names; offline, use the one installed here.
        for extra in ([], ["--no-build-isolation"]):
            completed = subprocess.run([*base, *extra, str(source)], capture_output=True, text=True, timeout=600)
            wheels = sorted(directory.glob("autograder-*.whl"))
            if completed.returncode == 0 and wheels:
                return wheels[-1]
        raise BuildError(f"building the kit's wheel failed: {(completed.stderr or completed.stdout).strip()[-1500:]}")


def _wheel_project() -> str:
    """pyproject.toml for the installed package: its name, version, dependencies and command, every file kept."""
    return "\n".join([
        "[build-system]", 'requires = ["setuptools>=62.3"]', 'build-backend = "setuptools.build_meta"', "",
        "[project]", f"name = {json.dumps(installed_kit.DISTRIBUTION)}",
        f"version = {json.dumps(installed_kit.version())}", 'requires-python = ">=3.11,<3.12"',
        f"dependencies = {json.dumps(installed_kit.requirements())}", "",
        "[project.scripts]", 'autograder = "autograder.cli:run"', "",
        "[tool.setuptools.packages.find]", 'include = ["autograder*"]', "",
        "[tool.setuptools.package-data]", 'autograder = ["**/*"]', ""])


def pinned_requirements() -> list[str]:
    """`name==version` for the kit's dependencies and theirs, as Linux x86-64 CPython 3.11 needs them.

    The kit's own pins come from its installed metadata; every dependency below them
    is pinned to the version installed in this Python, which must have the
    kit's pins installed (raises BuildError otherwise: run `make` first).
    """
    from packaging.markers import default_environment
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        declared = installed_kit.requirements()
    except installed_kit.KitNotInstalled as error:
        raise BuildError(str(error)) from None
    environment: dict[str, str] = {key: str(value) for key, value in default_environment().items()}
    environment.update(sys_platform="linux", platform_system="Linux", os_name="posix",
                       platform_machine="x86_64", implementation_name="cpython",
                       platform_python_implementation="CPython")
    pins: dict[str, str] = {}
    pending: list[tuple[str, bool]] = [(text, True) for text in declared]
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


def _write_zip(path: Path, files: list[tuple[str, bytes, int]]) -> None:
    def write(handle: BinaryIO) -> None:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data, mode in files:
                info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, write)
    except OSError as error:
        raise BuildError(f"cannot write {path}: {error.strerror}; pass -o a file in a folder you can write") \
            from None


# --- command line ------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.integrations.gradescope_zip",
                                     description="Gradescope's autograder zip: build it, "
                                                 "or run what its run_autograder runs.")
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="write the autograder zip for one assignment")
    make.add_argument("assignment")
    make.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.zip")
    make.add_argument("--config", type=Path, help="the course's grading.toml (default: the current directory's)")
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
        made = build(args.assignment, args.output, config, sandbox=args.sandbox, visibility=args.visibility,
                     stdout_visibility=args.stdout_visibility)
    except (BuildError, grading_config.GradingConfigError) as error:
        print(f"autograder: {error}", file=sys.stderr)
        return 2
    print(made.summary())
    return 0



if __name__ == "__main__":
    raise SystemExit(main())
