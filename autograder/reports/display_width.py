"""Text measured in terminal columns: a wide character (Hangul, CJK, fullwidth) takes two.

`textwrap` counts characters, so a line of Korean feedback it calls 100 wide
fills about 160 columns and the terminal breaks it again mid-word. These
functions count what the terminal shows (Unicode East Asian Width: W and F
are two columns, a combining mark none) and wrap at spaces as textwrap does.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

_CHUNK = re.compile(r"\s+|\S+")


def char_width(char: str) -> int:
    """Columns one character takes: 2 if East Asian wide or fullwidth, 0 if combining, else 1."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def display_width(text: str) -> int:
    """Columns `text` takes on one terminal line."""
    return sum(char_width(char) for char in text)


def ljust(text: str, width: int) -> str:
    """`text` padded with spaces to `width` columns (unchanged if already wider)."""
    return text + " " * max(0, width - display_width(text))


def wrap(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> list[str]:
    """`text` as lines of at most `width` columns, broken at whitespace.

    Like `textwrap.wrap`: the paragraph's leading whitespace and the spaces
    between words are kept (value excerpts stay aligned), whitespace at a
    break is dropped, and a word wider than a line is cut into pieces.
    """
    lines: list[str] = []
    indent, line = initial_indent, ""
    room = max(1, width - display_width(subsequent_indent))
    for chunk in _CHUNK.findall(text.expandtabs()):
        if chunk.isspace():
            if line or not lines:
                line += chunk
            continue
        for piece in _pieces(chunk, room):
            if line.strip() and display_width(indent + line + piece) > width:
                lines.append((indent + line).rstrip())
                indent, line = subsequent_indent, ""
            line += piece
    if line.strip() or not lines:
        lines.append((indent + line).rstrip())
    return lines


def fill(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> str:
    """`wrap`'s lines joined by newlines."""
    return "\n".join(wrap(text, width, initial_indent, subsequent_indent))


def _pieces(word: str, room: int) -> Iterator[str]:
    """`word`, cut into pieces of at most `room` columns when it is wider than that."""
    if display_width(word) <= room:
        yield word
        return
    piece, used = "", 0
    for char in word:
        if used + char_width(char) > room and piece:
            yield piece
            piece, used = "", 0
        piece += char
        used += char_width(char)
    if piece:
        yield piece
