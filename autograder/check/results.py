"""What grading one submission produced: per-check scores and feedback."""

from __future__ import annotations

import dataclasses

from autograder.catalog import messages
from autograder.check.failure import Failure, render
from autograder.protocol.sentences import to_wire

# How reports mark each status; its word is the catalog's "report.<status>".
STATUS_MARKS = {"passed": "✓", "failed": "✗", "not_checked": "–"}


@dataclasses.dataclass
class CheckResult:
    function: str
    prop: str
    score: float
    max_score: float
    passed: bool
    feedback: str
    # Failed without being checked: its points need correct values, and the values were wrong.
    not_checked: bool = False
    # What it failed with, in parts; `feedback` is its rendering. None where only the text is known
    # (a result read back, a placeholder for a check that never ran).
    failure: Failure | None = None

    def failing_with(self, failure: Failure) -> CheckResult:
        """This result failed with `failure`, its feedback rendered from it."""
        return dataclasses.replace(self, failure=failure, feedback=render(failure),
                                   not_checked=failure.not_checked_because is not None)

    def said_in(self, language: str) -> CheckResult:
        """This result with its feedback said in `language`, from its failure (a text-only result as it is)."""
        if self.failure is None:
            return self
        return dataclasses.replace(self, feedback=render(self.failure, language))

    @property
    def failed_with(self) -> Failure | None:
        """What it failed with; a text-only result's feedback stands as the detail; None if it passed."""
        if self.passed:
            return None
        return self.failure if self.failure is not None else Failure(self.feedback)

    @property
    def status(self) -> str:
        """"passed", "failed" or "not_checked" (a property check skipped because the values are wrong)."""
        if self.passed:
            return "passed"
        return "not_checked" if self.not_checked else "failed"

    @property
    def name(self) -> str:
        """`histogram: duplicates counted` — the function's name comes first."""
        return f"{self.function}: {self.prop}"

    @property
    def label(self) -> str:
        """The property as the student reads it: `prop` in the feedback's language (`prop` stays the id)."""
        return messages.check_name(self.prop)

    @property
    def display_name(self) -> str:
        """`name` in the feedback's language, for people; `name` is the stable id for machines."""
        return f"{self.function}: {self.label}"


@dataclasses.dataclass
class SubmissionResult:
    name: str
    path: str
    assignment: str | None
    seed: int
    checks: list[CheckResult]
    notes: list[str] = dataclasses.field(default_factory=list)
    printed_output: str = ""
    # What kept it from being graded normally, for the batch summary: None, "unreadable" (the file),
    # "timeout" / "exited" (its top-level code), "sandbox_failed" / "child_failed" / "grader_error" (the grader's).
    problem: str | None = None
    assignment_mismatch: str | None = None  # the note naming it, when file, metadata and --assignment disagree
    language: str = "en"  # the language its feedback was written in

    def said_in(self, language: str) -> SubmissionResult:
        """This result with every check's feedback said in `language` from its failure, for an output in
        another language than the run's (itself in its own language: its feedback as it was said)."""
        if language == self.language:
            return self
        return dataclasses.replace(self, checks=[check.said_in(language) for check in self.checks],
                                   language=language)

    @property
    def score(self) -> float:
        return float(sum(c.score for c in self.checks))

    @property
    def max_score(self) -> float:
        return float(sum(c.max_score for c in self.checks))

    @property
    def all_passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    def _gradescope_tests(self) -> list[dict]:
        with messages.using(self.language):  # the checks' names in the language of their feedback
            return [_gradescope_test(c) for c in self.checks]

    def to_gradescope(self) -> dict:
        """Gradescope's results.json format, with grading details in extra_data."""
        return {
            "score": self.score,
            "output": "\n".join(self.notes),
            "tests": self._gradescope_tests(),
            "extra_data": {
                "submission": self.name,
                "path": self.path,
                "assignment": self.assignment,
                "seed": self.seed,
                "max_score": self.max_score,
                "problem": self.problem,
                "assignment_mismatch": self.assignment_mismatch,
                "language": self.language,
                # the notes of "output", each with its catalog reference: to say them in another language
                "notes": [to_wire(note) for note in self.notes],
            },
        }


def _gradescope_test(check: CheckResult) -> dict:
    """One check as a Gradescope test. Gradescope knows only "passed" and "failed": a check not checked
    is "failed" there (it earned no points), and says why in its output and in its extra_data's "outcome"."""
    extra: dict[str, object] = {"check": check.name}  # the name in English: the same id in every language
    if check.not_checked:
        extra["outcome"] = "not_checked"
    if check.failure is not None:  # its parts, for programs that read results.json: kind, call, and each
        # sentence as its catalog key and fields, so that it can be said in another language (reports.said_in)
        extra["failure"] = check.failure.to_json()
    return {"name": check.display_name, "score": check.score, "max_score": check.max_score,
            "status": "passed" if check.passed else "failed", "output": check.feedback, "extra_data": extra}
