"""Checking an assignment that grading checks with several device counts, as grading does.

JAX fixes its device count when its backend starts. `autograder check` runs
in a fresh process, so for an assignment grading.toml grades with several
counts ([devices], recorded in the package's index) it checks in one fresh
process per count, concurrently, and a check passes only if it passed with
every count (check.device_runs, the grader's rule): a mesh of 4 written into
the code fails here as it fails in grading. A check cell runs in a kernel
whose count is already fixed: it checks with that count and says so once per
kernel (`kernel_note`).
"""

from __future__ import annotations

import dataclasses
import os

from autograder.catalog import messages
from autograder.check.device_runs import DeviceRun, merged_outcomes
from autograder.check.results import SubmissionResult
from autograder.student import check_processes
from autograder.student.check_processes import DEVICES_VARIABLE, Part, Started

_NOTED: set[str] = set()


def forced_count() -> int | None:
    """The device count this process checks with, when it is one of `check_with_each_count`'s processes."""
    value = os.environ.get(DEVICES_VARIABLE, "")
    return int(value) if value.isdigit() else None


def check_with_each_count(arguments: list[str], counts: tuple[int, ...]) -> SubmissionResult:
    """The merged result of `autograder <arguments>` run once per count in `counts`, each in a fresh process."""
    return merged(start_each_count(arguments, counts))


def start_each_count(arguments: list[str], counts: tuple[int, ...]) -> Started:
    """`autograder <arguments>` started once per count in `counts`, each in a fresh process; `merged` waits."""
    return check_processes.start(arguments, [Part(devices=count) for count in counts])


def merged(started: Started) -> SubmissionResult:
    """The merged result of the processes of `started`, once each has ended (check_processes.CheckProcessFailed,
    the others stopped, when one ended without a result): a check passes only if it passed with every count."""
    runs = [(found.part.devices or 1, found.result) for found in check_processes.results(started)]
    first = runs[0][1]
    checks = merged_outcomes([DeviceRun(count, result.checks) for count, result in runs])
    return dataclasses.replace(first, checks=checks)


def kernel_note(assignment: str, counts: tuple[int, ...]) -> str | None:
    """Said once per kernel and assignment: the checks ran with this kernel's devices, grading uses `counts`."""
    if not counts or assignment in _NOTED:
        return None
    _NOTED.add(assignment)
    import jax

    return messages.text("student.kernel_devices", devices=jax.device_count(),
                         counts=messages.text("student.device_counts_joined",
                                              first=", ".join(map(str, counts[:-1])), last=counts[-1])
                         if len(counts) > 1 else str(counts[0]))
