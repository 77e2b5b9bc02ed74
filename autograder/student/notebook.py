"""Check cells of the student package: `check("histogram", globals())`.

The student package installs this module as `autograder.notebook`, so the
released notebooks' check cells run unchanged. The checks replay the
recorded requests against the function as the kernel defines it and show
the grader's table (reports.check_cell: the points under nbgrader, no value
in a student's kernel), with hints at the release's `check_hints` level. Nothing is written to stderr
(not Python's, and not file descriptor 2, where XLA's C++ logging writes).

Nothing here imports JAX until `jax_support.problem` has said this Python's
JAX can run the checks: a kernel without JAX, or with one outside the
supported range, gets one sentence from the first check cell, not an error.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings

from autograder.catalog import messages
from autograder.student import jax_support
from autograder.student.strings import text

# Where this JAX can run the checks, adapt it now (the install cell imports this module before the notebook's
# own cells run): 10_parallel's cells then find `jax.shard_map` on a JAX before 0.6, say. Otherwise the first
# check cell says what to run.
jax_support.problem()


def check(function: str, namespace: dict, *, seed: int | None = None, lang: str | None = None) -> float | None:
    """Check `function` as defined in `namespace` (pass `globals()`); returns the points earned.

    `seed` is accepted for the instructor's check cells and ignored: the
    inputs are the ones recorded at release. Feedback is in `lang`, else the
    notebook's language (a Korean notebook's setup cell sets
    `AUTOGRADER_LANG = "ko"`); an explicit $AUTOGRADER_LANG wins, read here once for the whole check
    (messages.entering: this call is an entry point).
    """
    del seed
    language = lang if isinstance(lang, str) else namespace.get("AUTOGRADER_LANG")
    with messages.entering(), messages.using(language if isinstance(language, str) else None):
        try:
            return _check(function, namespace)
        except Exception as error:  # the checks' own failure: one sentence for course staff, no traceback
            print(text("student.kit_failed", error=f"{type(error).__name__}: {error}"[:300],
                       versions=jax_support.versions()))
            return 0.0


def _check(function: str, namespace: dict) -> float | None:
    problem = jax_support.problem()
    if problem is not None:
        print(problem.sentence(in_notebook=True))
        return 0.0
    from autograder.child.cell_execution import LoadReport
    from autograder.reports import check_cell
    from autograder.sandbox import compilation_cache
    from autograder.student import device_checks, recorded
    from autograder.student.checking import check_namespace, render_result
    from autograder.student.recorded import Package

    try:
        package = Package()
    except recorded.RecordError as error:
        print(text("student.data_missing", assignment=function, detail=error))
        return 0.0
    assignment = package.assignment_of(function)
    if assignment is None:
        print(text("student.unknown_function", function=function, known=", ".join(package.functions())))
        return 0.0
    compilation_cache.enable_private()  # a student's kernel runs its check cells again and again
    stderr = io.StringIO()
    with _file_descriptor_2_discarded(), contextlib.redirect_stderr(stderr), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A stub whose whole `def` is a solution region leaves the name undefined:
        # the kernel cannot tell which cell raised, so say what both causes mean.
        problems = [] if function in namespace else [messages.text("notebook.missing_function")]
        try:
            with messages.hints_at(package.hint_level):
                result = check_namespace(package, assignment, dict(namespace), LoadReport([], [], problems),
                                         {function}, name=function)
        except recorded.RecordError as error:
            print(text("student.data_missing", assignment=assignment, detail=error))
            return 0.0
    devices_note = device_checks.kernel_note(assignment, package.device_counts(assignment))
    if devices_note:
        result.notes.append(devices_note)
    with messages.hints_at(package.hint_level):
        return check_cell.show(result, render_result(result))


@contextlib.contextmanager
def _file_descriptor_2_discarded():
    """Point file descriptor 2 at the null device while the checks run (C-level writes bypass sys.stderr)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 2)
        finally:
            os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
