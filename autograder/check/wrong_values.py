"""The evidence that a check failed on wrong values, and not on the property it checks.

A property check ("uses lax.scan", "no key reuse") earns its points only with
correct values, so it compares the values first. When that comparison fails,
the property itself was never looked at. `expect_output` notes the mismatch
it raises here; the pytest plugin asks, when it records a failed check,
whether that mismatch is what the check failed with (its feedback starts with
the mismatch's text: the suites' wrappers only append advice to it).
"""

from __future__ import annotations

import contextvars

# The text of the last values mismatch raised in the running check; None before any.
_mismatch: contextvars.ContextVar[str | None] = contextvars.ContextVar("autograder_wrong_values", default=None)


def note(feedback: str) -> None:
    """Record that the running check found wrong values, reported with `feedback`.

    `expect_output` calls it; a check that compares values itself (with
    `assert_close`) calls it with the comparison's message, so that a
    property check failing there is reported as not checked.

    Args:
        feedback: the comparison's AssertionError message.
    """
    _mismatch.set(feedback)


def forget() -> None:
    """A new check starts: no mismatch is known yet."""
    _mismatch.set(None)


def explains(feedback: str) -> bool:
    """Whether a failed check's `feedback` is the values mismatch this check raised."""
    noted = _mismatch.get()
    return noted is not None and noted != "" and feedback.startswith(noted)
