"""The first line is the cause: a function's first failed check leads with the most causal hint any of its
failed checks found.

The checks of a function run in the suite's order (values, then jit, then
structure), but the most telling evidence of one mistake is often found by a
later check: code that calls NumPy returns float64 in the values check and
raises TracerArrayConversionError only when jitted; a Python `if` on a
traced value passes on concrete values and fails under jit. A student reads
the first failed check first, so it says the cause found later, before its
own hints; the later check then points up to it (check/said_once.py).

Causal, in this order: the hint of a JAX tracing error (the code does
something JAX cannot trace, or mutates or reuses what JAX needs unchanged:
the reason, whatever else goes wrong). A hint is recognised by its catalog
sentence in the language and hint level of the run, so the order is decided
by the kind of finding, never by a check's name or position.

Never first: the exercise's recipe restated (what the function must compute,
an assignment catalog's `<function>.values` or `<function>.recipe` hint). It
names no cause, so it is advice of the second level: taken out of the hints
(and out of the advice, where a replayed check keeps it) and said after
them, so that a failure whose only hint was the recipe leads with its
detail, what differs.
"""

from __future__ import annotations

import dataclasses
import re

from autograder.catalog import hint_ideas, messages
from autograder.check.failure import Failure, FailureKind
from autograder.check.results import CheckResult

# The catalog keys of causal hints, most causal first.
TRACING = ("hint.TracerArrayConversionError", "hint.TracerBoolConversionError", "hint.TracerIntegerConversionError",
           "hint.ConcretizationTypeError", "hint.NonConcreteBooleanIndexError", "hint.ImmutableArray",
           "hint.UnexpectedTracerError", "hint.KeyReuseError")
# The hints that restate an exercise's recipe: "<assignment>.<function>.values" or ".recipe", and 05's
# gradient-descent step.
RECIPE = re.compile(r"^(\d\d_\w+\.\w+\.(values|recipe)|05_grad_aux\.train_step\.params)$")


def lead_with_the_cause(checks: list[CheckResult]) -> list[CheckResult]:
    """`checks` with each function's first failed check saying, before its own hints, the most causal hint
    that a later failed check of the function gives and it does not; and every failed check saying the
    exercise's recipe after its hints, never as one."""
    ranks = _causal_ranks()
    firsts: dict[str, int] = {}
    best: dict[str, tuple[int, str]] = {}
    for index, check in enumerate(checks):
        failure = check.failed_with
        if failure is None or failure.not_checked_because is not None:
            continue
        firsts.setdefault(check.function, index)
        for hint in failure.hints:
            rank = ranks.get(hint)
            if rank is not None and (check.function not in best or rank < best[check.function][0]):
                best[check.function] = (rank, hint)
    recipes = recipe_sentences()
    led = [_recipe_last(check, recipes) for check in checks]
    for function, (rank, hint) in best.items():
        first = led[firsts[function]]
        failure = first.failed_with
        assert failure is not None
        if not _leads(failure, hint, ranks, rank):
            led[firsts[function]] = first.failing_with(
                dataclasses.replace(failure, hints=(hint, *(h for h in failure.hints if h != hint))))
    return led


def _leads(failure: Failure, hint: str, ranks: dict[str, int], rank: int) -> bool:
    """The failure's first hint is `hint`, or one at least as causal."""
    return bool(failure.hints) and (failure.hints[0] == hint or ranks.get(failure.hints[0], len(ranks)) <= rank)


def _causal_ranks() -> dict[str, int]:
    """Each causal hint's sentence, as this run says it, and its rank (0: most causal)."""
    ranks: dict[str, int] = {}
    for rank, key in enumerate(TRACING):
        ranks.setdefault(messages.text(key), rank)
    return ranks


def _recipe_last(check: CheckResult, recipes: set[str]) -> CheckResult:
    """`check` with the `recipes` among its hints and advice moved after every hint."""
    failure = check.failed_with
    if failure is None or failure.not_checked_because is not None or failure.kind is FailureKind.NOT_IMPLEMENTED:
        return check
    moved = [line for line in (*failure.advice, *failure.hints) if line in recipes]
    if not moved:
        return check
    return check.failing_with(dataclasses.replace(
        failure, advice=tuple(a for a in failure.advice if a not in recipes),
        hints=tuple(h for h in failure.hints if h not in recipes),
        recipes=failure.recipes + tuple(dict.fromkeys(m for m in moved if m not in failure.recipes))))


def recipe_sentences() -> set[str]:
    """The recipe hints' sentences, as this run says them (its language and hint level)."""
    said: set[str] = set()
    for key in hint_ideas.IDEAS:
        if RECIPE.match(key) and messages.has(key):
            try:
                said.add(messages.text(key))
            except (KeyError, IndexError):  # a recipe with fields is said with them, not recognised here
                continue
    return said
