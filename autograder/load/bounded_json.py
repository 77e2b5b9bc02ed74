"""Parsing JSON that a submission or a child could have written, at a bounded cost.

Python's `json` parses nested arrays and objects by recursion: a document
nested tens of thousands of levels deep raises RecursionError (which code
that expects ValueError does not catch), and a huge one costs its size in
memory several times over. So the trusted side never hands such text to
`json.loads` directly: `loads` first checks its size, then its nesting depth
(by scanning the brackets outside strings, which costs no recursion), and
only then parses it. Both limits raise `JSONLimitExceeded`, which names the
limit; callers turn it into a clear message and a zero for that submission.

Also imported by the child (through load/submission_source.py): standard
library only.
"""

from __future__ import annotations

import dataclasses
import json
import re
from itertools import accumulate
from pathlib import Path

from autograder.load import regular_file

# Deeper than any notebook or results.json needs (their own structure is 5 or 6 levels; widget or
# plot outputs add a few), and shallow enough that nbformat's recursive conversion and validation
# of what json.loads returns stay far from Python's recursion limit.
MAX_DEPTH = 100

# A JSON string, with its escapes. The depth check removes them: brackets inside strings are text.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
# What the depth check keeps of the text outside strings: the brackets, each one step in or out.
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_STEP = tuple(1 if byte in b"[{" else -1 if byte in b"]}" else 0 for byte in range(256))


class JSONLimitExceeded(ValueError):
    """The text is larger or deeper than the caller allows; it was not parsed."""

    def __init__(self, limit: Limit):
        super().__init__(limit.describe())
        self.limit = limit


@dataclasses.dataclass(frozen=True)
class Limit:
    """Which limit a document exceeded: `kind` "size" (bytes) or "depth" (levels of nesting)."""

    kind: str
    maximum: int

    def describe(self) -> str:
        if self.kind == "size":
            return f"larger than {self.maximum} bytes"
        return f"nested more than {self.maximum} levels deep"


def loads(text: str | bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> object:
    """`json.loads(text)` once `text` is known to be at most `max_bytes` long and `max_depth` deep.

    Raises JSONLimitExceeded for either limit, json.JSONDecodeError (a
    ValueError) for text that is not JSON, UnicodeDecodeError for bytes
    that are not UTF-8.
    """
    if len(text) > max_bytes:
        raise JSONLimitExceeded(Limit("size", max_bytes))
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    check_depth(text, max_depth)
    return json.loads(text)


def read(path: Path | str, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> object:
    """The JSON in the regular file at `path` (a link is not followed), reading at most `max_bytes` + 1 bytes
    of it (see `loads`).

    Raises OSError if it cannot be read or is not a regular file, and what `loads` raises.
    """
    try:
        raw = regular_file.read(path, max_bytes)  # never through a link, never a FIFO or a device
    except regular_file.TooLarge:
        raise JSONLimitExceeded(Limit("size", max_bytes)) from None
    return loads(raw, max_bytes=max_bytes, max_depth=max_depth)


def check_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    """Raise JSONLimitExceeded if `text` nests arrays and objects more than `max_depth` deep.

    Counts the brackets outside strings without parsing, in C-level passes
    (a regular expression, bytes.translate, itertools.accumulate): about a
    second for 30 MB of brackets. Unbalanced brackets are json.loads's to
    reject; it reads no deeper than this counted before it stops.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return  # cannot nest deeper than it has brackets: the common case, no scan
    outside = _STRING.sub("", text)
    unterminated = outside.find('"')
    if unterminated >= 0:  # a string that never ends: json.loads stops there, so the rest is never nested into
        outside = outside[:unterminated]
    brackets = outside.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > max_depth:
        raise JSONLimitExceeded(Limit("depth", max_depth))
