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

The scripts' text is in gradescope_scripts (with its testing hooks,
AUTOGRADER_GRADESCOPE_ROOT and AUTOGRADER_GRADESCOPE_PYTHON), and what
run_autograder runs in gradescope_run; `python -m
autograder.integrations.gradescope_zip run` is how run_autograder calls it.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import BinaryIO

from autograder.integrations.atomic_file import replace_atomically
from autograder.integrations.gradescope_run import run
from autograder.integrations.gradescope_scripts import DEFAULT_ROOT, ROOT_VARIABLE, run_script, setup_script

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
SANDBOXES = ("os", "process")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
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


def _write_zip(path: Path, files: list[tuple[str, bytes, int]]) -> None:
    def write(handle: BinaryIO) -> None:
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data, mode in files:
                info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, data)

    path.parent.mkdir(parents=True, exist_ok=True)
    replace_atomically(path, write)


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
