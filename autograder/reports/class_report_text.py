"""The class report's words: its sentences, and how any text is shown in it so that none of it acts.

Much of what the report shows comes from students' files and code (names,
paths, feedback): `visible` writes control and direction-changing characters
as escapes, on the page and on the terminal alike.
"""

from __future__ import annotations

import unicodedata

from autograder.catalog import messages

# The report's sentences in English, by key: the catalog's `report.class_*` entries (messages.py).
REPORT_TEXT: dict[str, str] = {key: text for key, text in messages.ENGLISH.items() if key.startswith("report.class_")}


def sentence(key: str, **fields: object) -> str:
    """A sentence of the report, in the run's language (the message catalog's)."""
    return messages.text(key, **fields)


def check_label(check: str) -> str:
    """A check as the report shows it, `function: property` with the property in the run's language
    (its `check_name.*` entry); the English `check` stays its id."""
    function, colon, prop = check.partition(": ")
    return f"{function}: {messages.check_name(prop)}" if colon else messages.check_name(check)


def assignment_name(assignment: str | None) -> str:
    """How the report names an assignment; results that name none are grouped under "(no assignment)"."""
    return assignment if assignment else sentence("report.class_no_assignment")


_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """Control and direction-changing characters as `\\x1b`-style escapes, so none acts on a terminal or page."""
    out = []
    for ch in text:
        if keep_newlines and ch in "\n\t":
            out.append(ch)
        elif unicodedata.category(ch) == "Cc" or ch in _BIDI or ch in "\u2028\u2029":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def clip(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut after a whole word, with "…", never inside a word."""
    if len(text) <= limit:
        return text
    cut = text[:limit]  # room for the "…" comes from the space dropped before it
    words = cut[:cut.rfind(" ")] if " " in cut.lstrip() else cut[:limit - 1]
    return words.rstrip(" ,;:") + "…"
