"""What a batch worker keeps for its sandbox children, for tests that grade in sandbox children directly.

A zygote that has imported JAX (each child forks from it instead of starting
Python and importing JAX afresh) and a clean-room runner forked from it, each
renewed if it died: grading through them is what `autograder grade`'s
workers do, seconds faster per grading than a child and a runner of its own.
"""

from __future__ import annotations

from autograder.check.results import SubmissionResult
from autograder.grade.pipeline import GradingOptions, WorkerResources, grade_submission
from autograder.sandbox.program_runner import ConfinedProgramRunner
from autograder.sandbox.zygote_client import Zygote


class SandboxChildren:
    def __init__(self, config, mode: str):
        """`mode`: "os" (the OS sandbox) or "process", as `GradingOptions.sandbox` names them."""
        self._mode = mode
        self._zygote: Zygote | None = None
        self._runner = ConfinedProgramRunner.for_config(mode, config)

    def resources(self) -> WorkerResources:
        """A worker's resources for one grading: the kept zygote (a new one if it died) and runner."""
        if self._zygote is None or not self._zygote.alive:
            if self._zygote is not None:
                self._zygote.close()
            self._zygote = self._runner.zygote = Zygote(mode=self._mode)
        return WorkerResources(zygote=self._zygote, program_runner=self._runner)

    def grade(self, path, config, options: GradingOptions) -> SubmissionResult:
        """`grade_submission`, through these children when `options.sandbox` is their mode."""
        return grade_submission(path, config, options, self.resources() if options.sandbox == self._mode else None)

    def close(self) -> None:
        self._runner.close()
        if self._zygote is not None:
            self._zygote.close()
