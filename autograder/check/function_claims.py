"""Which functions a check's part checks: each one it comes to, unless the other part took it first.

A notebook's check in two processes (student.exercise_halves) gives both
every exercise, each in an order of its own. Each takes a function just
before checking it, by creating a file named after it in a folder both
share; the one that cannot create it leaves that function to the other. So
neither waits while the other has exercises it has not started, whatever
each costs on this machine and for this student's code. Each function is
still checked whole, by one process.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class FunctionClaims:
    """This process's way through `order`: it checks a function only if `take` says so."""

    folder: Path
    order: tuple[str, ...]
    part: str  # this process's name among the parts, written in what it takes (`taken_by`)
    _decided: dict[str, bool] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def take(self, function: str) -> bool:
        """Whether this process checks `function`: the first to ask takes it; asked again, the same answer."""
        if function not in self._decided:
            try:
                taken = os.open(self.folder / function, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                self._decided[function] = False
            else:
                os.write(taken, self.part.encode())
                os.close(taken)
                self._decided[function] = True
        return self._decided[function]

    def rank(self, function: str) -> int:
        """Where `function` comes in this process's way (after all of it, for one not on it)."""
        return self.order.index(function) if function in self.order else len(self.order)


def taken_by(folder: Path, part: str) -> set[str]:
    """The functions the part named `part` took in `folder` (for what to say when its process died)."""
    found = set()
    for entry in folder.iterdir() if folder.is_dir() else ():
        try:
            if entry.read_text() == part:
                found.add(entry.name)
        except OSError:
            continue
    return found
