"""Each explanation once per function: a hint repeated by several failing checks is kept only the first time.

One mistake usually fails several checks of a function (correct, jittable,
traced once), and each check explains it with the same hint. A student
reads the checks in order, so the later ones keep what is their own (the
call and what it returned) and point up to the hint instead of repeating it.
"""

from __future__ import annotations

import dataclasses

from autograder.catalog import messages
from autograder.check.results import CheckResult

# A line shorter than this is not an explanation (a label, an excerpt row) and is kept.
MIN_EXPLANATION_CHARS = 40


def say_each_thing_once(checks: list[CheckResult]) -> list[CheckResult]:
    """`checks` with every explanation line already given for the same function replaced by a pointer."""
    seen: dict[str, set[str]] = {}
    kept = []
    for check in checks:
        if check.passed or not check.feedback:
            kept.append(check)
            continue
        said = seen.setdefault(check.function, set())
        first, *rest = check.feedback.splitlines()
        lines, repeated = [first], False
        for line in rest:
            if len(line) >= MIN_EXPLANATION_CHARS and line in said:
                repeated = True
            else:
                lines.append(line)
        said.update(check.feedback.splitlines())
        if repeated:
            lines.append(messages.text("call.said_above"))
        kept.append(dataclasses.replace(check, feedback="\n".join(lines)))
    return kept
