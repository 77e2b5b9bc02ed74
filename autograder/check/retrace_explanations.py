"""JAX's cache-miss explanations, rewritten for the student.

With `jax_explain_cache_misses`, JAX logs why each trace could not reuse a
cached program, in its own terms: the grader's file paths, object ids,
pytree classes and cache keys. A student needs three things from it: which
argument changed (or which function is new), why that retraces, and what
fixes it. `explain` turns the log into one sentence per cause, each cause
said once however many calls it hit, and drops what it cannot read.

The text comes from the sandbox child, so it is only parsed, never trusted:
it decides no points.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Sequence

from autograder.catalog import messages
from autograder.catalog.message_ref import joined

# "* at x, now f32[4] and before f32[3]" (a traced argument's shape or dtype changed).
_INPUT_TYPE = re.compile(r"^\* at (?P<where>.+?), now (?P<after>\S+) and before (?P<before>\S+)$")
# "* at input path [0][1], now <class ...Static'> with pytree metadata Static(val=20) and before ... Static(val=2), ..."
_STATIC_VALUE = re.compile(r"^\* at input path (?P<path>\S+), now .*?Static\(val=(?P<after>.*?)\) and before "
                           r".*?Static\(val=(?P<before>.*?)\), so")
# "* at input path [1], now <class 'dict'> with 1 child and before ... key sets: {'axis'}"
_KEYWORDS = re.compile(r"^\* at input path \[1\], now <class 'dict'>.*key sets: \{(?P<names>.*)\}$")
# "    step_fn id=140416394434640 defined at <cell 1>:13"
_NEW_FUNCTION = re.compile(r"^(?P<name>[\w.<>]+) id=\d+ defined at (?P<where>.+?)(?::(?P<line>\d+))?$")
# Said under a function never seen when one defined on the same line was (JAX 0.5 to 0.10).
_MADE_AGAIN = "but seen another function defined on the same line"
_POSITION = re.compile(r"^\[0\]\[(\d+)\]$")
_KEYWORD = re.compile(r"^\[1\]\['(\w+)'\]$")
MAX_VALUE_CHARS = 40


@dataclasses.dataclass(frozen=True)
class Cause:
    """One reason for a retrace: `kind`, the argument or function it is about, and the values it changed between."""

    kind: str  # "new_function", "static_value", "input_type", "keywords", "context"
    subject: str
    change: str = ""


def causes(explanations: Sequence[str]) -> list[Cause]:
    """The causes in JAX's explanations, in order of first appearance, each once.

    A function JAX has never seen is a cause only when JAX has seen another defined on the same line (the
    function is made again at every call); otherwise it is that function's first trace, which is expected.
    """
    found: list[Cause] = []
    for explanation in explanations:
        lines = [line.strip() for line in str(explanation).splitlines()]
        made_again = any(line.startswith(_MADE_AGAIN) for line in lines)
        for index, line in enumerate(lines):
            cause = _cause(line, lines[index - 1] if index else "")
            if cause is not None and cause.kind == "new_function" and not made_again:
                continue
            if cause is not None and cause not in found:
                found.append(cause)
    return found


def _cause(line: str, previous: str) -> Cause | None:
    if previous == "never seen function:":
        match = _NEW_FUNCTION.match(line)
        if match:
            return Cause("new_function", match.group("name"), _line_of(match))
    if match := _STATIC_VALUE.match(line):
        return Cause("static_value", _argument(match.group("path")),
                     f"{_short(match.group('before'))} → {_short(match.group('after'))}")
    if match := _KEYWORDS.match(line):
        return Cause("keywords", ", ".join(f"`{name.strip(chr(39))}`" for name in match.group("names").split(", ")))
    if match := _INPUT_TYPE.match(line):
        return Cause("input_type", _argument(match.group("where")),
                     f"{match.group('before')} → {match.group('after')}")
    if line.startswith("tracing context doesn't match"):
        return Cause("context", "")
    return None


def _line_of(match: re.Match) -> str:
    where, line = match.group("where"), match.group("line")
    return line if line and where.startswith("<cell") else ""


def _argument(where: str) -> str:
    """"argument `x`", or "argument 2" for JAX's input path [0][1], or "argument `axis`" for [1]['axis']."""
    if match := _POSITION.match(where):
        return messages.text("retrace.position", position=int(match.group(1)) + 1)
    if match := _KEYWORD.match(where):
        return messages.text("retrace.named", name=match.group(1))
    return messages.text("retrace.named", name=where)


def _short(value: str) -> str:
    return value if len(value) <= MAX_VALUE_CHARS else value[:MAX_VALUE_CHARS - 1] + "…"


def explain(explanations: Sequence[str]) -> str:
    """One sentence per cause, under a heading; empty when nothing could be read."""
    found = causes(explanations)
    if not found:
        return ""
    merged: dict[tuple[str, str], list[str]] = {}
    for cause in found:
        merged.setdefault((cause.kind, cause.subject), []).append(cause.change)
    sentences = [_sentence(kind, subject, [c for c in changes if c]) for (kind, subject), changes in merged.items()]
    return joined("\n", messages.text("retrace.header"), *(joined("", "- ", s) for s in sentences))


def _sentence(kind: str, subject: str, changes: list[str]) -> str:
    if kind == "new_function":
        where = messages.text("retrace.at_line", line=changes[0]) if changes else ""
        return messages.text("retrace.new_function", name=subject, where=where)
    if kind == "context":
        return messages.text("retrace.context")
    if kind == "keywords":
        return messages.text("retrace.keywords", names=subject)
    key = "retrace.static_value" if kind == "static_value" else "retrace.input_type"
    return messages.text(key, argument=subject, changes=", ".join(changes))
