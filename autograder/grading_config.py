"""grading.toml: points per graded property, time limits and the seed policy."""

from __future__ import annotations

import dataclasses
import os
import secrets
import tomllib
from pathlib import Path

from autograder.course import GRADING_TOML, Course

# The folder above the package: a checkout of the kit's repository when the kit runs from one (an editable
# install), site-packages when it is installed. Never a default for what a command reads or writes.
REPO_ROOT = Path(__file__).resolve().parent.parent
# The course's grading.toml: the current directory's (course.locate), resolved when it is read.
DEFAULT_PATH = Path(GRADING_TOML)
# Overrides the [seeds] policy of grading.toml (an explicit --seed still wins).
SEED_ENVIRONMENT_VARIABLE = "AUTOGRADER_SEED"


class GradingConfigError(ValueError):
    """grading.toml is missing, malformed or inconsistent."""


# The wall-clock backstop behind every CPU-time limit, as a multiple of it (grading.toml [limits]).
DEFAULT_BUSY_FACTOR = 10.0


@dataclasses.dataclass(frozen=True)
class Limits:
    """[limits]: CPU seconds of the submission's own processes, which decide points.

    `busy_factor` times a limit, in wall-clock seconds, is only a backstop:
    when it runs out first, the machine was too busy, and that request is
    tried again instead of scored (sandbox.parent).
    """

    submission_seconds: float
    load_seconds: float
    call_seconds: float
    busy_factor: float = DEFAULT_BUSY_FACTOR

    def backstop(self, cpu_seconds: float) -> float:
        """The wall-clock seconds after which a limit of `cpu_seconds` of CPU time says "too busy"."""
        return cpu_seconds * self.busy_factor


@dataclasses.dataclass(frozen=True)
class GradingConfig:
    """Parsed grading.toml.

    `points[assignment][function][property]` is the points of one test.
    """

    points: dict[str, dict[str, dict[str, float]]]
    limits: Limits
    seed_policy: dict[str, str | int]
    source: Path = DEFAULT_PATH
    sandbox: dict = dataclasses.field(default_factory=dict)  # [sandbox]: the child's OS limits
    # [feedback]: how much a hint shows ("idea", "api" or "recipe"), for `check` and for grading.
    hint_levels: dict[str, str] = dataclasses.field(default_factory=lambda: {"check": "api", "grade": "api"})
    # [devices]: the CPU device counts an assignment is graded with, one full grading each.
    devices: dict[str, tuple[int, ...]] = dataclasses.field(default_factory=dict)

    @property
    def assignments(self) -> list[str]:
        return sorted(self.points)

    @property
    def course(self) -> Course:
        """The course directory: the folder of this grading.toml, where every command reads and writes."""
        return Course(self.source.parent)

    @property
    def solutions_directory(self) -> Path:
        """solutions/ beside this grading.toml. Batches build their store of shared programs from the solutions
        there."""
        return self.course.solutions

    def solution_notebook(self, assignment: str) -> Path:
        """`assignment`'s solution notebook in solutions_directory."""
        return self.course.solution_notebook(assignment)

    def functions(self, assignment: str) -> list[str]:
        return list(self.points[assignment])

    def assignment_of(self, function: str) -> str:
        """The assignment that grades `function` (function names are unique)."""
        for assignment, functions in self.points.items():
            if function in functions:
                return assignment
        known = ", ".join(f for fs in self.points.values() for f in fs)
        raise GradingConfigError(
            f"No assignment grades a function named {function!r}. "
            f"Known functions: {known}."
        )

    def points_for(self, assignment: str, function: str, prop: str) -> float:
        try:
            return self.points[assignment][function][prop]
        except KeyError:
            raise GradingConfigError(
                f"grading.toml has no points for {assignment} / {function} / "
                f"{prop!r}. Add it under [assignments.{assignment}.{function}]."
            ) from None

    def function_total(self, assignment: str, function: str) -> float:
        return float(sum(self.points[assignment][function].values()))

    def assignment_total(self, assignment: str) -> float:
        return float(sum(self.function_total(assignment, f) for f in self.points[assignment]))

    def device_counts(self, assignment: str) -> tuple[int, ...]:
        """The CPU device counts `assignment` is graded with ([devices]); () for JAX's default, one device."""
        return self.devices.get(assignment, ())

    def hint_level(self, mode: str) -> str:
        """The hint level of `mode` ("check" or "grade") from [feedback]."""
        return self.hint_levels[mode]

    def resolve_seed(self, mode: str, seed: int | None) -> int:
        """The seed for `mode` (`_resolved_seed`); a random draw never lands on PUBLIC_SEED."""
        resolved = self._resolved_seed(mode, seed)
        while resolved == PUBLIC_SEED and seed is None and self.seed_policy.get(mode, "random") == "random" \
                and not os.environ.get(SEED_ENVIRONMENT_VARIABLE, "").strip():
            resolved = self._resolved_seed(mode, seed)
        return resolved

    def _resolved_seed(self, mode: str, seed: int | None) -> int:
        """The seed for hidden inputs: `seed` if given, else $AUTOGRADER_SEED, else the policy for `mode`.

        AUTOGRADER_SEED fixes the seed where no --seed can be passed: the check
        cells that `nbgrader autograde` runs inherit it from nbgrader's
        environment, so a whole nbgrader run can be repeated exactly.
        """
        if seed is not None:
            return int(seed)
        from_env = os.environ.get(SEED_ENVIRONMENT_VARIABLE, "").strip()
        if from_env:
            try:
                return int(from_env)
            except ValueError:
                raise GradingConfigError(
                    f"{SEED_ENVIRONMENT_VARIABLE} must be an integer, got {from_env!r}."
                ) from None
        policy = self.seed_policy.get(mode, "random")
        if policy == "random":
            return secrets.randbelow(2**31)
        return int(policy)


# The student package's inputs are drawn from this seed at release, and every student has them with the reference's
# outputs: grading with it would grade on inputs whose answers are public (integrations.release STUDENT_SEED).
PUBLIC_SEED = 1_000_003


def load(path: Path | str = DEFAULT_PATH) -> GradingConfig:
    """Read and validate grading.toml."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GradingConfigError(f"grading.toml not found at {path.resolve()}: pass --config the course's "
                                 "grading.toml, or run from the course directory that holds it.") from None
    except OSError as error:
        raise GradingConfigError(f"{path.resolve()} cannot be read: {error.strerror}.") from None
    except tomllib.TOMLDecodeError as error:
        raise GradingConfigError(f"{path} is not valid TOML: {error}") from None
    points = raw.get("assignments", {})
    for assignment, functions in points.items():
        for function, props in functions.items():
            for prop, value in props.items():
                if not isinstance(value, (int, float)) or value < 0:
                    raise GradingConfigError(
                        f"{path}: points for {assignment} / {function} / {prop!r} "
                        f"must be a non-negative number, got {value!r}."
                    )
    _check_unique_function_names(points, path)
    limits_raw = raw.get("limits", {})
    try:
        limits = Limits(
            submission_seconds=float(limits_raw["submission_seconds"]),
            load_seconds=float(limits_raw["load_seconds"]),
            call_seconds=float(limits_raw["call_seconds"]),
            busy_factor=float(limits_raw.get("busy_factor", DEFAULT_BUSY_FACTOR)),
        )
    except KeyError as missing:
        raise GradingConfigError(f"{path}: [limits] needs {missing.args[0]}.") from None
    if limits.busy_factor < 1:
        raise GradingConfigError(f"{path}: [limits] busy_factor must be at least 1, got {limits.busy_factor:g}.")
    config = GradingConfig(points=points, limits=limits, seed_policy=dict(raw.get("seeds", {})),
                           source=path.resolve(), sandbox=dict(raw.get("sandbox", {})),
                           hint_levels=_hint_levels(raw.get("feedback", {}), path),
                           devices=_device_counts(raw.get("devices", {}), points, path))
    _use_course_suites(config)
    return config


def _use_course_suites(config: GradingConfig) -> None:
    """The course's own suites and catalogs (its suites/ folder) join the kit's, as this course is graded."""
    from autograder import course_suites

    try:
        course_suites.use(config.course)
    except course_suites.CourseSuitesError as error:
        raise GradingConfigError(str(error)) from None


# More CPU devices than a grading machine's JAX should be asked to simulate.
MAX_CPU_DEVICES = 16


def _device_counts(devices: object, points: dict, path: Path) -> dict[str, tuple[int, ...]]:
    """[devices]: `<assignment> = [4, 2]`, each a graded assignment and a list of counts in 1..MAX_CPU_DEVICES."""
    if not isinstance(devices, dict):
        raise GradingConfigError(f"{path}: [devices] must be a table of assignment = [counts], got {devices!r}.")
    counts = {}
    for assignment, value in devices.items():
        if assignment not in points:
            raise GradingConfigError(f"{path}: [devices] names {assignment!r}, which no [assignments.*] table "
                                     f"grades; use one of {sorted(points)}.")
        if (not isinstance(value, list) or not value
                or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_CPU_DEVICES
                           for n in value)):
            raise GradingConfigError(f"{path}: [devices] {assignment} must be a non-empty list of device counts "
                                     f"from 1 to {MAX_CPU_DEVICES}, such as [4, 2]; got {value!r}.")
        counts[assignment] = tuple(value)
    return counts


def _hint_levels(feedback: dict, path: Path) -> dict[str, str]:
    """[feedback] check_hints / grade_hints, each a level of messages.HINT_LEVELS (default "api")."""
    from autograder.catalog import messages

    levels = {}
    for mode in ("check", "grade"):
        level = str(feedback.get(f"{mode}_hints", messages.DEFAULT_HINT_LEVEL))
        try:
            levels[mode] = messages.check_hint_level(level, where=f"{path}: [feedback] {mode}_hints")
        except ValueError as error:
            raise GradingConfigError(str(error)) from None
    return levels


def _check_unique_function_names(points: dict, path: Path) -> None:
    """A check cell names only its function, so one function name must belong to one assignment."""
    owner: dict[str, str] = {}
    for assignment, functions in points.items():
        for function in functions:
            if function in owner:
                raise GradingConfigError(
                    f"{path}: the function name {function!r} is graded in both {owner[function]} and "
                    f"{assignment}. Function names must be unique across assignments, because a check "
                    f"cell finds its suite by the function name alone; rename one of them."
                )
            owner[function] = assignment
