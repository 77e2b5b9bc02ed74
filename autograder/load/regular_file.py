"""Reading a file a student handed in: the file itself, never what a link names, and a bounded part of it.

Everything in a student's folder is the student's to make: a symbolic link
to the gradebook, the solutions or a classmate's notebook, a FIFO that never
answers, a device that never ends. The trusted side opens such a file with
O_NOFOLLOW (a link fails with ELOOP, "Too many levels of symbolic links"),
O_NONBLOCK (opening a FIFO does not wait for a writer), checks on the open
descriptor that it is a regular file, and reads at most `cap` + 1 bytes.
Every failure is an OSError; `reason` names it as a catalog key (load.why.*)
with its fields, which the student's sentence (load.not_a_file) shows in the
student's language, the same for `autograder grade` and nbgrader.

Also imported by the child (through load/bounded_json.py): standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class NotRegular(OSError):
    """A directory, FIFO, socket or device where a file was expected."""


class TooLarge(OSError):
    """More bytes than the reader's cap, as the file claims to be or as it takes up disk."""

    def __init__(self, cap: int):
        super().__init__(f"larger than {_size(cap)}")
        self.cap = cap


def read(path: Path | str, cap: int) -> bytes:
    """The bytes of the regular file at `path`, not followed if it is a link; OSError beyond `cap` bytes."""
    with open_regular(path, cap) as handle:
        data = handle.read(cap + 1)  # the file may have grown since fstat
    if len(data) > cap:
        raise TooLarge(cap)
    return data


def open_regular(path: Path | str, cap: int) -> BinaryIO:
    """The regular file at `path`, open for reading (a link is not followed); OSError if it is larger than `cap`."""
    handle = os.fdopen(os.open(path, _OPEN), "rb")
    try:
        require_regular(os.fstat(handle.fileno()), cap)
    except OSError:
        handle.close()
        raise
    return handle


def require_regular(status: os.stat_result, cap: int) -> None:
    """OSError unless `status` is a regular file of at most `cap` bytes, counted as it claims to be
    (st_size) and as it takes up disk (st_blocks: a sparse file is small on disk, large once copied)."""
    if not stat.S_ISREG(status.st_mode):
        raise NotRegular("not a regular file")
    if status.st_size > cap or getattr(status, "st_blocks", 0) * 512 > cap:
        raise TooLarge(cap)


def _size(cap: int) -> str:
    return f"{cap >> 20} MiB" if cap >= 1 << 20 else f"{cap} bytes"


_REASONS_BY_ERRNO = {errno.ELOOP: "load.why.link", errno.ENOENT: "load.why.missing",
                     errno.EACCES: "load.why.no_permission", errno.EPERM: "load.why.no_permission"}


def reason(error: OSError) -> tuple[str, dict[str, str]]:
    """Why the file was not read, as a catalog key and its fields, without the grading machine's path."""
    if isinstance(error, NotRegular):
        return "load.why.not_regular", {}
    if isinstance(error, TooLarge):
        return "load.why.too_large", {"limit": _size(error.cap)}
    if error.errno in _REASONS_BY_ERRNO:
        return _REASONS_BY_ERRNO[error.errno], {}
    return "load.why.other", {"error": error.strerror or type(error).__name__}
