"""Property checks that were not checked, because the function's values are wrong.

A property's points need correct values (by design: a function that returns
a constant must not earn "uses lax.scan"), so each property check compares
the values before it looks at the property. When the function's values are
wrong, its first check that compared them failed for that; every later check
that failed on the same comparison never reached its property. Saying
"uses lax.scan: failed" there would claim a property the code may well have,
so such a check is reported as not checked, pointing up to the first one by
the name the table above shows (in the feedback's language).
The points are the same: none.
"""

from __future__ import annotations

import dataclasses

from autograder.catalog import messages
from autograder.check.results import CheckResult


def _on_wrong_values(check: CheckResult) -> bool:
    failure = check.failed_with
    return failure is not None and failure.on_wrong_values


def values_checks(checks: list[CheckResult]) -> dict[str, str]:
    """function -> the property of its first check that failed on wrong values (suite order)."""
    first: dict[str, str] = {}
    for check in checks:
        if _on_wrong_values(check):
            first.setdefault(check.function, check.prop)
    return first


def mark_not_checked(checks: list[CheckResult]) -> list[CheckResult]:
    """`checks` with every gated check that never reached its property marked not checked: its failure
    points up to the check that found the wrong values, by the name the table shows."""
    gates = values_checks(checks)
    marked = []
    for check in checks:
        gate = gates.get(check.function)
        failure = check.failed_with
        if gate is not None and failure is not None and failure.on_wrong_values and check.prop != gate:
            check = check.failing_with(dataclasses.replace(failure, not_checked_because=messages.check_name(gate)))
        marked.append(check)
    return marked
