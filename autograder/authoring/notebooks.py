"""A new assignment's solution notebooks, English and Korean, laid out as docs/notebook-conventions.md says.

Cell ids are `title`, `setup`, then per function `<f>-intro`, `<f>-demo`, `<f>-task`, `<f>-solution` and
`<f>-check` (`<f>`: the function's name with hyphens); the nbgrader metadata is exactly that of the existing
notebooks, and the check cells already carry grading.toml's points.
"""

from __future__ import annotations

from typing import Any

import nbformat

from autograder.authoring import templates
from autograder.authoring.plan import AssignmentPlan
from autograder.catalog import messages


def _nbgrader(grade_id: str, *, grade: bool = False, locked: bool = True, solution: bool = False,
              points: float | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
                                "solution": solution}
    if points is not None:
        metadata["points"] = points
    return {"nbgrader": metadata}


def _markdown(cell_id: str, source: str):
    cell = nbformat.v4.new_markdown_cell(source)
    cell.id = cell_id
    return cell


def _code(cell_id: str, source: str, metadata: dict[str, Any]):
    cell = nbformat.v4.new_code_cell(source, metadata=metadata)
    cell.id = cell_id
    return cell


def _exercise(text: dict[str, str], language: str, function: str, parameters: tuple[str, ...], index: int,
              points: float) -> list:
    slug = function.replace("_", "-")

    def filled(part: str) -> str:
        return templates.fill_text(text[part], function=function, index=index, params=", ".join(parameters))

    return [
        _markdown(f"{slug}-intro", filled("intro")),
        _code(f"{slug}-demo", filled("demo"), _nbgrader(f"demo_{function}")),
        _markdown(f"{slug}-task", filled("task")),
        _code(f"{slug}-solution", filled("solution"),
              _nbgrader(f"{function}_solution", locked=False, solution=True)),
        _code(f"{slug}-check", check_cell_source(function, language),
              _nbgrader(f"check_{function}", grade=True, points=points)),
    ]


def check_cell_source(function: str, language: str) -> str:
    """The check cell of `function` in a notebook in `language` ("en" or "ko").

    Its import line says, in the notebook's language, what to do when it fails: a check cell run before
    the install cell (a fresh Colab runtime) would otherwise end in a bare ModuleNotFoundError.
    """
    with messages.using(language):
        comment = messages.text("student.check_cell_comment")
    return templates.fill_text(templates.cells(language)["check"], function=function, check_comment=comment)


def notebook(plan: AssignmentPlan, language: str, points: dict[str, float]):
    """The solution notebook of `plan` in `language`; `points[function]` is its check cell's points."""
    text = templates.cells(language)
    cells = [_markdown("title", templates.fill_text(text["title"], name=plan.name, number=plan.number)),
             _code("setup", text["setup"], _nbgrader("setup"))]
    for index, function in enumerate(plan.functions, start=1):
        cells += _exercise(text, language, function, plan.parameters_of(function), index, points[function])
    autograder: dict[str, str] = {"assignment": plan.name}
    if language != "en":
        autograder["language"] = language
    metadata = {"autograder": autograder,
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"}}
    return nbformat.v4.new_notebook(cells=cells, metadata=metadata)
