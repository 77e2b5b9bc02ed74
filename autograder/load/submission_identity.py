"""Who handed in a submission, read from where it sits.

A batch names each result after its student, so the student must come from
the layout the instructor graded, never from the file's content (which the
student wrote). Layouts recognised, most specific first:

- nbgrader: `submitted/<student>/<assignment>/<notebook>.ipynb`, i.e. a file
  whose folder is named after a known assignment, inside a student's folder,
  named like the released notebook or beside nbgrader's `timestamp.txt`;
- Gradescope's "Export Submissions": `submission_<id>/<files>` beside a
  `submission_metadata.yml` that names each submission's submitters;
- GitHub Classroom's `gh classroom clone student-repos`: one git repository
  per student, `<assignment-slug>-<username>/`, beside the other students';
- anything else: a flat folder, where the file name is the student.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable

GRADESCOPE_METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 16 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class Identity:
    student: str  # as the layout names them: an nbgrader student id, an email, a GitHub user, a file name
    layout: str  # "nbgrader", "gradescope", "classroom" or "file"
    assignment: str | None = None  # the assignment the layout files it under (nbgrader's folder), if any
    group: str = ""  # the folder holding this student's work, to tell several files of one student apart


def identify_all(found: list[tuple[Path, Path]], assignments: Iterable[str]) -> list[Identity]:
    """The identity of each (file, root it was found under), in order."""
    known = set(assignments)
    metadata: dict[Path, dict[str, str]] = {}
    identities = []
    for file, root in found:
        identity = (_nbgrader(file, root, known) or _gradescope(file, root, metadata)
                    or _classroom(file, root) or Identity(file.stem, "file"))
        identities.append(identity)
    return identities


def _relative_parts(file: Path, root: Path) -> tuple[str, ...]:
    try:
        return file.relative_to(root).parts
    except ValueError:
        return (file.name,)


def _nbgrader(file: Path, root: Path, known: set[str]) -> Identity | None:
    """`<student>/<assignment>/<file>`: the folder is a known assignment, the one above it the student.

    Also when the instructor named one student's assignment folder or file
    directly (`submitted/kim/02_where`): the names come from the path itself.
    """
    folder = file.parent
    if folder.name not in known or not folder.parent.name or folder.parent == folder:
        return None
    # The released notebook keeps the assignment's name; nbgrader's own submit and
    # collect leave a timestamp.txt. Otherwise (examples/02_where/perfect_02_where.ipynb)
    # the folder only sorts files by assignment.
    if file.stem != folder.name and not (folder / "timestamp.txt").is_file():
        return None
    student = folder.parent.name
    if student in ("", ".", "..", "submitted", "autograded"):
        return None
    return Identity(student, "nbgrader", folder.name, group=f"{student}/{folder.name}")


def _gradescope(file: Path, root: Path, cache: dict[Path, dict[str, str]]) -> Identity | None:
    parts = _relative_parts(file, root)
    if len(parts) < 2 or not parts[0].startswith("submission_"):
        return None
    if root not in cache:
        cache[root] = _read_gradescope_metadata(root / GRADESCOPE_METADATA)
    students = cache[root]
    if not students and not (root / GRADESCOPE_METADATA).is_file():
        return None
    return Identity(students.get(parts[0], parts[0]), "gradescope", group=parts[0])


def _read_gradescope_metadata(path: Path) -> dict[str, str]:
    """submission folder -> its submitters (email, else name, else sid), from Gradescope's export.

    The export's YAML maps `submission_<id>` to a dict whose `:submitters:` is a
    list of dicts with `:name:`, `:sid:` and `:email:` (Ruby symbols as keys,
    which YAML reads as ":submitters" and so on).
    A file that cannot be read gives no names: the folder names stand in.
    """
    import yaml

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_METADATA_BYTES + 1)
        if len(raw) > MAX_METADATA_BYTES:
            return {}
        data = yaml.safe_load(raw)
    except (OSError, yaml.YAMLError):
        return {}
    if not isinstance(data, dict):
        return {}
    students = {}
    for folder, entry in data.items():
        submitters = _field(entry, "submitters") if isinstance(entry, dict) else None
        names = [_submitter(s) for s in submitters if isinstance(s, dict)] if isinstance(submitters, list) else []
        names = [n for n in names if n]
        if isinstance(folder, str) and names:
            students[folder] = "+".join(sorted(names))
    return students


def _field(entry: dict, name: str):
    for key in (f":{name}", name):
        if key in entry:
            return entry[key]
    return None


def _submitter(entry: dict) -> str:
    for key in ("email", "sid", "name"):
        value = _field(entry, key)
        if isinstance(value, (str, int)) and str(value).strip():
            return str(value).strip()
    return ""


def _classroom(file: Path, root: Path) -> Identity | None:
    """`<slug>-<user>/...` where that folder is a git repository: the user, with the slug all repositories
    share removed."""
    parts = _relative_parts(file, root)
    if len(parts) < 2 or not (root / parts[0] / ".git").exists():
        return None
    repository = parts[0]
    siblings = sorted(entry.name for entry in os.scandir(root)
                      if entry.is_dir(follow_symlinks=False) and (Path(entry.path) / ".git").exists())
    prefix = os.path.commonprefix(siblings) if len(siblings) > 1 else ""
    prefix = prefix[: prefix.rfind("-") + 1] if "-" in prefix else ""
    return Identity(repository[len(prefix):] or repository, "classroom", group=repository)
