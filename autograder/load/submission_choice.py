"""Which of a student's files is graded, and what a student who handed in no notebook gets.

One file is graded per student and assignment. When a student's entry (an
nbgrader `<student>/<assignment>/` folder, a Gradescope `submission_<id>/`, a
Classroom repository, Gradescope's /autograder/submission/) holds several
notebooks or .py files of one assignment, the graded one is, in this order:

1. the notebook whose metadata (`autograder.assignment`) names the assignment
   (read within a small, fixed budget per student: MAX_METADATA_READS);
2. the file named `<assignment>.ipynb`;
3. the newest (modification time: the student's upload sets it, so it only
   breaks ties), then the first by path, so the choice never depends on order.

The others are named in a note that the student reads in their result and
the instructor under "needs a look". A file's assignment is `--assignment`,
else the layout's (nbgrader's `<assignment>/` folder), else its metadata,
else a known assignment in its file name; a file none of these name goes
with the student's only assignment, if they have exactly one. A student
whose files name two assignments gets one graded file for each.

An entry with no notebook or .py file but other files (`frank.txt`,
`solution.pdf`) still gets a row: a zero that says what was found.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable

from autograder.catalog import messages
from autograder.load import bounded_json
from autograder.load.assignment_names import assignment_in_file_name
from autograder.load.submission_identity import EMPTY_FOLDER_STAND_IN, FILE, Identity

# What choosing among one student's files may cost the batch parent, before anyone is graded: the metadata of
# at most MAX_METADATA_READS notebooks, each at most MAX_METADATA_READ_BYTES, MAX_METADATA_BUDGET_BYTES in all.
# A notebook beyond these is ranked by its name and time alone (its grading reads it under its own limits).
MAX_METADATA_READ_BYTES = 2 << 20  # a notebook of this course with its outputs; a plot or two more
MAX_METADATA_READS = 20
MAX_METADATA_BUDGET_BYTES = 16 << 20
MAX_FILES_LISTED = 10
EntryKey = tuple[str, str, str]  # (layout, student, the entry: Identity.group)


@dataclasses.dataclass(frozen=True)
class Found:
    """A file found under a root the instructor named, and who handed it in."""

    path: Path
    root: Path
    identity: Identity


@dataclasses.dataclass(frozen=True)
class FileChoice:
    """What was not graded of a student's entry, said to the student (`note`) and listed for the instructor."""

    note: str  # a sentence of the catalog, for the student's result
    ignored: tuple[str, ...] = ()  # the other notebooks and .py files, not graded (paths from the root)
    found_instead: tuple[str, ...] = ()  # the entry holds no notebook, only these files: it scores 0


@dataclasses.dataclass(frozen=True)
class Chosen:
    """A file to grade (or, with `choice.found_instead`, the file that stands for an entry holding no notebook)."""

    path: Path
    root: Path
    identity: Identity
    choice: FileChoice | None = None  # None: nothing else in the entry was left out


def choose(gradable: list[Found], others: list[Found], known: Iterable[str], override: str | None) -> list[Chosen]:
    """The files to grade, in the order found: one per student entry and assignment, then the entries with none.

    `gradable` are notebooks and .py files; `others` the other files found
    (only those in a layout's student entry count, to say what such an entry held).
    """
    known_names = frozenset(known)
    entries: dict[EntryKey, list[Found]] = {}
    chosen: list[Chosen] = []
    for found in gradable:
        if found.identity.layout == FILE:  # a flat folder: every file is a student of its own
            chosen.append(Chosen(found.path, found.root, found.identity))
        else:
            entries.setdefault(_entry(found.identity), []).append(found)
    picked: dict[Path, Chosen] = {}
    for files in entries.values():
        for one in _one_per_assignment(files, known_names, override):
            picked[one.path] = one
    order = {found.path: i for i, found in enumerate(gradable)}
    chosen = sorted([*chosen, *picked.values()], key=lambda c: order[c.path])
    return chosen + _entries_without_notebook(others, entries)


def _entry(identity: Identity) -> EntryKey:
    """The student's entry a file is in: one student's folder (nbgrader: and assignment) of one layout."""
    return (identity.layout, identity.student, identity.group)


def _one_per_assignment(files: list[Found], known: frozenset[str], override: str | None) -> list[Chosen]:
    if len(files) == 1:
        return [Chosen(files[0].path, files[0].root, files[0].identity)]
    declared = _declared_within_budget([f.path for f in files])
    assignments = {f.path: assignment_of(f, declared[f.path], known, override) for f in files}
    named = {a for a in assignments.values() if a is not None}
    only = next(iter(named)) if len(named) == 1 else None
    groups: dict[str | None, list[Found]] = {}
    for found in files:
        groups.setdefault(assignments[found.path] or only, []).append(found)
    chosen = []
    for assignment, group in groups.items():
        ranked = rank(group, assignment, declared)
        best, ignored = ranked[0], ranked[1:]
        choice = None
        if ignored:
            note = ignored_note(best.path, [f.path for f in ignored], best.root, assignment)
            choice = FileChoice(note, ignored=tuple(_shown(f.path, f.root) for f in ignored))
        chosen.append(Chosen(best.path, best.root, best.identity, choice))
    return chosen


def assignment_of(found: Found, declared: str | None, known: frozenset[str], override: str | None) -> str | None:
    """The assignment a file is handed in for, as far as can be told without grading it; None if nothing says."""
    for candidate in (override, found.identity.assignment, declared, assignment_in_file_name(found.path, known)):
        if candidate in known:
            return candidate
    return None


def rank(files: list[Found], assignment: str | None, declared: dict[Path, str | None]) -> list[Found]:
    """`files` best first by the rule in this module's docstring."""
    def key(found: Found) -> tuple[bool, bool, float, str]:
        says = assignment is not None and declared.get(found.path) == assignment
        expected = assignment is not None and found.path.name == f"{assignment}.ipynb"
        return (not says, not expected, -_mtime(found.path), str(found.path))

    return sorted(files, key=key)


def choose_in_folder(files: list[Path], assignment: str | None) -> tuple[Path, list[Path]]:
    """The file to grade among `files` (not empty) by the same rule, and the others (Gradescope's one submission)."""
    found = [Found(path, path.parent, Identity("", FILE)) for path in files]
    ranked = rank(found, assignment, _declared_within_budget(files))
    return ranked[0].path, [f.path for f in ranked[1:]]


def ignored_note(graded: Path, ignored: list[Path], root: Path, assignment: str | None) -> str:
    """The note naming the files not graded, for the student's result and the instructor's "needs a look"."""
    return messages.text("batch.files_ignored", graded=_shown(graded, root),
                         ignored=_listed([_shown(p, root) for p in ignored]),
                         expected=f"{assignment or '<assignment>'}.ipynb")


def _entries_without_notebook(others: list[Found], with_notebook: dict[EntryKey, list[Found]]) -> list[Chosen]:
    """One zero for each student entry that holds files but no notebook, saying what it holds."""
    empty: dict[EntryKey, list[Found]] = {}
    for found in others:
        if found.identity.layout != FILE and _entry(found.identity) not in with_notebook:
            empty.setdefault(_entry(found.identity), []).append(found)
    chosen = []
    for files in empty.values():
        if files[0].path.name == EMPTY_FOLDER_STAND_IN:  # submission_identity.empty_entries: nothing at all
            folder = files[0].path.parent
            shown = _shown(folder, files[0].root) + "/"
            reason = messages.text("batch.no_notebook_empty", folder=shown)
            chosen.append(Chosen(folder, files[0].root, files[0].identity, FileChoice(reason, found_instead=(shown,))))
            continue
        names = [_shown(f.path, f.root) for f in files]
        reason = messages.text("batch.no_notebook", found=_listed(names))
        chosen.append(Chosen(files[0].path, files[0].root, files[0].identity,
                             FileChoice(reason, found_instead=tuple(names))))
    return chosen


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:MAX_FILES_LISTED])
    return shown if len(names) <= MAX_FILES_LISTED else f"{shown}, … (+{len(names) - MAX_FILES_LISTED})"


def _mtime(path: Path) -> float:
    try:
        return os.stat(path, follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _declared_within_budget(paths: list[Path]) -> dict[Path, str | None]:
    """Each notebook's declared assignment, read within one student's budget (see MAX_METADATA_READS), in path
    order so the choice never depends on the order found; None for a file beyond it."""
    declared: dict[Path, str | None] = dict.fromkeys(paths)
    reads = spent = 0
    for path in sorted(paths, key=str):
        size = _size(path)
        if path.suffix != ".ipynb" or size is None or size > MAX_METADATA_READ_BYTES:
            continue
        if reads == MAX_METADATA_READS or spent + size > MAX_METADATA_BUDGET_BYTES:
            break
        reads, spent = reads + 1, spent + size
        declared[path] = _declared_assignment(path)
    return declared


def _size(path: Path) -> int | None:
    """The file's size as it stands (a link's own, never its target's), or None if it cannot be looked at."""
    try:
        return os.stat(path, follow_symlinks=False).st_size
    except OSError:
        return None


def _declared_assignment(path: Path) -> str | None:
    """The assignment a notebook's metadata names, from its JSON alone; None for anything unreadable.

    Bounded (bounded_json): the file is the student's.
    """
    if path.suffix != ".ipynb":
        return None
    try:
        notebook = bounded_json.read(path, max_bytes=MAX_METADATA_READ_BYTES)
    except (OSError, ValueError):  # bounded_json's limits are ValueErrors too
        return None
    metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
    section = metadata.get("autograder") if isinstance(metadata, dict) else None
    value = section.get("assignment") if isinstance(section, dict) else None
    return value if isinstance(value, str) else None
