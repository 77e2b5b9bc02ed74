"""Building the benchmark's submissions from what the kit already has.

For each assignment, N student notebooks made from the released stub
(assignments/), in a fixed cycle of three kinds:
- full: every solution cell holds the reference solution (solutions/);
- partial: some exercises hold the reference, the others the released stub
  or one of the corpus's classic mistakes for that function (tests/corpus/),
  reduced to that function and its helpers: a corpus file is a whole
  submission, and its copies of the other functions, redefined after their
  check cells, would be graded differently by nbgrader (which checks each
  function as the notebook stands at its check cell) and by `autograder
  grade` (which checks the notebook as it stands at the end);
- stub: the released notebook, untouched.
The choices are drawn from a seeded generator, so a seed gives the same batch.
"""

from __future__ import annotations

import ast
import dataclasses
import random
import re
import tomllib
from pathlib import Path

from autograder.load.submission_source import nbformat

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("full", "partial", "stub")
_SOLUTION_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*\n", re.M)


@dataclasses.dataclass(frozen=True)
class Submission:
    student: str
    assignment: str
    kind: str
    notebook: object  # an nbformat NotebookNode

    @property
    def file_name(self) -> str:
        """Named for `autograder grade`: the assignment is in the name."""
        return f"{self.student}_{self.assignment}.ipynb"


def benchmarked_assignments(names: list[str] | None = None) -> list[str]:
    """Assignments with a solution, a released stub, a grading suite and points: all of them, or those named."""
    from autograder import grading_config

    config = grading_config.load()
    found = [a for a in config.assignments
             if (ROOT / "solutions" / a / f"{a}.ipynb").exists()
             and (ROOT / "assignments" / a / f"{a}.ipynb").exists()
             and (ROOT / "autograder" / "suites" / f"test_{a}.py").exists()]
    if names:
        unknown = sorted(set(names) - set(found))
        if unknown:
            raise SystemExit(f"cannot benchmark {', '.join(unknown)}: benchmarkable assignments are {', '.join(found)}")
        found = [a for a in found if a in names]
    return found


def build(assignment: str, count: int, seed: int) -> list[Submission]:
    """`count` submissions for `assignment`, cycling through KINDS."""
    generator = random.Random(f"{seed}-{assignment}")
    references = _solution_sources(assignment)
    mistakes = _corpus_mistakes(assignment)
    submissions = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        if kind == "full":
            sources = dict(references)
        elif kind == "partial":
            sources = _partial(references, mistakes, generator)
        else:
            sources = {}
        submissions.append(Submission(f"s{index:03d}", assignment, kind, _notebook(assignment, sources)))
    return submissions


def write(submission: Submission, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(submission.notebook, path)
    return path


def _partial(references: dict[str, str], mistakes: dict[str, list[str]], generator: random.Random) -> dict[str, str]:
    """At least one exercise solved and at least one not; each unsolved one a stub or a corpus mistake."""
    grade_ids = list(references)
    solved = set(generator.sample(grade_ids, generator.randint(1, max(1, len(grade_ids) - 1))))
    sources = {}
    for grade_id in grade_ids:
        if grade_id in solved:
            sources[grade_id] = references[grade_id]
            continue
        candidates = mistakes.get(grade_id.removesuffix("_solution"), [])
        if candidates and generator.random() < 0.5:
            sources[grade_id] = generator.choice(candidates)
        # else: the released stub stays
    return sources


def _notebook(assignment: str, sources: dict[str, str]):
    notebook = nbformat.read(ROOT / "assignments" / assignment / f"{assignment}.ipynb", as_version=4)
    for cell in notebook.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in sources:
            cell.source = sources[grade_id]
    return notebook


def _solution_sources(assignment: str) -> dict[str, str]:
    """grade_id -> the reference code of each solution cell, markers removed."""
    notebook = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {cell.metadata.nbgrader.grade_id: _SOLUTION_MARKER.sub("", cell.source)
            for cell in notebook.cells if cell.get("metadata", {}).get("nbgrader", {}).get("solution")}


def _corpus_mistakes(assignment: str) -> dict[str, list[str]]:
    """function -> the sources of its classic mistakes in tests/corpus, each reduced to that function."""
    from autograder import grading_config

    cases = ROOT / "tests" / "corpus" / assignment / "cases.toml"
    if not cases.exists():
        return {}
    graded = set(grading_config.load().functions(assignment))
    found: dict[str, list[str]] = {}
    for case in tomllib.loads(cases.read_text(encoding="utf-8")).get("mistake", []):
        source = (cases.parent / case["file"]).read_text(encoding="utf-8")
        found.setdefault(case["function"], []).append(_only(source, case["function"], graded))
    return found


def _only(source: str, function: str, graded: set[str]) -> str:
    """`source` without its top-level definitions of the other graded functions."""
    others = graded - {function}
    lines = source.splitlines()
    kept = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in others:
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in others for t in targets):
                continue
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        kept.append("\n".join(lines[first - 1:node.end_lineno]))
    return "\n\n".join(kept) + "\n"
