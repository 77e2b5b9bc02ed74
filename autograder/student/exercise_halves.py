"""A whole notebook's check in two processes at once, each checking half its exercises.

Most of a first check is XLA compiling the student's operations, one small
program per operation and shape, on one core (06's solution: 52 programs,
1.3 s of a 3.3 s check). Where two cores can run it, `autograder check` of
two or more exercises starts two fresh processes (check_processes), gives
each every other exercise, and shows their results as one: the same checks
in the same order, with the same verdicts and hints as one process gives.

Why the verdicts are the same:
- Each function is checked whole in one process, and everything a check
  says about what other checks said is said per function (check.said_once,
  check.cause_first).
- Each process loads the whole notebook, as the one process does.
- The budget for a submission's checks (limits.submission_seconds) is the CPU
  time of one process. When the two together used more, the check runs again
  in one process (`joined` returns None), so the budget stops the checks it
  would stop.

What can differ: a function that reads what another exercise's function
changed (a global list both use) sees that change only if the two are
checked in the same process. Grading checks them all in one.

Not split: an assignment checked once per device count (already a process
per count: device_checks), a single exercise, one usable core.
"""

from __future__ import annotations

import dataclasses
import os

from autograder.check.results import SubmissionResult
from autograder.student.check_processes import Part, PartResult

# Each part is a process holding JAX and its compiled programs (a fork of the warm server, or one importing JAX
# itself: 0.6-0.8 s of CPU). Three were no faster than two on two cores (03, 06, 07, 09, alternately).
PROCESSES = 2


def parts(exercises: list[str]) -> list[Part] | None:
    """`exercises` dealt to PROCESSES processes in turn (A B A B: each gets some of the first and some of the
    last); None where a split does not pay: fewer than two exercises or usable cores. Dealt back and forth
    instead (A B B A), the slower half of a first check was 0.1-0.3 s slower for 01, 03, 07 and 09, faster for
    05, the same for 06 (each half a fresh process, twice each, alternately)."""
    count = min(PROCESSES, len(exercises), usable_cores())
    if count < 2:
        return None
    return [Part(exercises=tuple(exercises[first::count])) for first in range(count)]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which `taskset` and container limits set)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def joined(found: list[PartResult], order: list[str], budget_seconds: float) -> SubmissionResult | None:
    """One result from the parts' results: their checks in `order` of function (each function's own checks in
    the order its process gave them), their notes once each. None when the parts used more CPU time than
    one process may (`budget_seconds`): then only one process can tell which checks the budget stops."""
    if sum(part.cpu_seconds for part in found) > budget_seconds:
        return None
    first = found[0].result
    rank = {function: place for place, function in enumerate(order)}
    checks = sorted((check for part in found for check in part.result.checks),
                    key=lambda check: rank.get(check.function, len(rank)))
    notes = list(dict.fromkeys(note for part in found for note in part.result.notes))
    printed = "".join(dict.fromkeys(part.result.printed_output for part in found))
    return dataclasses.replace(first, checks=checks, notes=notes, printed_output=printed)
