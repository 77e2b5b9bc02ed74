"""What a result is: a grade, a grade that needs a look, no grade at all, or a student who handed in no notebook.

Decided once, here, from a results.json's contents, for every output that
shows it: grades.csv's `status` and `reason` columns, report.html's banner,
JUnit (a submission not graded is an error, never a failure), the
`--resume` sentence and the interrupted batch's closing line. A result
whose grading did not finish (interrupted, the machine too busy, the kit
itself failing) is NOT_GRADED: its 0 is a placeholder, never a grade.

The statuses and reasons are a stable schema (README, "grades.csv"): short
English words for machines and gradebooks, the same in every language.
"""

from __future__ import annotations

import dataclasses

GRADED = "graded"
NEEDS_A_LOOK = "needs a look"
NOT_GRADED = "not graded"
NO_NOTEBOOK = "no notebook"
STATUSES = (GRADED, NEEDS_A_LOOK, NOT_GRADED, NO_NOTEBOOK)

# extra_data.problem of the placeholder a batch writes before grading, kept when the batch is interrupted.
INTERRUPTED = "interrupted"

# extra_data.problem -> (status, reason). "grader_error" depends on who wrote it (see `of`).
_PROBLEMS: dict[str, tuple[str, str]] = {
    INTERRUPTED: (NOT_GRADED, "interrupted"),
    "sandbox_failed": (NOT_GRADED, "sandbox failed"),
    "child_failed": (NOT_GRADED, "grader could not run it"),
    "no_notebook": (NO_NOTEBOOK, "no notebook"),
    "no_submission": (NO_NOTEBOOK, "no notebook"),
    "unreadable": (NEEDS_A_LOOK, "unreadable notebook"),
    "timeout": (NEEDS_A_LOOK, "top-level code timed out"),
    "exited": (NEEDS_A_LOOK, "top-level code exited"),
}
TOO_BUSY = "machine too busy"
KIT_ERROR = "kit error"


@dataclasses.dataclass(frozen=True)
class Status:
    status: str  # one of STATUSES
    reason: str  # a few words; "" for a plain grade

    @property
    def graded(self) -> bool:
        """Whether the score is a grade (GRADED or NEEDS_A_LOOK), not a placeholder."""
        return self.status in (GRADED, NEEDS_A_LOOK, NO_NOTEBOOK)


def of(data: dict) -> Status:
    """The status of one results.json's contents (anything else: not graded)."""
    extra = _extra(data)
    status = from_problem(data)
    if status is not None:
        return status
    look = _look(data, extra)
    return Status(NEEDS_A_LOOK, look) if look else Status(GRADED, "")


def from_problem(data: dict) -> Status | None:
    """The status that extra_data.problem alone decides (every one but a grade and a graded one to look at)."""
    extra = _extra(data)
    problem = extra.get("problem")
    if problem == "grader_error":
        # The worker's own result (finished) says the machine was too busy twice; the batch's own zero
        # (not finished) says the worker failed: the kit's error, or a placeholder written before `problem`.
        return Status(NOT_GRADED, TOO_BUSY if extra.get("finished") is True else KIT_ERROR)
    if isinstance(problem, str) and problem in _PROBLEMS:
        return Status(*_PROBLEMS[problem])
    if isinstance(problem, str) and problem:
        return Status(NEEDS_A_LOOK, problem.replace("_", " ")[:40])
    if "problem" not in extra and extra.get("finished") is not True:
        return Status(NOT_GRADED, KIT_ERROR)  # a result from before `problem` was recorded, never finished
    return None


def _extra(data: object) -> dict:
    extra = data.get("extra_data") if isinstance(data, dict) else None
    return extra if isinstance(extra, dict) else {}


def _look(data: dict, extra: dict) -> str:
    """Why a graded result needs a look, in a few words: the class report's "Other submissions to look at"
    (class_summary._needs_a_look), by the same fields and sentences."""
    from autograder.reports.feedback_patterns import sentence_pattern

    if extra.get("identity_notes"):
        return "who handed it in"
    if extra.get("assignment_mismatch"):
        return "assignment mismatch"
    if extra.get("ignored_files"):
        return "other files not graded"
    tests = data.get("tests")
    failed = [test for test in (tests if isinstance(tests, list) else [])
              if isinstance(test, dict) and test.get("status") != "passed"]
    texts = [data.get("output"), *(test.get("output") for test in failed)]
    lines = [line for text in texts if isinstance(text, str) for line in text.splitlines()]
    for reason, keys in (("changed the grader", ("load.tampered", "call.tampered")),
                         ("grader error in a check", ("report.internal_error",))):
        patterns = [sentence_pattern(key) for key in keys]
        if any(p.search(line) for p in patterns for line in lines):
            return reason
    return ""
