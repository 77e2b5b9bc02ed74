"""Writing into the out dir without trusting what is there.

Sandbox children never see the out dir (`autograder grade --out DIR`): only
the batch parent and its grading workers write it. What can still sit in it
is whatever was there before or appears beside the run: an earlier run's
files, a symbolic link that leads out of it, a FIFO that blocks whoever opens
it, a directory where a file belongs. So:

- The out dir is opened once, as a directory descriptor that is not a
  symbolic link, and everything below it is reached relative to that
  descriptor, one name at a time, never following a symbolic link.
- A file is written to a fresh temporary name (created exclusively, with a
  random part, so nothing planted is ever opened instead) and renamed over
  its destination. A rename replaces a symbolic link, FIFO, socket or file
  without opening it; a directory in the way is moved aside, with a note.
- A submission's directory that is anything but a real directory is removed
  (a symbolic link itself, never what it points to) and made afresh, with a
  note.
- A file is read back only if it is a regular file of bounded size, opened
  without following links and without blocking. Anything else raises
  OutDirError, which the batch counts as "not graded".

Submission names become directory names here; `safe_component` makes any
text one file name that means the same on Linux, macOS and Windows.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import sys
import unicodedata
from pathlib import Path
from typing import Callable

MAX_READ_BYTES = 64 << 20  # far above any results.json the grader writes
MAX_NAME_BYTES = 120  # UTF-8 bytes of a name before any disambiguating suffix; file systems allow 255
# Written at the top of the out dir, beside the submissions' directories: the batch's and merge's files, and
# the JUnit file where the documented commands put it (`--junit-xml <out>/junit.xml`).
RESERVED_NAMES = frozenset({"grades.csv", "report.html", "shard.json", "junit.xml"})

_RDONLY_DIR = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_CLOEXEC", 0))
_RDONLY_FILE = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CREATE_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_ATTEMPTS = 16
# Characters Windows refuses in file names; `/` and NUL everywhere.
_UNSAFE_CHARACTERS = frozenset('/\\<>:"|?*\0')
# Windows device names, refused with any extension.
_DEVICE_NAMES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                           *(f"lpt{i}" for i in range(10))})
# At the start of a name: hidden files and `.`/`..` (dots), command-line options (`-`), spreadsheet formulas.
_UNSAFE_LEADING = " .-=+@"


class OutDirError(OSError):
    """Something in the out dir is not what the grader wrote there; the message says what, and what to do."""


def safe_component(text: str, *, max_bytes: int = MAX_NAME_BYTES) -> str:
    """`text` as a single file name that is safe and means the same on Linux, macOS and Windows.

    NFC-normalized; path separators, NUL, control and format characters,
    line breaks, unusual spaces and the characters Windows refuses become
    `_`; leading dots, spaces, dashes and formula signs and trailing dots and
    spaces are dropped (so never `.`, `..` or a hidden file); at most
    `max_bytes` UTF-8 bytes, cut between characters; Windows device names and
    the out dir's own file names get a leading `_`. Letters of any script
    stay as they are. Returns `text` itself when it is already such a name,
    so callers can tell whether it changed.
    """
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be at least 1, got {max_bytes}")
    name = "".join(
        "_" if ch in _UNSAFE_CHARACTERS or unicodedata.category(ch)[0] == "C"
        or (unicodedata.category(ch)[0] == "Z" and ch != " ") else ch
        for ch in unicodedata.normalize("NFC", text))
    name = name.lstrip(_UNSAFE_LEADING).rstrip(" .")
    if len(name.encode("utf-8")) > max_bytes:
        name = name.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore").rstrip(" .")
    if not name:
        return "submission"
    if name.split(".")[0].rstrip(" ").casefold() in _DEVICE_NAMES or name.casefold() in RESERVED_NAMES:
        name = "_" + name
    return name


class OutDir:
    """The out dir, opened once; files below it are written and read relative to its descriptor.

    `create`: make the directory (and its parents) if it does not exist.
    `identity`: the (st_dev, st_ino) it must have, so that a second process
    (a grading worker) writes into the very directory the batch opened.
    `note`: called with a sentence for everything replaced or moved aside
    (default: printed to stderr).
    """

    def __init__(self, path: Path, *, create: bool = True, identity: tuple[int, int] | None = None,
                 note: Callable[[str], None] | None = None):
        self.path = Path(path)
        self._note = note or (lambda text: print(f"autograder: {text}", file=sys.stderr))
        self._fd = self._open_root(create)
        st = os.fstat(self._fd)
        self.identity = (st.st_dev, st.st_ino)
        if identity is not None and tuple(identity) != self.identity:
            self.close()
            raise OutDirError(
                f"out dir {self.path} is not the directory the batch opened (device and inode {self.identity}, "
                f"expected {tuple(identity)}): it was replaced during the run. Grade again into a directory "
                "that nothing else changes.")

    def close(self) -> None:
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def __enter__(self) -> OutDir:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def write_file(self, entry: str | None, filename: str, data: bytes, *, mode: int = 0o600) -> None:
        """Write `data` to `<out>/<entry>/<filename>` (or `<out>/<filename>`), atomically.

        Readers see the old file or the new one, never half of one. Whatever
        sits at the destination is replaced without being opened or followed.
        """
        _check_component(filename, "filename")
        directory = self._entry(entry) if entry is not None else self._fd
        try:
            temporary = self._write_temporary(directory, filename, data, mode)
            try:
                self._note_replaced(directory, entry, filename)
                for _ in range(_ATTEMPTS):
                    try:
                        os.replace(temporary, filename, src_dir_fd=directory, dst_dir_fd=directory)
                        return
                    except IsADirectoryError:
                        self._move_aside(directory, entry, filename)
                    except OSError as error:
                        if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                            raise
                        self._move_aside(directory, entry, filename)
                raise OutDirError(
                    f"{self._where(entry, filename)}: a directory kept reappearing where the grader writes this "
                    f"file ({_ATTEMPTS} times); stop whatever writes into the out dir and grade again.")
            except BaseException:
                _unlink_quietly(directory, temporary)
                raise
        finally:
            if directory != self._fd:
                os.close(directory)

    def read_file(self, entry: str | None, filename: str, *, limit: int = MAX_READ_BYTES) -> bytes:
        """The bytes of `<out>/<entry>/<filename>`, if it is a regular file of at most `limit` bytes.

        Raises OutDirError for anything else (missing, a symbolic link, a
        FIFO, a directory, too large); nothing is followed or waited for.
        """
        _check_component(filename, "filename")
        where = self._where(entry, filename)
        directory = self._open_entry(entry) if entry is not None else self._fd
        try:
            try:
                before = os.stat(filename, dir_fd=directory, follow_symlinks=False)
            except FileNotFoundError:
                raise OutDirError(f"{where} does not exist: the grader has not written it.") from None
            if not stat.S_ISREG(before.st_mode):
                raise OutDirError(_not_a_regular_file(where, before.st_mode))
            try:
                fd = os.open(filename, _RDONLY_FILE, dir_fd=directory)
            except OSError as error:
                raise OutDirError(f"{where} could not be opened ({error.strerror}); expected a regular file "
                                  "the grader wrote. Remove it and grade again.") from None
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
                    raise OutDirError(f"{where} changed while it was being opened; expected a regular file that "
                                      "stays put. Stop whatever writes into the out dir and grade again.")
                if st.st_size > limit:
                    raise OutDirError(_too_large(where, st.st_size, limit))
                chunks, size = [], 0
                while size <= limit:
                    chunk = os.read(fd, min(1 << 20, limit + 1 - size))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    size += len(chunk)
                if size > limit:
                    raise OutDirError(_too_large(where, size, limit))
                return b"".join(chunks)
            finally:
                os.close(fd)
        finally:
            if directory != self._fd:
                os.close(directory)

    # --- internals -----------------------------------------------------------

    def _open_root(self, create: bool) -> int:
        path = self.path
        if create:
            try:
                os.lstat(path)
            except FileNotFoundError:
                try:
                    os.makedirs(path, exist_ok=True)
                except OSError as error:
                    raise OutDirError(f"out dir {path} could not be created ({error.strerror}); pass a directory "
                                      "you can write to as --out.") from None
            except OSError:
                pass  # the open below says what is wrong
        try:
            fd = os.open(path, _RDONLY_DIR)
        except FileNotFoundError:
            raise OutDirError(f"out dir {path} does not exist; expected the directory the batch writes into. "
                              "Grade again: the batch creates it.") from None
        except OSError as error:
            raise OutDirError(self._bad_root(error)) from None
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            raise OutDirError(f"out dir {path} is not a directory; pass a directory (or a new path) as --out.")
        if create and not os.access(path, os.W_OK | os.X_OK):  # say so now, not after grading everything
            os.close(fd)
            raise OutDirError(f"out dir {path} is not writable by this user (it may hold an earlier run's files, "
                              "made by root); pass a directory you can write to as --out.")
        return fd

    def _bad_root(self, error: OSError) -> str:
        path = self.path
        try:
            st = os.lstat(path)
        except OSError:
            return f"out dir {path} could not be opened ({error.strerror}); pass a directory you can write to as --out."
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(path)
            return (f"out dir {path} is a symbolic link (to {target}); the grader writes only into a real directory, "
                    f"reached without following links. Pass the directory itself ({os.path.realpath(path)}) as "
                    "--out, or remove the link.")
        return (f"out dir {path} is {_kind(st.st_mode)}, not a directory; pass a directory (or a new path) as "
                "--out.")

    def _entry(self, entry: str) -> int:
        """A descriptor of the real directory `<out>/<entry>`, made (and anything else there replaced) if need be."""
        _check_component(entry, "entry")
        for _ in range(_ATTEMPTS):
            try:
                fd = os.open(entry, _RDONLY_DIR, dir_fd=self._fd)
            except FileNotFoundError:
                try:
                    os.mkdir(entry, 0o777, dir_fd=self._fd)
                except FileExistsError:
                    pass
                continue
            except OSError as error:
                if error.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise OutDirError(f"{self._where(entry)} could not be opened ({error.strerror}); expected a "
                                      "directory the grader made. Remove it and grade again.") from None
                self._remove_non_directory(entry)
                continue
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
            self._remove_non_directory(entry)
        raise OutDirError(f"{self._where(entry)} kept being replaced while the grader made it a directory "
                          f"({_ATTEMPTS} times); stop whatever writes into the out dir and grade again.")

    def _open_entry(self, entry: str) -> int:
        """A descriptor of the existing real directory `<out>/<entry>`; OutDirError for anything else."""
        _check_component(entry, "entry")
        where = self._where(entry)
        try:
            return os.open(entry, _RDONLY_DIR, dir_fd=self._fd)
        except FileNotFoundError:
            raise OutDirError(f"{where} does not exist: the grader has not written this submission's "
                              "results.") from None
        except OSError as error:
            try:
                kind = _kind(os.stat(entry, dir_fd=self._fd, follow_symlinks=False).st_mode)
            except OSError:
                kind = f"unreadable ({error.strerror})"
            raise OutDirError(f"{where} is {kind}, expected a directory the grader made; it counts as not "
                              "graded. Grade again without --resume to replace it.") from None

    def _remove_non_directory(self, entry: str) -> None:
        try:
            st = os.stat(entry, dir_fd=self._fd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(st.st_mode):
            return
        try:
            os.unlink(entry, dir_fd=self._fd)
        except FileNotFoundError:
            return
        self._note(f"{self._where(entry)} was {_kind(st.st_mode)}, not a directory; removed it "
                   f"{'(the link only, not what it points to) ' if stat.S_ISLNK(st.st_mode) else ''}"
                   "and made a directory in its place.")

    def _write_temporary(self, directory: int, filename: str, data: bytes, mode: int) -> str:
        for _ in range(_ATTEMPTS):
            temporary = f".{filename}.{secrets.token_hex(8)}.tmp"
            try:
                fd = os.open(temporary, _CREATE_FILE, mode, dir_fd=directory)
            except FileExistsError:
                continue
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            except BaseException:
                os.close(fd)
                _unlink_quietly(directory, temporary)
                raise
            os.close(fd)
            return temporary
        raise OutDirError(f"no free temporary name beside {filename} in {self.path} after {_ATTEMPTS} tries; "
                          "remove the .*.tmp files there and grade again.")

    def _note_replaced(self, directory: int, entry: str | None, filename: str) -> None:
        try:
            st = os.stat(filename, dir_fd=directory, follow_symlinks=False)
        except OSError:
            return
        # A directory is moved aside, with its own note.
        if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
            self._note(f"{self._where(entry, filename)} was {_kind(st.st_mode)}; replaced it "
                       f"{'(the link only, not what it points to) ' if stat.S_ISLNK(st.st_mode) else ''}"
                       "without opening it.")

    def _move_aside(self, directory: int, entry: str | None, filename: str) -> None:
        for _ in range(_ATTEMPTS):
            aside = f".{filename}.replaced-{secrets.token_hex(4)}"
            try:
                os.stat(aside, dir_fd=directory, follow_symlinks=False)
                continue
            except FileNotFoundError:
                pass
            try:
                os.rename(filename, aside, src_dir_fd=directory, dst_dir_fd=directory)
            except FileNotFoundError:
                return  # gone already: the next rename succeeds
            self._note(f"{self._where(entry, filename)} was a directory; moved it aside to "
                       f"{self._where(entry, aside)} and wrote the file in its place.")
            return

    def _where(self, entry: str | None, filename: str | None = None) -> str:
        return os.path.join(self.path, *(part for part in (entry, filename) if part is not None))


def _check_component(name: object, what: str) -> None:
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name or "\0" in name:
        raise ValueError(f"{what} must be a single file name (no `/`, NUL, `.` or `..`), got {name!r}; "
                         "make it with safe_component.")


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return kind
    return "something other than a file"


def _not_a_regular_file(where: str, mode: int) -> str:
    return (f"{where} is {_kind(mode)}, expected a regular file the grader wrote; it counts as not graded "
            "(nothing is followed or opened). Grade again without --resume to replace it.")


def _too_large(where: str, size: int, limit: int) -> str:
    return (f"{where} has {size} bytes or more, expected at most {limit}; the grader writes nothing that large, "
            "so it counts as not graded. Grade again without --resume to replace it.")


def _unlink_quietly(directory: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=directory)
    except OSError:
        pass
