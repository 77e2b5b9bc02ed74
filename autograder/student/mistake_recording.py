"""Recording the known mistakes a check names from a wrong value (release side; not in the student package).

Beside a reference a suite declares the mistakes students make with it
(`Mistake(key, compute)`, check/known_mistakes.py); when a student's output
is wrong, the grader computes each variant on the same inputs and, when the
output equals one, the hint names that mistake. The student package ships no
suite. So while a check runs again with one answer made wrong (probing),
the variants the check compares that answer with are computed here, in the
trusted release process, on the check's public inputs, and recorded with
the step: each variant's output and the catalog key that names it, in the
grader's order, with the grader's tolerance. Never a reference or code: a
variant that equals the reference on these inputs names nothing (the grader
passes over it) and is left out. The sentences are recorded in every
language (`sentences`), since the suites' catalogs are not shipped.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from autograder.check import known_mistakes
from autograder.check.compare import assert_close
from autograder.check.known_mistakes import Mistake
from autograder.student import probing, recorded


def variants(expected: Any, args: Sequence[Any], kwargs: dict[str, Any], mistakes: Sequence[Mistake],
             arrays: list) -> list[dict]:
    """{"key", "value"} of each mistake whose variant differs from `expected` on these arguments, in order;
    the values' arrays are appended to `arrays`. A variant undefined here, or not plain data, is left out."""
    found = []
    for mistake in mistakes:
        try:
            value = mistake.compute(*args, **kwargs)
        except Exception:  # noqa: BLE001 - as the grader: a variant undefined for these inputs names nothing
            continue
        if _equal(expected, value):
            continue
        try:
            recorded.encode(value, [])  # plain numeric data only, checked before anything is appended
        except recorded.RecordError:
            continue
        found.append({"key": mistake.key, "value": recorded.encode(value, arrays)})
    return found


def _equal(expected: Any, variant: Any) -> bool:
    """As known_mistakes compares: within its tolerance, any structure mismatch is a difference."""
    try:
        assert_close(expected, variant, call="", rtol=known_mistakes.RTOL, atol=known_mistakes.ATOL)
    except (AssertionError, TypeError, ValueError):
        return False
    return True


@contextlib.contextmanager
def recording_mistakes(recorder: Any) -> Iterator[None]:
    """While the suite runs: when a probing rerun's wrong answer reaches the suites' `named_mistake`
    (expect_output's, with the check's own arguments and mistakes), record the variants with that step."""
    from autograder.suites import expect

    original = expect.named_mistake

    def named_mistake(actual, expected, args, kwargs, mistakes):
        probe = recorder.probe
        if probe is not None and mistakes:
            found = variants(expected, args, kwargs, mistakes, recorder.arrays)
            if found:
                recorder.annotate(probe.wrong_step, mistakes={"rtol": known_mistakes.RTOL,
                                                              "atol": known_mistakes.ATOL, "variants": found})
        return original(actual, expected, args, kwargs, mistakes)

    expect.named_mistake = named_mistake
    try:
        yield
    finally:
        expect.named_mistake = original


def sentences(steps: Sequence[dict]) -> dict[str, dict[str, str]]:
    """The sentence of every mistake `steps` record, in English and each language that translates it."""
    keys = {variant["key"] for step in steps for variant in step.get("mistakes", {}).get("variants", ())}
    return {key: probing.in_every_language(key) for key in sorted(keys)}
