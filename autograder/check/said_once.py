"""Each explanation once per function: a hint repeated by several failing checks is kept only the first time.

One mistake usually fails several checks of a function (correct, jittable,
traced once), and each check explains it with the same hint. A student
reads the checks in order, so the later ones keep what is their own (the
call and what it returned: the failure's detail) and point up to the advice
and hints instead of repeating them.
"""

from __future__ import annotations

import dataclasses

from autograder.catalog import messages
from autograder.check.failure import Failure, FailureKind
from autograder.check.results import CheckResult

# A line shorter than this is not an explanation (a label) and does not count as said.
MIN_EXPLANATION_CHARS = 40


def say_each_thing_once(checks: list[CheckResult]) -> list[CheckResult]:
    """`checks` with every piece of advice and every hint already given for the same function left out, and
    a pointer up to it said instead; a detail that shows what an earlier check showed (the same row of
    wrong values) points up too; "not implemented yet" is said in full by a function's first check only."""
    seen: dict[str, set[str]] = {}
    stubs: set[str] = set()
    kept = []
    for check in checks:
        failure = check.failed_with
        if failure is None or failure.not_checked_because is not None:
            kept.append(check)
            continue
        if failure.kind is FailureKind.NOT_IMPLEMENTED:
            kept.append(_stub_said_once(check, failure, check.function in stubs))
            stubs.add(check.function)
            continue
        said = seen.setdefault(check.function, set())
        advice = tuple(a for a in failure.advice if a not in said)
        hints = tuple(h for h in failure.hints if h not in said)
        recipes = tuple(r for r in failure.recipes if r not in said)
        shown_before = any(line in said for line in _explanations(failure.detail))
        said.update(failure.advice, failure.hints, failure.recipes, _explanations(failure.detail))
        if (advice, hints, recipes) != (failure.advice, failure.hints, failure.recipes) or shown_before:
            check = check.failing_with(dataclasses.replace(failure, advice=advice, hints=hints, recipes=recipes,
                                                           said_above=True))
        kept.append(check)
    return kept


def _stub_said_once(check: CheckResult, failure: Failure, said: bool) -> CheckResult:
    """A stub fails every check of its function for one reason: the first check says how to fix it, the
    others only that the function is not implemented yet."""
    if not said:
        return check
    short = messages.text("call.not_implemented_above", function=check.function)
    return check.failing_with(dataclasses.replace(failure, detail=short, advice=(), hints=(), recipes=()))


def _explanations(detail: str) -> list[str]:
    """The lines of a detail after its first (which names the call) long enough to explain something."""
    return [line for line in detail.splitlines()[1:] if len(line) >= MIN_EXPLANATION_CHARS]
