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
from autograder.check.pytest_plugin import CheckOutcome
from autograder.check.results import CheckResult


def values_checks(outcomes: list[CheckOutcome]) -> dict[str, str]:
    """function -> the property of its first check that failed on wrong values (suite order)."""
    first: dict[str, str] = {}
    for outcome in outcomes:
        if not outcome.passed and outcome.wrong_values:
            first.setdefault(outcome.function, outcome.prop)
    return first


def mark_not_checked(checks: list[CheckResult], outcomes: list[CheckOutcome]) -> list[CheckResult]:
    """`checks` (one per outcome, same order) with every gated check that never reached its property
    marked not checked, its feedback the sentence that says so."""
    gates = values_checks(outcomes)
    marked = []
    for check, outcome in zip(checks, outcomes, strict=True):
        gate = gates.get(outcome.function)
        if gate is not None and outcome.wrong_values and not outcome.passed and outcome.prop != gate:
            pointer = messages.text("check.not_checked", values_check=messages.check_name(gate))
            check = dataclasses.replace(check, not_checked=True, feedback=pointer)
        marked.append(check)
    return marked
