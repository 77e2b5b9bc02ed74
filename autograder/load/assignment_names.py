"""Which assignment a file's name names: one rule for discovery, the choice of file, and grading."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable


def assignment_in_file_name(path: Path, known: Iterable[str]) -> str | None:
    """The longest known assignment name inside the file's name (without its suffix), if any."""
    matches = [name for name in sorted(known, key=len, reverse=True) if name in path.stem]
    return matches[0] if matches else None
