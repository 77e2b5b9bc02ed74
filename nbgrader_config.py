"""nbgrader configuration for this course: solutions/ is the source, assignments/ the release.

Run nbgrader commands from this directory (or pass --CourseDirectory.root).
`autograder release` regenerates assignments/ with these settings.
"""

import os

from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.preprocessors import Execute, OverwriteCells

from autograder.integrations import nbgrader_converters
from autograder.integrations.nbgrader_inert_outputs import KeepInertOutputs
from autograder.integrations.nbgrader_preprocessors import ExecuteUntilKernelDies, RestoreMissingCheckCells
from autograder.integrations.nbgrader_sandboxed_grades import (
    FailWhereSandboxFailed,
    GradeCheckCellsInSandbox,
    HidePointsInFeedback,
)

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

# nbgrader's autograde and generate_feedback (its commands and the formgrader's buttons) as the kit's
# subclasses (autograder/integrations/nbgrader_converters.py): only the regular files a student handed in
# are copied or read, never through a link and bounded in size; a notebook that is a link scores 0 with
# the sentence `autograder grade` says; and every grade of a submission is 0 before anything of its run
# can fail, so a failed regrade never keeps a previous run's points.
nbgrader_converters.install()

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "assignments"

# JAX compiles on first use: give each cell time, and the kernel time to start.
# A cell that runs out of time is interrupted and scores 0; later cells still run.
c.Execute.timeout = 300
c.Execute.startup_timeout = 120
c.Execute.interrupt_on_timeout = True

# Grade every submission against the original check cells. nbgrader restores
# the source of an edited locked cell by itself; add_missing_cells also puts
# back a deleted check cell, which would otherwise score nothing and wait for
# manual grading.
c.OverwriteCells.add_missing_cells = True

# Two of nbgrader's steps replaced by subclasses (autograder/integrations/nbgrader_preprocessors.py):
# - ExecuteUntilKernelDies: a kernel that dies (crash, os._exit, out of memory)
#   or a cell that keeps running after the timeout's interrupt no longer fails
#   the whole submission, which leaves no scores, or a resubmission's previous
#   scores; the cells that did not run score 0 instead.
# - RestoreMissingCheckCells: a deleted check cell is put back even when the
#   cell before it (the exercise's solution cell) was deleted too.
# And two added (autograder/integrations/nbgrader_sandboxed_grades.py):
# - GradeCheckCellsInSandbox, after execution: each check cell's points and
#   feedback come from the sandboxed grader (`autograder grade`'s path: an OS
#   sandbox per submission, hidden inputs, facts established outside the
#   student's code), not from what the student's kernel printed and returned,
#   which code in an earlier cell can forge. The gradebook, feedback and export
#   stay nbgrader's. It needs what `autograder grade` needs (Linux, root,
#   bubblewrap); where the sandbox cannot run, check cells score 0 with a
#   message, and
# - FailWhereSandboxFailed, last: once those zeros are saved, nbgrader reports
#   that submission as failed and exits 1 instead of reporting success.
# Switch the sandboxed grading off only for a course that trusts its students'
# notebooks (the README's "Which path is safe for what"):
c.GradeCheckCellsInSandbox.enabled = True
# c.GradeCheckCellsInSandbox.sandbox = "process"   # weaker isolation, for machines without the OS sandbox

# Each student's kernel runs in the OS sandbox too (autograder/sandbox/kernel_sandbox.py):
# its own uid, PID namespace, no network, seccomp, grading.toml's [sandbox] limits, a
# read-only view of the system and Python, and a private copy of its submission folder as
# its only writable place: no gradebook.db, no other student's folder, no kit, no secrets.
# It follows GradeCheckCellsInSandbox: on while that grades in the "os" sandbox (the
# confined kernel cannot import the kit, so its check cells need the sandbox's results).
c.ExecuteUntilKernelDies.confine_kernel = True


def _after(steps, anchor, step):
    return [*steps[: steps.index(anchor) + 1], step, *steps[steps.index(anchor) + 1:]]


def _replaced(steps, original, replacement):
    if original not in steps:
        raise RuntimeError(f"nbgrader's steps changed ({steps}); update nbgrader_config.py")
    return [replacement if step is original else step for step in steps]


# KeepInertOutputs, after the sandboxed grading (autograder/integrations/nbgrader_inert_outputs.py): the
# autograded notebook, which the formgrader shows the instructor and feedback shows the student, keeps only
# text and bitmaps (no HTML, JavaScript, SVG, widgets or raw HTML in markdown), so nothing a student's
# notebook produced runs in either browser.
c.Autograde.autograde_preprocessors = [*_after(_after(_replaced(
    Autograde.class_traits()["autograde_preprocessors"].default(), Execute, ExecuteUntilKernelDies),
    ExecuteUntilKernelDies, GradeCheckCellsInSandbox), GradeCheckCellsInSandbox, KeepInertOutputs),
    FailWhereSandboxFailed]
c.Autograde.sanitize_preprocessors = _replaced(
    Autograde.class_traits()["sanitize_preprocessors"].default(), OverwriteCells, RestoreMissingCheckCells)
# Feedback pages show each check cell's points beside it; its value (the points nbgrader read) is dropped.
c.GenerateFeedback.preprocessors = [*GenerateFeedback.class_traits()["preprocessors"].default(), HidePointsInFeedback]

# Hidden inputs: each check cell draws a seed per grading.toml's [seeds] and
# prints it; AUTOGRADER_SEED=<int> in nbgrader's environment fixes it for a whole
# run (`AUTOGRADER_SEED=2026 nbgrader autograde <assignment>`).

# Keep students' printed output from bloating submissions and feedback.
c.LimitOutput.max_lines = 500
c.LimitOutput.max_traceback = 100

# The check cells call the kit; the stub every solution region becomes.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
