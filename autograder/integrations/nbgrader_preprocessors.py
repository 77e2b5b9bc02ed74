"""nbgrader preprocessors for this course, registered in nbgrader_config.py.

ExecuteUntilKernelDies: nbgrader's Execute, made to survive a kernel that dies
or hangs. What nbgrader 0.9.6 does on its own when the kernel dies during
`nbgrader autograde` (a segfault, `os._exit`, `os.kill(os.getpid(), 9)`, the
OOM killer): nbclient raises DeadKernelError, nbgrader treats the whole
submission as an error, deletes the autograded notebook, writes no scores and
exits 1. A first submission is left with every grade at "no score, needs
manual grading"; a *resubmission* graded with `--force` silently keeps the
scores of the previous run, full marks included, and gets no feedback. The
same happens when a cell outlives its time limit and keeps running after the
interrupt (code that catches KeyboardInterrupt): nbclient raises
CellTimeoutError once the kernel stays busy. This preprocessor instead records
what happened as an error output on the cell that was running and a "not run"
error on every later code cell, and lets autograding go on. nbgrader scores a
grade cell with an error output 0, so the check cells that ran before keep
the points they earned, all later ones score 0, and the feedback says why.

ExecuteUntilKernelDies also holds each notebook's output to a byte budget
as it arrives (output_budget.OutputBudget: CELL_BYTES per cell,
NOTEBOOK_BYTES per notebook, every message the kernel sends for a cell
counted): past it, what the cell sends is dropped, the cell gets one error
saying so and is interrupted. LimitOutput, later, only trims lines; nbclient
would otherwise keep every message in nbgrader's own process first. How
large one message may be is the confined kernel's client's limit
(kernel_sandbox.MAX_MESSAGE_BYTES).

RestoreMissingCheckCells: nbgrader's OverwriteCells, whose
`add_missing_cells` puts a deleted grade cell back after the cell that
preceded it in the source notebook. nbgrader 0.9.6 fails the whole submission
(KeyError) when that preceding cell was deleted too, e.g. a student who
deleted an exercise's solution cell and its check cell. This version inserts
the cell after the nearest preceding source cell that is still there.
"""

from __future__ import annotations

import asyncio
import time
from queue import Empty

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute, OverwriteCells
from traitlets import Bool

from autograder.catalog import messages
from autograder.integrations import nbgrader_warnings, output_budget

# Every course configuration that uses the kit imports this module into the nbgrader process it configures:
# from here on, nbgrader's known, harmless SAWarning is not printed three times per student.
nbgrader_warnings.quiet()

# The sentences in English, as imported (before nbgrader_config.py's install() holds the process's language); a
# cell is given them in the language held when it runs.
KERNEL_DIED = messages.text("nbgrader.kernel_died")
KERNEL_STUCK = messages.text("nbgrader.kernel_stuck")
NOT_RUN = messages.text("nbgrader.not_run")
ANSWER_SECONDS = 30  # how long a kernel whose output was cut has to answer before it counts as stuck


def _error(ename: str, evalue: str):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class ExecuteUntilKernelDies(Execute):
    """Execute every cell; once the kernel is dead or stuck, fail the rest instead of the submission.

    With `confine_kernel` (on in nbgrader_config.py) the kernel runs in the OS
    sandbox (sandbox.kernel_sandbox) whenever GradeCheckCellsInSandbox grades
    in the OS sandbox: the confined kernel cannot import the kit, so its check
    cells need the sandboxed grader's results, and a machine without the OS
    sandbox has neither.
    """

    confine_kernel = Bool(False, help="Run each student's kernel in the OS sandbox (with GradeCheckCellsInSandbox "
                                      "in its \"os\" mode).").tag(config=True)

    def create_kernel_manager(self):
        if self.kernel_is_confined():
            from autograder.sandbox.kernel_sandbox import ConfinedKernelManager

            # nbgrader's Execute fixes kernel_manager_class in its constructor, over any configuration.
            self.kernel_manager_class = ConfinedKernelManager
        return super().create_kernel_manager()

    def kernel_is_confined(self) -> bool:
        """Whether this run's kernels start in the OS sandbox."""
        from autograder.integrations.nbgrader_sandboxed_grades import GradeCheckCellsInSandbox

        grading = GradeCheckCellsInSandbox(config=self.config)
        return self.confine_kernel and grading.enabled and grading.sandbox == "os"

    def preprocess(self, nb, resources=None, km=None):
        from autograder.integrations.nbgrader_converters import REFUSED_KEY
        from autograder.sandbox.kernel_sandbox import KernelSandboxUnavailable

        self._stopped, self._output_budget = False, output_budget.OutputBudget()
        refused = (resources or {}).get(REFUSED_KEY)
        if refused:  # the notebook was not read (a link, a special file): nothing of it runs
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [_error("NotRead", refused)], None
            return nb, resources
        try:
            return super().preprocess(nb, resources, km)
        except KernelSandboxUnavailable as error:
            return self._not_started(nb, resources, error)

    def _not_started(self, nb, resources, error: Exception):
        """No kernel: every code cell scores 0 with a message, and FailWhereSandboxFailed fails the submission
        once those zeros are saved (never a previous run's scores)."""
        from autograder.integrations.nbgrader_sandboxed_grades import FAILURE_KEY

        self.log.error("%s", error)
        message = messages.text("nbgrader.sandbox_failed", detail=str(error).splitlines()[0][:300])
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [_error("SandboxFailed", message)], None
        resources = resources if resources is not None else {}
        resources[FAILURE_KEY] = str(error)
        return nb, resources

    async def async_start_new_kernel_client(self):
        client = await super().async_start_new_kernel_client()
        self._dropped = output_budget.DroppedMessages(client.iopub_channel.socket)
        return client

    # nbclient binds the synchronous name to its own coroutine, not to an override: point it at this one.
    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def process_message(self, msg, cell, cell_index):
        """nbclient's handling of one message from the kernel, within this notebook's output budget."""
        if msg.get("msg_type") == "status":  # carries no output, and ends the cell
            return super().process_message(msg, cell, cell_index)
        if self._budget().take(cell_index, output_budget.size_of(msg)):
            return super().process_message(msg, cell, cell_index)
        self._cut(cell, cell_index)
        return None

    async def _async_check_alive(self) -> None:
        """nbclient's check, every second while a cell runs; also: did a message too large to take in arrive?"""
        await super()._async_check_alive()
        running, dropped = getattr(self, "_running", None), getattr(self, "_dropped", None)
        if running is not None and dropped is not None and dropped.since_last_look():
            self._budget().exhaust(running[1])
            self._cut(*running)

    def _cut(self, cell, cell_index: int) -> None:
        """Once per cell past its budget: say so in the cell, and interrupt it."""
        budget = self._budget()
        if not budget.first_refusal(cell_index):
            return
        self.log.warning("Cell %d: output beyond %s; the rest is dropped and the cell interrupted",
                         cell_index, budget.describe())
        cell.outputs.append(_error("OutputLimit", messages.text(
            "nbgrader.output_limit", cell_mib=budget.cell_bytes >> 20, notebook_mib=budget.notebook_bytes >> 20)))
        interrupted = self.km.interrupt_kernel()  # a coroutine for nbclient's asynchronous kernel managers
        if asyncio.iscoroutine(interrupted):
            asyncio.ensure_future(interrupted)

    def _budget(self) -> output_budget.OutputBudget:
        if getattr(self, "_output_budget", None) is None:
            self._output_budget = output_budget.OutputBudget()
        return self._output_budget

    def preprocess_cell(self, cell, resources, index):
        if getattr(self, "_stopped", False):
            if cell.cell_type == "code":
                cell.outputs = [_error("NotRun", messages.text("nbgrader.not_run"))]
                cell.execution_count = None
            return cell, self.resources
        self._running = (cell, index)
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._stop(cell, index, "KernelDied", messages.text("nbgrader.kernel_died"))
        except CellTimeoutError:
            # A cell whose output was cut lost the end of its output too (its "idle" may be among what was
            # dropped): nbclient then times out waiting for it. A kernel that answers is not stuck.
            if not (self._budget().was_cut(index) and self._kernel_answers()):
                self._stop(cell, index, "KernelStuck", messages.text("nbgrader.kernel_stuck"))
        return cell, self.resources

    async def _async_kernel_answers(self) -> bool:
        """Whether the kernel answers a kernel_info request within ANSWER_SECONDS (it is idle, not stuck)."""
        request = self.kc.kernel_info()
        deadline = time.monotonic() + ANSWER_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            try:
                reply = await ensure_async(self.kc.shell_channel.get_msg(timeout=left))
            except Empty:
                return False
            if reply.get("parent_header", {}).get("msg_id") == request:
                return True
        return False

    _kernel_answers = run_sync(_async_kernel_answers)

    def _stop(self, cell, index: int, ename: str, message: str) -> None:
        self._stopped = True
        self.log.warning("Cell %d: %s", index, message)
        cell.outputs.append(_error(ename, message))


class RestoreMissingCheckCells(OverwriteCells):
    """OverwriteCells whose re-added grade cells go after the nearest surviving source cell."""

    def add_missing_grade_cells(self, nb, resources):
        source_notebook = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        source_cells = list(source_notebook.source_cells)
        source_ids = [cell.name for cell in source_cells]
        solution_ids = {cell.name for cell in source_notebook.solution_cells}
        for grade_cell in source_notebook.grade_cells:
            present = {_grade_id(cell): index for index, cell in enumerate(nb.cells) if _grade_id(cell)}
            if grade_cell.name in present:
                continue
            self.log.warning("Missing grade cell %s encountered, adding to notebook", grade_cell.name)
            position = source_ids.index(grade_cell.name)
            before = [present[name] for name in source_ids[:position] if name in present]
            restored = self.missing_cell_transform(source_cells[position], grade_cell.max_score,
                                                   is_solution=grade_cell.name in solution_ids)
            nb.cells.insert(max(before) + 1 if before else 0, restored)
        return nb, resources


def _grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
