"""Reading the feedback students got: the cause a line states, its hint, and the catalog's sentences in it.

The class report groups failures by what their feedback says, numbers and
array values aside (`normalize_feedback`), and recognises the catalog's own
sentences (a stub left unwritten, tampering, an internal error) in English
or the current language (`sentence_pattern`).
"""

from __future__ import annotations

import re
import string

from autograder.catalog import messages

_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?!\w|\.\d)"
                     r"|(?<![\w.])[-+]?(?:nan|inf)\b")
_ARRAY = re.compile(r"\[\s*#\.?(?:[\s,]*(?:#\.?|\.\.\.))*[\s,]*\]")


def normalize_feedback(line: str) -> str:
    """`line` with every number `#` and every bracketed list of numbers `[#]`: failures of the same cause look alike.

    `set_element(f32[5], 4, -0.4568) raised TypeError ... [cell 8, line 7]` and
    the same with other values, shapes or line numbers both become
    `set_element(f32[#], #, #) raised TypeError ... [cell #, line #]`; the
    dtype in `f32` or `int32` stays.
    """
    line = _HEX.sub("0x#", line.strip())
    line = _NUMBER.sub("#", line)
    return _ARRAY.sub("[#]", line)


def hint_prefixes() -> tuple[str, ...]:
    """How a hint line starts: "Hint:" in English, and in the current language."""
    prefixes = {"Hint:"}
    try:
        prefixes.add(messages.text("call.hint", hint="").strip())
    except (KeyError, IndexError, ValueError):
        pass
    return tuple(p for p in prefixes if p)


def hint_of(feedback: str) -> str | None:
    """The first line of `feedback` that is a hint (`Hint: ...`), if any."""
    prefixes = hint_prefixes()
    return next((line.strip() for line in feedback.splitlines() if line.strip().startswith(prefixes)), None)


def sentence_pattern(key: str) -> re.Pattern:
    """A regular expression for the catalog's sentence `key`, any fields, in any language of the catalog.

    Every language, not only the report's: a Korean notebook's checks speak Korean whatever the
    instructor's report is in."""
    templates = {messages.ENGLISH[key]} if key in messages.ENGLISH else set()
    for language in messages.LANGUAGES:
        try:
            templates.add(messages.catalog(language).get(key) or "")
        except Exception:
            pass
    alternatives = []
    for template in filter(None, templates):
        template = template.split("\n")[0]  # feedback is matched line by line
        parts = []
        for literal, field, _, _ in string.Formatter().parse(template):
            parts.append(re.escape(literal))
            if field is not None:
                parts.append(".*?")
        alternatives.append("".join(parts))
    return re.compile("|".join(f"(?:{a})" for a in alternatives) or r"(?!)", re.DOTALL)
