"""nbgrader's Execute preprocessor, made to survive a kernel that dies (used by nbgrader_config.py).

What nbgrader 0.9.6 does on its own when the kernel dies during
`nbgrader autograde` (a segfault, `os._exit`, `os.kill(os.getpid(), 9)`, the
OOM killer): nbclient raises DeadKernelError, nbgrader treats the whole
submission as an error, deletes the autograded notebook, writes no scores and
exits 1. A first submission is left with every grade at "no score, needs
manual grading"; a *resubmission* graded with `--force` silently keeps the
scores of the previous run, full marks included, and gets no feedback.

`ExecuteUntilKernelDies` instead records the death as an error output on the
cell that was running and a "not run" error on every later code cell, and
lets autograding go on. nbgrader scores a grade cell with an error output 0,
so the check cells that ran before the death keep the points they earned,
all later ones score 0, and the feedback says what happened.
"""

from __future__ import annotations

from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_output
from nbgrader.preprocessors import Execute

KERNEL_DIED = ("The kernel died while this cell was running (the process was killed or exited: "
               "a crash, os._exit(), or running out of memory). This cell and every cell after it "
               "score 0.")
NOT_RUN = "Not run: the kernel died in an earlier cell, so this cell scores 0."


def _error(ename: str, evalue: str):
    return new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


class ExecuteUntilKernelDies(Execute):
    """Execute every cell; after the kernel dies, fail the rest instead of failing the submission."""

    def preprocess(self, nb, resources=None, km=None):
        self._kernel_died = False
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        if getattr(self, "_kernel_died", False):
            if cell.cell_type == "code":
                cell.outputs = [_error("KernelDied", NOT_RUN)]
                cell.execution_count = None
            return cell, self.resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:
            self._kernel_died = True
            self.log.warning("The kernel died in cell %d; this and all later code cells score 0.", index)
            cell.outputs.append(_error("KernelDied", KERNEL_DIED))
            return cell, self.resources
