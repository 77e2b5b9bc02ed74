"""What grading one submission produced: per-check scores and feedback."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class CheckResult:
    function: str
    prop: str
    score: float
    max_score: float
    passed: bool
    feedback: str

    @property
    def name(self) -> str:
        """`histogram: duplicates counted` — the function's name comes first."""
        return f"{self.function}: {self.prop}"


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

    @property
    def score(self) -> float:
        return float(sum(c.score for c in self.checks))

    @property
    def max_score(self) -> float:
        return float(sum(c.max_score for c in self.checks))

    @property
    def all_passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    def to_gradescope(self) -> dict:
        """Gradescope's results.json format, with grading details in extra_data."""
        return {
            "score": self.score,
            "output": "\n".join(self.notes),
            "tests": [
                {
                    "name": c.name,
                    "score": c.score,
                    "max_score": c.max_score,
                    "status": "passed" if c.passed else "failed",
                    "output": c.feedback,
                }
                for c in self.checks
            ],
            "extra_data": {
                "submission": self.name,
                "path": self.path,
                "assignment": self.assignment,
                "seed": self.seed,
                "max_score": self.max_score,
                "problem": self.problem,
                "assignment_mismatch": self.assignment_mismatch,
                "language": self.language,
            },
        }
