"""Build the example submissions that `make demo` grades.

For each assignment, three student notebooks made from the released stub:
- perfect_<assignment>.ipynb: every solution cell filled with the reference;
- partial_<assignment>.ipynb: the first half of the exercises done, the rest untouched;
- mistakes_<assignment>.ipynb: each exercise filled with a classic mistake from
  tests/corpus/<assignment>/cases.toml (its first mistake for that function).

Run after changing solutions/ or the corpus:  .venv/bin/python scripts/build_examples.py
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
_SOLUTION_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*\n", re.M)


def solution_sources(assignment: str) -> dict[str, str]:
    """grade_id -> the reference code of each solution cell, markers removed."""
    notebook = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {cell.metadata.nbgrader.grade_id: _SOLUTION_MARKER.sub("", cell.source)
            for cell in notebook.cells if cell.get("metadata", {}).get("nbgrader", {}).get("solution")}


def first_mistakes(assignment: str) -> dict[str, str]:
    """function -> the source of its first mistake in the corpus."""
    cases = ROOT / "tests" / "corpus" / assignment / "cases.toml"
    if not cases.exists():
        return {}
    found: dict[str, str] = {}
    for case in tomllib.loads(cases.read_text()).get("mistake", []):
        found.setdefault(case["function"], (cases.parent / case["file"]).read_text())
    return found


def build(assignment: str) -> list[Path]:
    stub_path = ROOT / "assignments" / assignment / f"{assignment}.ipynb"
    references = solution_sources(assignment)
    mistakes = first_mistakes(assignment)
    solution_ids = list(references)
    variants = {
        "perfect": dict(references),
        "partial": {gid: references[gid] for gid in solution_ids[: len(solution_ids) // 2]},
        "mistakes": {gid: mistakes.get(gid.removesuffix("_solution"), references[gid]) for gid in solution_ids},
    }
    written = []
    for variant, sources in variants.items():
        notebook = nbformat.read(stub_path, as_version=4)
        for cell in notebook.cells:
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id in sources:
                cell.source = sources[grade_id]
        target = ROOT / "examples" / assignment / f"{variant}_{assignment}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, target)
        written.append(target)
    return written


def main() -> None:
    for stub in sorted((ROOT / "assignments").glob("*/*.ipynb")):
        for path in build(stub.parent.name):
            print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
