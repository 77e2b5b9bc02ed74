"""Reading a file a student handed in: the file itself, never what a link names, and a bounded part of it.

Everything in a student's folder is the student's to make: a symbolic link
to the gradebook, the solutions or a classmate's notebook, a FIFO that never
answers, a device that never ends. The trusted side opens such a file with
O_NOFOLLOW (a link fails with ELOOP, "Too many levels of symbolic links"),
O_NONBLOCK (opening a FIFO does not wait for a writer), checks on the open
descriptor that it is a regular file, and reads at most `cap` + 1 bytes.
Every failure is an OSError; `why` says it in words the student's
sentence (load.not_a_file) shows, the same for `autograder grade` and nbgrader.

Also imported by the child (through load/bounded_json.py): standard library only.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read(path: Path | str, cap: int) -> bytes:
    """The bytes of the regular file at `path`, not followed if it is a link; OSError beyond `cap` bytes."""
    with open_regular(path, cap) as handle:
        data = handle.read(cap + 1)  # the file may have grown since fstat
    if len(data) > cap:
        raise OSError(too_large(cap))
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
        raise OSError("not a regular file")
    if status.st_size > cap or getattr(status, "st_blocks", 0) * 512 > cap:
        raise OSError(too_large(cap))


def too_large(cap: int) -> str:
    return f"larger than {cap >> 20} MiB" if cap >= 1 << 20 else f"larger than {cap} bytes"


def why(error: OSError) -> str:
    """Why the file was not read, without the grading machine's path (OSError's own text names it)."""
    return "a symbolic link" if error.errno == errno.ELOOP else (error.strerror or str(error))
