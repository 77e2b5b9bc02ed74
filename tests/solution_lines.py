"""The lines of the reference solutions, which nothing a student receives may contain."""

from __future__ import annotations

import glob
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
# A solution line shorter than this is generic Python (`return x`, `h = x`, `})`, `@jax.jit`).
MIN_SECRET_LINE = 12


def secret_lines(*, expressions: bool = False) -> set[str]:
    """The lines of every reference solution that a student must not be able to read anywhere.

    A line between `### BEGIN SOLUTION` and `### END SOLUTION` in any
    solutions/**/*.ipynb, stripped, counts unless it is blank or a comment,
    shorter than MIN_SECRET_LINE characters (generic Python, found in any
    code), or public: found in what the source notebooks show students
    outside their solution regions (prose, docstrings, setup and demo cells),
    which the authors publish on purpose. With `expressions`, also the code
    of a line without its `return ` or its assignment's target (what a hint
    would quote).
    """
    lines, public = set(), []
    for path in sorted(glob.glob(str(ROOT / "solutions" / "**" / "*.ipynb"), recursive=True)):
        for cell in nbformat.read(path, as_version=4).cells:
            inside = False
            for line in cell.source.splitlines():
                stripped = line.strip()
                if "### BEGIN SOLUTION" in stripped:
                    inside = True
                elif "### END SOLUTION" in stripped:
                    inside = False
                elif inside:
                    lines.add(stripped)
                    if expressions:
                        lines.update(_expressions(stripped))
                else:
                    public.append(line)
    shown = "\n".join(public)
    return {line for line in lines
            if len(line) >= MIN_SECRET_LINE and not line.startswith("#") and line not in shown}


def _expressions(line: str) -> list[str]:
    found = []
    if line.startswith("return "):
        found.append(line[len("return "):])
    target, equals, value = line.partition(" = ")
    if equals and target.replace(",", " ").replace("_", "").replace(" ", "").isalnum():
        found.append(value)
    return found
