"""Replacing a file whole: written beside it under a random name, synced, then renamed over it.

Whoever reads the file (Gradescope reading results.json, an instructor
uploading a zip) sees the old contents or the new, never half of them. The
temporary file is created with O_EXCL and O_NOFOLLOW, so a name planted
beside the file, a link or not, is never written through.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def replace_atomically(path: Path, write: Callable[[BinaryIO], object], *, mode: int = 0o644) -> None:
    """Make `path` hold what `write` writes into the binary handle it is given; the folder must exist."""
    temporary = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    try:
        with os.fdopen(os.open(temporary, _CREATE, mode), "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        _unlink_quietly(temporary)
        raise


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
