"""What nbgrader may take from a student's folder: the regular files she handed in, bounded, never a link.

nbgrader 0.9.6 runs as the user who grades (root, for the OS sandbox) and,
before any kernel starts, copies every file of
`submitted/<student>/<assignment>/` into `autograded/` with shutil.copy,
which follows links; it reads the notebooks and timestamp.txt through links
as well, and generate_feedback copies `autograded/` into `feedback/` the same
way. So a folder holding links to gradebook.db, source/, a classmate's folder
or a root-only file had each of them copied where the student's confined
kernel reads, and handed back with her feedback; a notebook that is a link
to the solution was graded as hers.

The kit's converters (nbgrader_converters) use these instead:
- `copy_handed_in`: only regular files, each opened without following a
  link (load.regular_file) and at most FILE_CAP_BYTES (apparent and
  allocated size), at most FOLDER_CAP_BYTES and MAX_ENTRIES in all; a linked
  folder is never entered. What was left out is returned, to be named in the
  student's feedback.
- `read_notebook`: a notebook's bytes under the same rule and `autograder
  grade`'s cap; a link or special file is refused with the sentence
  `autograder grade` says.
- `read_timestamp`: timestamp.txt the same way; anything else is no timestamp.
"""

from __future__ import annotations

import dataclasses
import errno
import fnmatch
import os
import stat

from autograder.catalog import messages
from autograder.load import regular_file
from autograder.sandbox.parent import SUBMISSION_CAP_BYTES

FILE_CAP_BYTES = 32 << 20  # one data file: as large as a notebook may be
FOLDER_CAP_BYTES = 128 << 20  # all of them: well inside the confined kernel's 512 MiB writable space
MAX_ENTRIES = 1000  # files and folders looked at in one student's folder
TIMESTAMP_CAP_BYTES = 256  # "2026-03-01 12:00:00.000000 UTC" and some room
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """A file or folder of the student's that was not copied, and why: a catalog key (load.why.*) and its fields."""

    path: str  # relative to the student's folder
    why: str
    fields: tuple[tuple[str, str], ...] = ()

    @classmethod
    def for_error(cls, path: str, error: OSError) -> LeftOut:
        key, fields = regular_file.reason(error)
        return cls(path, key, tuple(fields.items()))

    def shown(self) -> str:
        """In the current language (messages.using)."""
        return f"{self.path} ({messages.text(self.why, **dict(self.fields))})"


def copy_handed_in(source: str, destination: str, ignore: list[str]) -> list[LeftOut]:
    """Copy the regular files under `source` (nbgrader's ignore globs and notebooks excepted) to `destination`."""
    if os.path.islink(source):
        return [LeftOut(".", "load.why.link")]
    left_out: list[LeftOut] = []
    budget = _Budget()
    for folder, subfolders, names in os.walk(source):  # followlinks=False: a linked folder is listed, not entered
        relative = os.path.relpath(folder, source)
        for name in sorted(subfolders):
            if os.path.islink(os.path.join(folder, name)):
                left_out.append(LeftOut(_joined(relative, name), "load.why.link"))
        subfolders[:] = sorted(n for n in subfolders if not _ignored(n, ignore)
                               and not os.path.islink(os.path.join(folder, n)))
        for name in sorted(names):
            if _ignored(name, ignore):
                continue
            shown = _joined(relative, name)
            if not budget.take_entry():
                return [*left_out, LeftOut(shown, "load.why.too_many_files", (("count", str(MAX_ENTRIES)),))]
            try:
                data = regular_file.read(os.path.join(folder, name), FILE_CAP_BYTES)
            except OSError as error:
                left_out.append(LeftOut.for_error(shown, error))
                continue
            if not budget.spend(len(data)):
                limit = (("limit_mib", str(FOLDER_CAP_BYTES >> 20)),)
                left_out.append(LeftOut(shown, "load.why.folder_too_large", limit))
                continue
            _write(os.path.join(destination, relative, name), data)
    return left_out


def read_notebook(path: str) -> bytes:
    """The notebook's bytes, read as `autograder grade` reads a submission; OSError says why not."""
    if os.path.islink(os.path.dirname(path)):  # the folder itself a link: nothing in it is the student's own
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    return regular_file.read(path, SUBMISSION_CAP_BYTES)


def read_timestamp(folder: str) -> str | None:
    """timestamp.txt's text, or None where it is missing, a link, not a regular file or not a timestamp's size."""
    try:
        text = regular_file.read(os.path.join(folder, "timestamp.txt"), TIMESTAMP_CAP_BYTES)
        return text.decode("utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


class _Budget:
    """What one student's folder may still cost: entries looked at and bytes copied."""

    def __init__(self) -> None:
        self.entries = self.bytes = 0

    def take_entry(self) -> bool:
        self.entries += 1
        return self.entries <= MAX_ENTRIES

    def spend(self, size: int) -> bool:
        """Count `size` more bytes copied, if they fit in FOLDER_CAP_BYTES."""
        if self.bytes + size > FOLDER_CAP_BYTES:
            return False
        self.bytes += size
        return True


def _write(path: str, data: bytes) -> None:
    """A new file in nbgrader's own folder (autograded/, feedback/): replaced, never written through a link."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        status = None
    if status is not None:
        os.rmdir(path) if stat.S_ISDIR(status.st_mode) else os.unlink(path)
    fd = os.open(path, _CREATE, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _ignored(name: str, ignore: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in ignore)


def _joined(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"
