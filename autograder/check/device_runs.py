"""One submission graded with several device counts (grading.toml [devices]): one outcome per check.

JAX fixes its device count when its backend starts, so each count is a whole
grading: a fresh sandbox child and a clean-room runner with that many CPU
devices (grade.pipeline), or a fresh process of the student package's
`autograder check` (student.device_checks). A check passes only if it passed with every count; otherwise it
shows the feedback of the first count it failed with, saying which count.
So code that writes the device count in (a mesh of 4, `reshape(4, -1)`)
loses the points of every check it breaks with another count.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Generic, Protocol, Sequence, TypeVar

from autograder.check.failure import Failure


class _Outcome(Protocol):
    """What a run says of one check: the grader's CheckOutcome and the student package's CheckResult alike."""

    @property
    def function(self) -> str: ...

    @property
    def prop(self) -> str: ...

    @property
    def passed(self) -> bool: ...

    @property
    def failed_with(self) -> Failure | None: ...

    def failing_with(self, failure: Failure) -> Any: ...


Outcome = TypeVar("Outcome", bound=_Outcome)


@dataclasses.dataclass(frozen=True)
class DeviceRun(Generic[Outcome]):
    """The outcomes of one grading with `devices` CPU devices."""

    devices: int
    outcomes: list[Outcome]


def merged_outcomes(runs: Sequence[DeviceRun[Outcome]]) -> list[Outcome]:
    """One outcome per check, in the first run's order: passed only where it passed in every run.

    With a single run its outcomes are returned unchanged. A check missing from a run is judged by the
    runs that have it.
    """
    if len(runs) == 1:
        return list(runs[0].outcomes)
    merged = []
    for first in runs[0].outcomes:
        failed = _first_failure(runs, first.function, first.prop)
        if failed is None:
            merged.append(first)
            continue
        devices, outcome = failed
        failure = outcome.failed_with
        merged.append(outcome.failing_with(dataclasses.replace(failure, devices=devices)) if failure else outcome)
    return merged


def _first_failure(runs: Sequence[DeviceRun[Outcome]], function: str, prop: str) -> tuple[int, Outcome] | None:
    for run in runs:
        for outcome in run.outcomes:
            if outcome.function == function and outcome.prop == prop and not outcome.passed:
                return run.devices, outcome
    return None
