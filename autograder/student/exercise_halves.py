"""A whole notebook's check in two processes at once, each checking half its exercises.

Most of a first check is XLA compiling the student's operations, one small
program per operation and shape, on one core (06's solution: 52 programs,
1.3 s of a 3.3 s check). Where two cores can run it, `autograder check` of
two or more exercises starts two fresh processes (check_processes), gives
each every other exercise, lets each take those the other has not started
once it is done with its own (check.function_claims), and shows their
results as one: the same checks in the same order, with the same verdicts
and hints as one process gives.

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
checked in the same process, which depends on how long the checks take.
Grading checks them all in one.

Not split: an assignment checked once per device count (already a process
per count: device_checks), a single exercise, one usable core.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

from autograder.check.results import SubmissionResult
from autograder.student.check_processes import Part, PartResult

# Beside a clone's suites: each function's `check_seconds` for `parts` (scripts/write_check_seconds.py).
SECONDS_TABLE = "check_seconds.toml"
# Each part is a process holding JAX and its compiled programs (a fork of the warm server, or one importing JAX
# itself: 0.6-0.8 s of CPU). Three were no faster than two on two cores (03, 06, 07, 09, alternately).
PROCESSES = 2


def parts(exercises: list[str], check_seconds: Mapping[str, float] | None = None) -> list[Part] | None:
    """Two parts that take `exercises` as they come to them (check.function_claims); None where a split does not
    pay: fewer than two exercises or usable cores.

    With what a check of each exercise alone costs (`check_seconds`: the suites' table, scripts/
    write_check_seconds.py), both go through the exercises from the costliest down, each taking the next one
    the other has not taken: each is then busy until the other is nearly done. Dealt in turn instead, 06's
    first check had one process checking init_mlp_params then random_walk for 1.55 s while the other was done
    after 1.0 s.

    Without: each goes first through every other exercise (A B A B: each gets some of the first and some of the
    last), then through the other's from its end, taking those the other has not come to. Dealt back and forth
    instead (A B B A), the slower half of a first check was 0.1-0.3 s slower for 01, 03, 07 and 09 (each half a
    fresh process, twice each, alternately)."""
    if min(PROCESSES, len(exercises), usable_cores()) < 2:
        return None
    if check_seconds and all(name in check_seconds for name in exercises):
        costliest_first = tuple(sorted(exercises, key=lambda name: -check_seconds[name]))  # stable for ties
        return [Part(exercises=costliest_first, claimed=True), Part(exercises=costliest_first, claimed=True)]
    first, second = exercises[0::2], exercises[1::2]
    return [Part(exercises=tuple(first + second[::-1]), claimed=True),
            Part(exercises=tuple(second + first[::-1]), claimed=True)]


def seconds_in_table(folder: Path, assignment: str) -> dict[str, float]:
    """`assignment`'s check seconds in the SECONDS_TABLE of the suites' `folder`; {} where it has none, or it
    cannot be read (the exercises are then dealt in turn)."""
    import tomllib

    from autograder.student.recorded import seconds_of

    try:
        return seconds_of(tomllib.loads((folder / SECONDS_TABLE).read_text(encoding="utf-8")).get(assignment))
    except (OSError, ValueError):
        return {}


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which `taskset` and container limits set)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def joined(found: list[PartResult], order: list[str], budget_seconds: float) -> SubmissionResult | None:
    """One result from the parts' results: their checks in `order` of function (each function's own checks in
    the order its process gave them), their notes once each. None when the parts used more CPU time than
    one process may (`budget_seconds`): then only one process can tell which checks the budget stops. None too
    when two parts checked one function (their claims folder gone astray): one process checks it once."""
    if sum(part.cpu_seconds for part in found) > budget_seconds:
        return None
    checked_by = [{check.function for check in part.result.checks} for part in found]
    if any(mine & theirs for number, mine in enumerate(checked_by) for theirs in checked_by[number + 1:]):
        return None
    first = found[0].result
    rank = {function: place for place, function in enumerate(order)}
    checks = sorted((check for part in found for check in part.result.checks),
                    key=lambda check: rank.get(check.function, len(rank)))
    notes = list(dict.fromkeys(note for part in found for note in part.result.notes))
    printed = "".join(dict.fromkeys(part.result.printed_output for part in found))
    return dataclasses.replace(first, checks=checks, notes=notes, printed_output=printed)
