"""Listing a folder of submissions at a fixed cost per student, without following links.

A student decides what their own folder holds: a million empty files, or
folders nested a thousand deep, would otherwise cost the trusted parent that
lists them its time and memory before anyone is graded. So the walk charges
every name it sees to a budget, one per student entry (the folders the root's
layout names, decided from the root's top before the walk:
submission_identity.entry_folders), and one per other folder directly under
what the instructor laid out (a flat folder's subfolders, a course folder's
`source/`). A budget that runs out stops the walk of that folder only; the
folder is returned as cut, so its student's row says so and needs a look.

What the instructor laid out (the root and the folders that lead to the
entries, such as a course folder's `submitted/`) is listed in full: its size
is the class's, not one student's.

Links are listed as names and never entered; `.ipynb_checkpoints/` (Jupyter's
autosaves) and `.git/` (a Classroom clone's store) are never a hand-in and are
not entered either.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable

# Names one student's folder may hold before the rest is left unread: far above any real hand-in (a
# notebook, its data, a Classroom repository's working tree), far below what costs the parent seconds.
NAMES_PER_STUDENT = 5000
FOLDERS_DEEP_PER_STUDENT = 32
NOT_ENTERED = frozenset({".ipynb_checkpoints", ".git"})


@dataclasses.dataclass
class _Budget:
    folder: Path  # the student's entry (or other folder) the names are charged to
    names_left: int = dataclasses.field(default_factory=lambda: NAMES_PER_STUDENT)
    cut: bool = False


@dataclasses.dataclass(frozen=True)
class Listing:
    files: list[Path]  # every name that is not a folder entered (links included), sorted
    cut: list[Path]  # the folders whose budget ran out: only part of each was listed


def walk(root: Path, entries: Iterable[Path], single_entry: bool = False) -> Listing:
    """Every file under `root`, each student entry in `entries` listed at most its budget.

    `single_entry`: the root itself is one student's entry, so all of it shares one budget.
    """
    top = os.path.abspath(root)
    laid_out = {top, *(ancestor for entry in entries for ancestor in _ancestors(os.path.abspath(entry), top))}
    files: list[Path] = []
    budgets: list[_Budget] = []
    start = _Budget(root) if single_entry else None
    if start is not None:
        budgets.append(start)
    stack: list[tuple[Path, _Budget | None, int]] = [(root, start, 0)]
    while stack:
        folder, budget, depth = stack.pop()
        for entry, is_folder in _names(folder, budget):
            path = Path(entry.path)
            if not is_folder:
                files.append(path)
            elif entry.name not in NOT_ENTERED:
                inner = budget
                if inner is None and os.path.abspath(path) not in laid_out:
                    inner = _Budget(path)  # a student's entry, or another folder beside them: its own budget
                    budgets.append(inner)
                if inner is not None and depth + 1 > FOLDERS_DEEP_PER_STUDENT:
                    inner.cut = True
                    continue
                stack.append((path, inner, depth + 1 if inner is not None else 0))
    return Listing(sorted(files), sorted(b.folder for b in budgets if b.cut))


def _names(folder: Path, budget: _Budget | None):
    """(entry, is a folder to enter) for each name in `folder`, each charged to `budget` until it runs out."""
    try:
        listing = os.scandir(folder)
    except OSError:  # unreadable or gone: nothing of it to grade
        return
    with listing:
        for entry in listing:
            if budget is not None:
                if budget.names_left <= 0:
                    budget.cut = True
                    return
                budget.names_left -= 1
            try:
                is_folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_folder = False
            yield entry, is_folder


def _ancestors(path: str, root: str) -> list[str]:
    """The folders between `root` and `path`, both excluded."""
    found = []
    parent = os.path.dirname(path)
    while parent.startswith(root + os.sep) and parent != root:
        found.append(parent)
        parent = os.path.dirname(parent)
    return found
