"""Releasing assignments: check-cell points from grading.toml, then real nbgrader.

`assignments/` is exactly what `nbgrader generate_assignment` makes from
`solutions/`; this is the one command that regenerates it. Both are the
course's (beside its grading.toml, config.course), never the kit's.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from autograder import installed_kit
from autograder.grading_config import PUBLIC_SEED, GradingConfig
from autograder.integrations import release_manifest

CHECK_PREFIX = "check_"


# Source notebooks in other languages: solutions/<language>/<a>/<a>.ipynb, released to assignments/<language>/<a>/.
LANGUAGES = ("ko",)


def solution_notebook(assignment: str, root: Path, language: str | None = None) -> Path:
    """`assignment`'s solution notebook in the course directory `root` (in `language`'s folder, if given)."""
    folder = root / "solutions" / language if language else root / "solutions"
    return folder / assignment / f"{assignment}.ipynb"


def check_cells(notebook) -> list:
    """The nbgrader grade cells whose grade_id is check_<function>."""
    return [cell for cell in notebook.cells
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade")
            and str(cell.metadata.nbgrader.get("grade_id", "")).startswith(CHECK_PREFIX)]


def sync_points(config: GradingConfig, assignment: str, language: str | None = None) -> bool:
    """Set every check cell's points to grading.toml's total for its function; True if changed."""
    path = config.course.solution_notebook(assignment, language)
    notebook = nbformat.read(path, as_version=4)
    changed = False
    for cell in check_cells(notebook):
        function = cell.metadata.nbgrader.grade_id[len(CHECK_PREFIX):]
        total = config.function_total(assignment, function)
        points = int(total) if float(total).is_integer() else total
        if cell.metadata.nbgrader.get("points") != points:
            cell.metadata.nbgrader["points"] = points
            changed = True
    if changed:
        nbformat.write(notebook, path)
    return changed


def generate(assignment: str, root: Path, release_dir: Path | None = None) -> subprocess.CompletedProcess:
    """Run `nbgrader generate_assignment` in the course directory `root` with a throwaway gradebook."""
    try:
        gradebook = _empty_gradebook()
    except subprocess.CalledProcessError as error:  # e.g. nbgrader's `alembic` not on PATH: say so, no traceback
        said = (error.stderr or "").strip().splitlines()[-1:] or [f"exit status {error.returncode}"]
        return subprocess.CompletedProcess(error.cmd, error.returncode, "",
                                           f"nbgrader could not make an empty gradebook: {said[0]}\n")
    with tempfile.TemporaryDirectory() as scratch:
        shutil.copyfile(gradebook, Path(scratch) / "gradebook.db")
        command = [
            sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
            f"--CourseDirectory.db_url=sqlite:///{scratch}/gradebook.db",
        ]
        if release_dir is not None:
            command.append(f"--CourseDirectory.release_directory={release_dir}")
        return subprocess.run(command, cwd=root, capture_output=True, text=True, env=nbgrader_environment())


@functools.cache
def _empty_gradebook() -> Path:
    """An empty nbgrader gradebook, made once per process and copied for each release: nbgrader makes a
    new one by running `alembic` in a process of its own, 2 s each time."""
    folder = Path(tempfile.mkdtemp(prefix="autograder-gradebook-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "gradebook.db"
    make = "import sys; from nbgrader.api import Gradebook; Gradebook(sys.argv[1]).close()"
    subprocess.run([sys.executable, "-c", make, f"sqlite:///{path}"], check=True, capture_output=True, text=True,
                   env=nbgrader_environment())
    return path


def nbgrader_environment() -> dict:
    """The environment with this interpreter's bin directory first on PATH.

    nbgrader runs helper executables (alembic) by name, which must be the ones
    installed next to this Python even when the venv is not activated.
    """
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def release(config: GradingConfig, assignments: list[str] | None = None, force: bool = False) -> int:
    """Sync points and regenerate assignments/ for `assignments` (default: all).

    An assignment whose inputs hash as at its last release is skipped
    (release_manifest), unless `force`.
    """
    course = config.course
    status = _course_refused(config)
    for assignment in [] if status else assignments or config.assignments:
        refused = _refused(config, assignment)
        if refused:
            print(f"release: {refused}", file=sys.stderr)
            status = 1
            continue
        if not force and _unchanged(config, assignment):
            print(f"release: {assignment} is unchanged since its last release (--force to redo it)")
            continue
        if sync_points(config, assignment):
            print(f"release: updated check-cell points in {course.solution_notebook(assignment)}")
        target = course.assignments / assignment
        # Generate into a scratch directory, then swap: a failed run leaves assignments/ as it was.
        with tempfile.TemporaryDirectory() as staging:
            completed = generate(assignment, course.root, release_dir=Path(staging))
            if completed.returncode != 0:
                print(f"release: nbgrader failed for {assignment}:\n{completed.stdout}{completed.stderr}",
                      file=sys.stderr)
                status = 1
                continue
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(Path(staging) / assignment, target)
        print(f"release: wrote {target}")
        translated = 0
        for language in LANGUAGES:
            translated |= _release_translation(config, assignment, language)
        if not translated:  # hashed after sync_points, which may have rewritten the solutions
            release_manifest.record(assignment, release_manifest.inputs_hash(
                config, assignment, _sources(config, assignment), course.root), course.root)
        status |= translated
    return status


def _refused(config: GradingConfig, assignment: str) -> str | None:
    """Why `assignment` cannot be released, in one sentence naming what is missing or unreadable; None if it can."""
    if assignment not in config.points:
        return f"{config.source} has no [assignments.{assignment}.*] points"
    solution = config.course.solution_notebook(assignment)
    if not solution.exists():
        return f"{assignment}'s solution notebook is missing: looked for {solution}"
    for source in _sources(config, assignment):
        try:
            if source.exists():
                nbformat.read(source, as_version=4)
        except (OSError, ValueError) as error:
            return f"{source} cannot be read as a notebook ({str(error)[:200]}); fix it, then release again"
    return None


def _course_refused(config: GradingConfig) -> int:
    """1, having said what is missing, when the course has no nbgrader_config.py for nbgrader to release with."""
    if config.course.nbgrader_config.is_file():
        return 0
    print(f"release: nbgrader_config.py is missing: looked for {config.course.nbgrader_config}, beside "
          f"{config.source}. nbgrader releases with it; `autograder init-course DIR` writes one.", file=sys.stderr)
    return 1


def _sources(config: GradingConfig, assignment: str) -> list[Path]:
    """The solution notebooks `assignment` is released from, in every language it has."""
    course = config.course
    return [course.solution_notebook(assignment), *(course.solution_notebook(assignment, language)
                                                    for language in LANGUAGES)]


def _released(config: GradingConfig, assignment: str) -> list[Path]:
    """The notebooks its release writes, one per solution notebook."""
    course = config.course
    return [course.released_notebook(assignment),
            *(course.released_notebook(assignment, language) for language in LANGUAGES
              if course.solution_notebook(assignment, language).is_file())]


def _unchanged(config: GradingConfig, assignment: str) -> bool:
    """Its inputs hash as at its last release, and what that release wrote is still there."""
    recorded = release_manifest.read(config.course.root).get(assignment)
    return (recorded == release_manifest.inputs_hash(config, assignment, _sources(config, assignment),
                                                     config.course.root)
            and all(path.is_file() for path in _released(config, assignment)))


def _release_translation(config: GradingConfig, assignment: str, language: str) -> int:
    """assignments/<language>/<a>/ from solutions/<language>/<a>/, through the same nbgrader release."""
    course = config.course
    if not course.solution_notebook(assignment, language).exists():
        return 0
    if sync_points(config, assignment, language=language):
        print(f"release: updated check-cell points in {course.solution_notebook(assignment, language)}")
    target = course.assignments / language / assignment
    with tempfile.TemporaryDirectory() as staging:
        try:
            korean_release(assignment, Path(staging), course.root, source_only=True, language=language)
        except RuntimeError as error:
            print(f"release: {error}", file=sys.stderr)
            return 1
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(Path(staging) / assignment, target)
    print(f"release: wrote {target}")
    return 0


# --- the student distribution ------------------------------------------------------

# The seed of the public inputs the student package's checks are recorded on. Its inputs and
# expected outputs are in every student's hands: never grade with this seed (--seed,
# AUTOGRADER_SEED, grading.toml's [seeds]).
STUDENT_SEED = PUBLIC_SEED


def record_student_data(config: GradingConfig, data_dir: Path, assignments: list[str] | None = None,
                        seed: int = STUDENT_SEED) -> list[str]:
    """Record each assignment's checks on its solution into `data_dir` (index.json, <a>.json, <a>.npz)."""
    from autograder.check.jax_api_versions import installed_version
    from autograder.check.runner import check_seconds_beside_suite
    from autograder.load import example_cells
    from autograder.student import recorded, recording

    names = list(assignments or config.assignments)
    root = config.course.root
    if seed in config.seed_policy.values():
        raise recording.RecordingError(f"grading.toml's [seeds] uses {seed}, the student package's public seed")
    for assignment in names:
        counts = config.device_counts(assignment)
        for count in counts:  # the largest under the assignment's own name, for kernels of any count
            name = assignment if count == max(counts) else recorded.record_name(assignment, count)
            _record_with_devices(assignment, config, data_dir, seed, root, count, name)
        if not counts:
            record, arrays = recording.record_assignment(assignment, config, solution_notebook(assignment, root),
                                                         seed)
            recorded.write(data_dir, assignment, record, arrays)
        # The released notebooks' own cells, which `autograder check` need not run.
        recorded.write_released_cells(data_dir, assignment, example_cells.released_cells(assignment,
                                                                                         root / "assignments"))
    recorded.write_index(data_dir, {
        "format": recorded.FORMAT, "seed": seed, "hints": config.hint_level("check"),
        "assignments": {a: config.points[a] for a in names},
        # The device counts grading uses ([devices]): `autograder check` checks with each (student.device_checks).
        "devices": {a: list(config.device_counts(a)) for a in names if config.device_counts(a)},
        # The JAX grading runs (this process's, pyproject.toml's pin): the student package names the APIs a
        # student's code uses that it lacks (check.jax_api_versions).
        "grader_jax": installed_version("jax", "jax"),
        "limits": {"submission_seconds": config.limits.submission_seconds, "load_seconds": config.limits.load_seconds,
                   "call_seconds": config.limits.call_seconds},
        # What each function's checks cost, from the suites' table: a check in two processes takes the costliest
        # first (student.exercise_halves).
        "check_seconds": {a: seconds for a in names if (seconds := check_seconds_beside_suite(a))},
    })
    return names


def _record_with_devices(assignment: str, config: GradingConfig, data_dir: Path, seed: int, root: Path,
                         devices: int, name: str) -> None:
    """Record `assignment` as `name` in a fresh process whose JAX has `devices` CPU devices (this one's count
    is fixed once its backend starts): the checks size their inputs by the device count, so each count the
    grader uses gets its own record, which `autograder check` replays with that count (student.device_checks);
    the student's notebook asks for the largest count, recorded under the assignment's own name."""
    code = ("import sys; from pathlib import Path; from autograder import grading_config; "
            "from autograder.integrations.release import record_one; "
            "record_one(sys.argv[1], grading_config.load(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), "
            "Path(sys.argv[5]), sys.argv[6])")
    environment = dict(os.environ, JAX_NUM_CPU_DEVICES=str(devices), JAX_PLATFORMS="cpu")
    completed = subprocess.run([sys.executable, "-c", code, assignment, str(config.source), str(data_dir), str(seed),
                                str(root), name], env=environment, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        from autograder.student import recording

        raise recording.RecordingError(f"recording {assignment} with {devices} CPU devices failed:\n"
                                       f"{completed.stderr[-3000:]}")


def record_one(assignment: str, config: GradingConfig, data_dir: Path, seed: int, root: Path,
               name: str | None = None) -> None:
    """Record one assignment's checks on its solution into `data_dir` (<name>.json, <name>.npz; name: the
    assignment's own by default)."""
    from autograder.student import recorded, recording

    record, arrays = recording.record_assignment(assignment, config, solution_notebook(assignment, root), seed)
    recorded.write(data_dir, name or assignment, record, arrays)


def korean_release(assignment: str, staging: Path, root: Path, *, source_only: bool = False,
                   language: str = "ko") -> Path | None:
    """The released notebook in `language`: assignments/<language>/<a>/<a>.ipynb, else (or with
    `source_only`) nbgrader's release of solutions/<language>/<a>/ made now into `staging`."""
    released = root / "assignments" / language / assignment / f"{assignment}.ipynb"
    if released.is_file() and not source_only:
        return released
    source = root / "solutions" / language / assignment / f"{assignment}.ipynb"
    if not source.is_file():
        return None
    with tempfile.TemporaryDirectory() as scratch:
        completed = subprocess.run(
            [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
             f"--CourseDirectory.db_url=sqlite:///{scratch}/gradebook.db",
             f"--CourseDirectory.source_directory={source.parent.parent}",
             f"--CourseDirectory.release_directory={staging}"],
            cwd=root, capture_output=True, text=True, env=nbgrader_environment())
    if completed.returncode != 0:
        raise RuntimeError(f"nbgrader failed for the Korean {assignment}:\n{completed.stdout}{completed.stderr}")
    return staging / assignment / f"{assignment}.ipynb"


# Colab opens a notebook without its folder, so the default relative path to the wheel is not there.
NO_INSTALL_URL_WARNING = (
    "release: warning: no --student-install-url, so each notebook's install cell installs the wheel from its path "
    "relative to the notebook, which a student on Colab does not have: pass --student-install-url with the wheel's "
    "public address (e.g. https://raw.githubusercontent.com/<org>/<repo>/<branch>/<path of the wheel>) "
    "if students open these notebooks on Colab.")


def student_dist(config: GradingConfig, out_dir: Path, assignments: list[str] | None = None,
                 install_url: str | None = None, seed: int = STUDENT_SEED) -> int:
    """Write the student distribution into `out_dir`.

    out_dir/jax_exercises_student-<version>-py3-none-any.whl   the student package (see autograder/student/)
    out_dir/<assignment>/<assignment>.ipynb                    the released English notebooks, install cell first
    out_dir/ko/<assignment>/<assignment>.ipynb                 the released Korean notebooks, where there are any

    Each notebook's install cell runs `%pip install <install_url>`; by default
    the wheel's path relative to the notebook's folder.
    """
    from autograder.student import notebooks, wheel

    names, root = [], config.course.root
    for assignment in assignments or config.assignments:
        released = config.course.released_notebook(assignment)
        missing = [p for p in (config.course.solution_notebook(assignment), released) if not p.is_file()]
        if assignment not in config.points or missing:
            why = (f"no points in {config.source}" if assignment not in config.points
                   else f"{missing[0]} does not exist (release it first: `autograder release {assignment}`)")
            print(f"release: cannot add {assignment} to the student distribution: {why}", file=sys.stderr)
            return 1
        names.append(assignment)
    if not install_url:
        print(NO_INSTALL_URL_WARNING, file=sys.stderr)
    out_dir.mkdir(parents=True, exist_ok=True)
    from autograder.student.recording import RecordingError

    with tempfile.TemporaryDirectory() as data:
        try:
            record_student_data(config, Path(data), names, seed)
            built = wheel.build(out_dir, installed_kit.version(), Path(data), installed_kit.PACKAGE,
                                config.assignments)
        except (RecordingError, wheel.WheelError, installed_kit.KitNotInstalled) as error:
            print(f"release: cannot build the student package: {error}", file=sys.stderr)
            return 1
    print(f"release: wrote {built}")
    with tempfile.TemporaryDirectory() as staging:
        for assignment in names:
            targets = [(config.course.released_notebook(assignment), out_dir / assignment / f"{assignment}.ipynb")]
            korean = korean_release(assignment, Path(staging), root)
            if korean is not None:
                targets.append((korean, out_dir / "ko" / assignment / f"{assignment}.ipynb"))
            for released, target in targets:
                address = install_url or os.path.relpath(built, target.parent)
                notebooks.write_student_notebook(released, target, address)
                print(f"release: wrote {target}")
    return 0
