"""nbgrader autograde with the points and feedback of the sandboxed grader.

`nbgrader autograde` runs a submission in the student's own kernel and reads
each check cell's points from what that cell printed and returned. Student
code runs in that same kernel before the check cells, so it can replace
`autograder.notebook.check`, print "All checks passed" and return full marks.

GradeCheckCellsInSandbox runs after nbgrader's execution step. It grades the
submitted code again with `autograder grade`'s path (each submission in the
OS sandbox, facts established in the trusted parent, hidden inputs) and
replaces every check cell's outputs with that result: the feedback for the
cell's function as text, and its points as the cell's value, which nbgrader
stores in the gradebook as partial credit. Whatever the student's kernel
printed or returned in a check cell is discarded. Gradebook, feedback and
export stay nbgrader's.

On by default in nbgrader_config.py; `c.GradeCheckCellsInSandbox.enabled =
False` switches it off. The sandbox mode follows `autograder grade`: "os"
(the default) needs Linux, root and bubblewrap; "process" is weaker and says
so. If the sandbox cannot run, every check cell scores 0 with a message,
never the kernel's own (forgeable) points.
"""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Enum, Unicode

from autograder import grading_config, messages
from autograder.release import CHECK_PREFIX
from autograder.reports.terminal_table import render
from autograder.results import SubmissionResult


class GradeCheckCellsInSandbox(NbGraderPreprocessor):
    """Replace every check cell's outputs with the sandboxed grader's feedback and points."""

    enabled = Bool(True, help="Grade check cells with the sandboxed grader instead of the student's kernel.").tag(config=True)
    sandbox = Enum(("os", "process"), "os", help="os: an OS sandbox per submission; process: weaker.").tag(config=True)
    config_file = Unicode("", help="grading.toml to use (default: the kit's).").tag(config=True)

    def preprocess(self, nb, resources):
        if not self.enabled:
            return nb, resources
        check_cells = [cell for cell in nb.cells if _function_of(cell)]
        if not check_cells:
            return nb, resources
        try:
            result = self._grade(nb, resources)
        except Exception as error:  # the grader's failure: the student gets 0 and a sentence, never the kernel's points
            self.log.error("Sandboxed grading failed: %s", error)
            message = messages.text("nbgrader.sandbox_failed", detail=str(error).splitlines()[0][:300] if str(error) else type(error).__name__)
            for cell in check_cells:
                cell.outputs = [new_output("error", ename="SandboxFailed", evalue=message, traceback=[message])]
            return nb, resources
        for index, cell in enumerate(check_cells):  # the submission's notes once, in the first check cell
            cell.outputs = _outputs_for(result, _function_of(cell), cell.get("execution_count"), notes=index == 0)
        return nb, resources

    def _grade(self, nb, resources) -> SubmissionResult:
        from autograder.grading import grade_submission

        config = grading_config.load(self.config_file or grading_config.DEFAULT_PATH)
        if self.sandbox == "os":
            import sys

            from autograder.sandbox import os_isolation

            os_isolation.check_available(sys.executable)  # raises with what is missing and how to get it
        submitted = copy.deepcopy(nb)
        for cell in submitted.cells:  # the student's code as submitted; nothing the kernel produced
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        notebook_id = str(resources.get("nbgrader", {}).get("notebook") or "submission")
        with tempfile.TemporaryDirectory(prefix="autograder-nbgrader-") as scratch:
            path = Path(scratch) / f"{Path(notebook_id).name}.ipynb"
            nbformat.write(submitted, str(path))
            return grade_submission(path, config, seed=config.resolve_seed("grade", None),
                                    backend="sandbox" if self.sandbox == "os" else "process")


def _function_of(cell) -> str | None:
    """The function a check cell grades (grade_id `check_<function>`), or None for any other cell."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    grade_id = str(nbgrader.get("grade_id", ""))
    if cell.cell_type != "code" or not nbgrader.get("grade") or nbgrader.get("solution"):
        return None
    return grade_id[len(CHECK_PREFIX):] if grade_id.startswith(CHECK_PREFIX) else None


def _outputs_for(result: SubmissionResult, function: str, execution_count, *, notes: bool) -> list:
    checks = [check for check in result.checks if check.function == function]
    if not checks:
        message = messages.text("nbgrader.no_checks", function=function)
        return [new_output("error", ename="NotGraded", evalue=message, traceback=[message])]
    only = SubmissionResult(name=result.name, path=result.path, assignment=result.assignment, seed=result.seed,
                            checks=checks, notes=result.notes if notes else [], language=result.language)
    with messages.using(result.language):
        table = render(only)
    points = sum(check.score for check in checks)
    return [new_output("stream", name="stdout", text=table + "\n"),
            new_output("execute_result", data={"text/plain": f"{points:g}"}, execution_count=execution_count)]
