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
so in nbgrader's log. If the sandbox cannot run, or grading fails in any
other way, every check cell scores 0 with an error saying so, never the
kernel's own (forgeable) points; FailWhereSandboxFailed, the last autograde
step, then fails that submission after its zeros are in the gradebook, so
`nbgrader autograde` names it and exits 1 instead of reporting success.

What this does not change: nbgrader still runs the whole notebook in its own
kernel, unconfined, with the rights of the user running nbgrader. Grade cells
that are not the kit's check cells (no `check_<function>` grade id) are left
to nbgrader, with a warning in its log.
"""

from __future__ import annotations

import copy
import re
import tempfile
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Enum, Unicode

from autograder import grading_config
from autograder.catalog import messages
from autograder.check.results import SubmissionResult
from autograder.integrations.nbgrader_converters import LEFT_OUT_KEY, REFUSED_KEY
from autograder.integrations.nbgrader_student_files import FILE_CAP_BYTES, FOLDER_CAP_BYTES, LeftOut
from autograder.integrations.release import CHECK_PREFIX
from autograder.reports.terminal_table import render

# Where GradeCheckCellsInSandbox tells FailWhereSandboxFailed that this notebook was not graded.
FAILURE_KEY = "autograder_sandbox_failure"
# A result's problems that are the grader's fault, not the submission's (see SubmissionResult.problem).
GRADER_PROBLEMS = ("sandbox_failed", "grader_error")
MAX_LEFT_OUT_SHOWN = 20  # files not copied, named in the feedback
NBGRADER_HINT = ("fix this machine, or set c.GradeCheckCellsInSandbox.sandbox = \"process\" in nbgrader_config.py "
                 "to accept weaker isolation, then regrade with --force")


class SandboxFailed(RuntimeError):
    """A notebook's check cells could not be graded in the sandbox; they score 0."""


class GradeCheckCellsInSandbox(NbGraderPreprocessor):
    """Replace every check cell's outputs with the sandboxed grader's feedback and points."""

    enabled = Bool(True,
                   help="Grade check cells with the sandboxed grader instead of the student's kernel.").tag(config=True)
    sandbox = Enum(("os", "process"), "os", help="os: an OS sandbox per submission; process: weaker.").tag(config=True)
    config_file = Unicode("", help="grading.toml to use (default: the course directory's, where nbgrader "
                                                     "runs).").tag(config=True)

    def preprocess(self, nb, resources):
        if not self.enabled or resources.get(REFUSED_KEY):  # a refused notebook's cells already score 0, saying why
            return nb, resources
        check_cells = [cell for cell in nb.cells if _function_of(cell)]
        others = [str(_grade_id(cell)) for cell in nb.cells if _is_graded_by_output(cell) and not _function_of(cell)]
        if others:
            self.log.warning("Grade cells %s are not the kit's check cells: their points come from the student's "
                             "kernel, as in plain nbgrader", ", ".join(others))
        if not check_cells:
            return nb, resources
        try:
            result = self._grade(nb, resources)
        except Exception as error:  # the grader's failure: the student gets 0 and a sentence, never the kernel's points
            full = str(error) or type(error).__name__
            self.log.error("Check cells not graded in the sandbox, so they score 0: %s", full,
                           exc_info=not isinstance(error, (SandboxFailed, grading_config.GradingConfigError)))
            message = messages.text("nbgrader.sandbox_failed", detail=full.splitlines()[0][:300])
            for cell in check_cells:
                cell.outputs = [new_output("error", ename="SandboxFailed", evalue=message, traceback=[message])]
            resources[FAILURE_KEY] = full
            return nb, resources
        notes = _notes_for_nbgrader(result, resources.get(LEFT_OUT_KEY) or [])
        for index, cell in enumerate(check_cells):  # the submission's notes once, in the first check cell
            cell.outputs = _outputs_for(result, _function_of(cell), cell.get("execution_count"),
                                        notes if index == 0 else [])
        return nb, resources

    def _grade(self, nb, resources) -> SubmissionResult:
        from autograder.grade.pipeline import GradingOptions, grade_submission

        config = grading_config.load(self.config_file or grading_config.DEFAULT_PATH)
        if self.sandbox == "os":
            import sys

            from autograder.sandbox import os_isolation

            try:
                os_isolation.check_available(sys.executable)
            except os_isolation.IsolationUnavailable as error:  # what is missing, and nbgrader's way to accept less
                raise SandboxFailed(f"{error} (for nbgrader: {NBGRADER_HINT})") from None
        else:
            self.log.warning("GradeCheckCellsInSandbox.sandbox = \"process\": submissions run as ordinary child "
                             "processes without OS isolation; a hostile submission can change its grades")
        submitted = copy.deepcopy(nb)
        for cell in submitted.cells:  # the student's code as submitted; nothing the kernel produced
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        notebook_id = str(resources.get("nbgrader", {}).get("notebook") or "submission")
        with tempfile.TemporaryDirectory(prefix="autograder-nbgrader-") as scratch:
            path = Path(scratch) / f"{Path(notebook_id).name}.ipynb"
            nbformat.write(submitted, str(path))
            result = grade_submission(path, config,
                                      GradingOptions(seed=config.resolve_seed("grade", None), sandbox=self.sandbox))
        if result.problem in GRADER_PROBLEMS:  # zeros, but not for anything the notebook did
            raise SandboxFailed((result.notes or [result.problem])[0])
        return result


class HidePointsInFeedback(NbGraderPreprocessor):
    """A `nbgrader generate_feedback` step: drop each check cell's value, its points, from the feedback page.

    nbgrader reads a grade cell's partial credit from its `execute_result`,
    so autograded check cells end with one (`Out[4]: 0`). By feedback time the
    points are in the gradebook and nbgrader's page shows them beside the cell,
    so the bare number under the table only puzzles a student.
    """

    def preprocess(self, nb, resources):
        for cell in nb.cells:
            if _function_of(cell):
                cell.outputs = [output for output in cell.get("outputs", []) if output.output_type != "execute_result"]
        return nb, resources


class FailWhereSandboxFailed(NbGraderPreprocessor):
    """The last autograde step: fail a submission whose check cells the sandbox could not grade.

    By then SaveAutoGrades has stored their zeros, so neither the kernel's
    points nor a previous run's survive; nbgrader then reports the submission
    as failed, removes its autograded notebook and exits 1.
    """

    def preprocess(self, nb, resources):
        detail = resources.get(FAILURE_KEY)
        if detail:
            raise SandboxFailed(f"check cells not graded in the sandbox, scored 0 in the gradebook: {detail}")
        return nb, resources


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _is_graded_by_output(cell) -> bool:
    """A grade cell nbgrader scores from its outputs: a code cell that is not a solution cell."""
    nbgrader = cell.get("metadata", {}).get("nbgrader", {})
    return cell.cell_type == "code" and bool(nbgrader.get("grade")) and not nbgrader.get("solution")


def _function_of(cell) -> str | None:
    """The function a check cell grades (grade_id `check_<function>`), or None for any other cell."""
    grade_id = str(_grade_id(cell) or "")
    if not _is_graded_by_output(cell):
        return None
    return grade_id[len(CHECK_PREFIX):] if grade_id.startswith(CHECK_PREFIX) else None


def _outputs_for(result: SubmissionResult, function: str, execution_count, notes: list[str]) -> list:
    checks = [check for check in result.checks if check.function == function]
    if not checks:
        message = messages.text("nbgrader.no_checks", function=function)
        return [new_output("error", ename="NotGraded", evalue=message, traceback=[message])]
    only = SubmissionResult(name=result.name, path=result.path, assignment=result.assignment, seed=result.seed,
                            checks=checks, notes=notes,
                            language=result.language)
    with messages.using(result.language):
        table = render(only)
    points = sum(check.score for check in checks)
    return [new_output("stream", name="stdout", text=table + "\n"),
            new_output("execute_result", data={"text/plain": f"{points:.15g}"}, execution_count=execution_count)]


def _notes_for_nbgrader(result: SubmissionResult, left_out: list[LeftOut]) -> list[str]:
    """The submission's notes, less "cells ... were not run": nbgrader ran those example cells in its kernel,
    and the feedback page shows their outputs just above; and the files of the student's folder not copied."""
    with messages.using(result.language):
        before, after = messages.text("load.demos_skipped", cells="\0").split("\0")
        copied = [messages.text("nbgrader.files_left_out",
                                files="; ".join(item.shown() for item in left_out[:MAX_LEFT_OUT_SHOWN]),
                                file_mib=FILE_CAP_BYTES >> 20, folder_mib=FOLDER_CAP_BYTES >> 20)] if left_out else []
    skipped = re.compile(f"{re.escape(before)}.+?{re.escape(after)}", re.DOTALL)
    return [note for note in result.notes if not skipped.fullmatch(note)] + copied
