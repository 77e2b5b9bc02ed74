"""What `autograder new-assignment` will write, decided and checked before a single file is written."""

from __future__ import annotations

import ast
import dataclasses
import keyword
import re
from pathlib import Path

from autograder import grading_config
from autograder.catalog import assignment_catalogs

NAME = re.compile(r"^[0-9]{2}_[a-z][a-z0-9_]*$")
FUNCTION = re.compile(r"^[a-z_][a-z0-9_]*$")
SIGNATURE = re.compile(r"^(?P<name>[^(]*?)\s*(?:\((?P<parameters>.*)\))?$", re.S)  # name or name(a, b)
DEFAULT_PARAMETERS = ("x",)
# What a copy of the repository must hold for a scaffold to be written into it.
REQUIRED = ("grading.toml", "autograder/suites", "autograder/catalog/locale", "solutions", "tests/corpus",
            "docs/curriculum.md")
# A course directory (course.Course) needs only its grading.toml: its own suites go to suites/.
COURSE_REQUIRED = ("grading.toml",)


class ScaffoldError(ValueError):
    """The assignment cannot be scaffolded as asked; the message says why and what to do instead."""


@dataclasses.dataclass(frozen=True)
class AssignmentPlan:
    """A new assignment `name` grading `functions`, to be written into the repository or course at `root`.

    In a copy of the kit's repository the suite and catalog join the kit's
    (autograder/suites/), with a corpus and a curriculum section (its own file,
    docs/curriculum/<name>.md) for the kit's tests; in a course directory (`in_course`) they go to the course's own
    suites/ (course_suites), and there is no corpus or curriculum to write.
    """

    root: Path
    name: str
    functions: tuple[str, ...]
    # Each function's parameters, in the order of `functions` (("x",) unless --functions gave a signature).
    parameters: tuple[tuple[str, ...], ...] = ()
    in_course: bool = False

    def parameters_of(self, function: str) -> tuple[str, ...]:
        """The parameter names of `function`: ("x",) when its signature was not given."""
        given = dict(zip(self.functions, self.parameters, strict=False))
        return given.get(function) or DEFAULT_PARAMETERS

    @property
    def number(self) -> str:
        """"09" for 09_autodiff: the title's number."""
        return self.name.split("_", 1)[0]

    @property
    def suites(self) -> Path:
        return self.root / "suites" if self.in_course else self.root / "autograder" / "suites"

    @property
    def translations(self) -> Path:
        """The Korean catalog the assignment's sentences are translated in: its own, beside its catalog in the kit
        (messages_<name>.ko.po), or the course's suites/locale/ko.po."""
        return self.suites / "locale" / "ko.po" if self.in_course else \
            assignment_catalogs.translations(self.catalog, "ko")

    @property
    def suite(self) -> Path:
        return self.suites / f"test_{self.name}.py"

    @property
    def catalog(self) -> Path:
        return self.suites / f"messages_{self.name}.py"

    @property
    def english_notebook(self) -> Path:
        return self.root / "solutions" / self.name / f"{self.name}.ipynb"

    @property
    def korean_notebook(self) -> Path:
        return self.root / "solutions" / "ko" / self.name / f"{self.name}.ipynb"

    @property
    def corpus(self) -> Path:
        return self.root / "tests" / "corpus" / self.name

    @property
    def grading_toml(self) -> Path:
        return self.root / "grading.toml"

    @property
    def curriculum(self) -> Path:
        """The curriculum's common part: its conventions, and the sections of the assignments written there."""
        return self.root / "docs" / "curriculum.md"

    @property
    def curriculum_section(self) -> Path:
        """The assignment's own section of the curriculum, a file of its own: docs/curriculum/<name>.md."""
        return self.root / "docs" / "curriculum" / f"{self.name}.md"

    def new_files(self) -> tuple[Path, ...]:
        """The files the scaffold creates for certain (grading.toml is appended to; the curriculum section is
        written unless the spec already holds it)."""
        written = (self.suite, self.catalog, self.english_notebook, self.korean_notebook)
        if self.in_course:
            return written
        return (*written, self.translations, self.corpus / "cases.toml",
                self.corpus / "mistakes" / "right_structure_wrong_values.py",
                self.corpus / "correct" / "alternative.py")


def plan(root: Path, name: str, functions: list[str]) -> AssignmentPlan:
    """Check `name` and `functions` against the repository or course at `root`; refuse anything that would clash."""
    root = Path(root).resolve()
    in_course = not (root / "autograder" / "suites").is_dir()  # not a copy of the kit's repository
    missing = [part for part in (COURSE_REQUIRED if in_course else REQUIRED) if not (root / part).exists()]
    if missing:
        raise ScaffoldError(f"{root} is neither a course directory nor a copy of the kit's repository: it has no "
                            f"{', '.join(missing)}. Run the command in the course directory that holds "
                            "grading.toml (or pass --root it); `autograder init-course DIR` lays out a new one.")
    _check_name(name)
    signatures = [_signature(text) for text in functions]
    chosen = _check_functions([function for function, _ in signatures])
    _check_unused(root, name, chosen)
    result = AssignmentPlan(root, name, chosen, tuple(parameters for _, parameters in signatures), in_course)
    existing = [str(path.relative_to(root)) for path in result.new_files() if path.exists()]
    if existing:
        raise ScaffoldError(f"{', '.join(existing)} already exist(s); the scaffold never overwrites a file. "
                            "Remove them, or choose another assignment name.")
    return result


def _check_name(name: str) -> None:
    if not NAME.match(name):
        raise ScaffoldError(f"Assignment name {name!r} must be two digits, an underscore and a lowercase "
                            "snake_case name, e.g. 09_autodiff (it orders the assignments and names every file).")


def _signature(text: str) -> tuple[str, tuple[str, ...]]:
    """`name` or `name(a, b)` (plain positional parameters) -> (name, parameter names)."""
    match = SIGNATURE.match(text.strip())
    name, given = (match["name"].strip(), match["parameters"]) if match else (text.strip(), None)
    if given is None:
        return name, DEFAULT_PARAMETERS
    try:
        arguments = ast.parse(f"def f({given}): pass").body[0].args  # type: ignore[attr-defined]
    except SyntaxError:
        arguments = None
    if arguments is None or arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.defaults \
            or arguments.posonlyargs or not arguments.args:
        raise ScaffoldError(f"--functions gives {text!r}: a signature lists plain parameter names, e.g. "
                            "convolve(x, w); write defaults and keyword-only parameters by hand afterwards.")
    return name, tuple(argument.arg for argument in arguments.args)


def _check_functions(functions: list[str]) -> tuple[str, ...]:
    if not functions:
        raise ScaffoldError("--functions names no function; give the graded functions, e.g. --functions f,g.")
    bad = [f for f in functions if not FUNCTION.match(f) or keyword.iskeyword(f)]
    if bad:
        raise ScaffoldError(f"Function names {bad} are not lowercase Python identifiers; the student defines "
                            "them in the notebook, e.g. safe_norm.")
    repeated = sorted({f for f in functions if functions.count(f) > 1})
    if repeated:
        raise ScaffoldError(f"--functions names {repeated} more than once; name each graded function once.")
    return tuple(functions)


def _check_unused(root: Path, name: str, functions: tuple[str, ...]) -> None:
    try:
        config = grading_config.load(root / "grading.toml")
    except grading_config.GradingConfigError as error:
        raise ScaffoldError(f"{root / 'grading.toml'} cannot be read ({error}); fix it first.") from None
    if name in config.points:
        raise ScaffoldError(f"grading.toml already grades an assignment {name!r}; choose another name.")
    taken = {f: a for a, graded in config.points.items() for f in graded if f in functions}
    if taken:
        where = ", ".join(f"{f} (in {a})" for f, a in sorted(taken.items()))
        raise ScaffoldError(f"Function names are unique across assignments (a check cell finds its suite by the "
                            f"name alone), and these are taken: {where}. Rename them.")
