"""Whether a corpus mistake's feedback names its real cause first, and asserts no false one.

The first hint is what the first failed check says before any other hint:
its feedback must hold the case's cause (a catalog sentence in the language
graded, or words that read the same in every language), and no "Hint:" may
come before it. A false cause is a sentence the case lists as a cause its
code does not have, or a known-mistake sentence (a `.mistake.` key, which
says "the values are exactly what <mistake> gives") other than the case's
own cause, anywhere in its feedback.
"""

from __future__ import annotations

import re
import string

from corpus_cases import MistakeCase

from autograder.catalog import messages
from autograder.check.results import SubmissionResult

_FIELD = "\x00"
_MISTAKE_KEY = re.compile(r"^\d\d_\w+\.\w+\.mistake\.\w+$")


def first_failure(result: SubmissionResult):
    """The first check that failed on its own (not one left unchecked by wrong values), or None."""
    return next((c for c in result.checks if c.status == "failed"), None)


def cause_sentence(case: MistakeCase) -> str:
    """The words of the case's cause, in the current language ("…" where the sentence has a field)."""
    return sentence(case.cause).replace(_FIELD, "…") if case.cause else case.cause_text


def sentence(key: str) -> str:
    """The catalog sentence `key` in the current language and hint level, each field replaced by _FIELD."""
    names = {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(messages.ENGLISH[key])
             if name}
    try:
        return messages.text(key, **{name: _FIELD for name in names})
    except (ValueError, TypeError):  # a field with a number format: matched by its words before it
        return messages.text(key, **{name: 0 for name in names}).split("0")[0] + _FIELD


def said(key: str, feedback: str) -> int:
    """Where the sentence `key` is said in `feedback` (whatever its fields hold), or -1."""
    pattern = ".*?".join(re.escape(part) for part in sentence(key).split(_FIELD))
    found = re.search(pattern, feedback, re.DOTALL)
    return found.start() if found else -1


def names_cause_first(result: SubmissionResult, case: MistakeCase) -> bool:
    """The first failed check's feedback says the cause before any other hint."""
    check = first_failure(result)
    if check is None or not case.names_a_cause:
        return False
    at = said(case.cause, check.feedback) if case.cause else check.feedback.find(case.cause_text)
    if at < 0:
        return False
    hint = messages.text("call.hint", hint="")
    first_hint = check.feedback.find(hint)
    return first_hint < 0 or at <= first_hint + len(hint)


def false_causes(result: SubmissionResult, case: MistakeCase) -> list[str]:
    """The catalog keys of causes the feedback asserts that the case's code does not have."""
    text = "\n".join(c.feedback for c in result.checks if not c.passed)
    suspects = set(case.not_causes) | {key for key in messages.ENGLISH if _MISTAKE_KEY.match(key)}
    suspects -= {case.cause, *case.also}
    return sorted(key for key in suspects if said(key, text) >= 0)
