"""Who handed in a submission, read from the top of the layout the instructor gave.

A batch names each result after its student, so the student must come from
where the instructor's export put the file, never from the file's content or
from folders a student made (both are the student's to write). So the layout
is decided once per root (a path named on the command line; for a file named
directly, its folder), from the root's top, and that one layout's rule is
applied to every file under it:

- Gradescope's "Export Submissions": the root holds `submission_metadata.yml`;
  each `submission_<id>/` folder is one entry, whose submitters the metadata
  names (the folder's name stands in, with a note, when it names none);
- GitHub Classroom's `gh classroom clone student-repos`: the root holds git
  repositories `<assignment-slug>-<user>/`; each is the user's entry (the slug
  all of them share is removed);
- nbgrader: the root is `submitted/` (or `autograded/`), holds `submitted/`
  (a course folder), or holds `<student>/<known assignment>/` folders; each
  `<student>/` is that student's entry, its first folder the assignment;
- anything else: a flat folder, where the file name is the student.

Every file inside an entry belongs to that entry's student, however deep. A
file whose path inside the entry is laid out like another submission (a
`<someone>/<assignment>/` folder, a `submitted/` or `submission_<id>/` folder,
a nested git repository or Gradescope export) is still graded as the entry's
student, with a note that puts it under "needs a look"; so is a file of a
class layout that sits in no entry (graded under its file name). The
instructor may also name one entry directly (`submitted/kim`,
`submitted/kim/02_where`, one `submission_<id>/`, one Classroom repository
beside the others): then the root itself is the entry, named from its own
path.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Iterable, Mapping

from autograder.catalog import messages

NBGRADER, GRADESCOPE, CLASSROOM, FILE = "nbgrader", "gradescope", "classroom", "file"
LAYOUT_NAMES = {NBGRADER: "nbgrader", GRADESCOPE: "Gradescope", CLASSROOM: "GitHub Classroom", FILE: "file"}
GRADESCOPE_METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 16 * 1024 * 1024
NBGRADER_FOLDERS = ("submitted", "autograded")  # nbgrader's folders of students' entries


@dataclasses.dataclass(frozen=True)
class Identity:
    student: str  # as the layout names them: an nbgrader student id, an email, a GitHub user, a file name
    layout: str  # NBGRADER, GRADESCOPE, CLASSROOM or FILE
    assignment: str | None = None  # the assignment the layout files it under (nbgrader's folder), if any
    group: str = ""  # the entry holding this student's work, to tell several files of one student apart
    notes: tuple[str, ...] = ()  # why who handed it in needs a look (catalog sentences); empty when certain


@dataclasses.dataclass(frozen=True)
class RootLayout:
    """The layout of one root, decided once from its top (see `layout_of`)."""

    kind: str  # NBGRADER, GRADESCOPE, CLASSROOM or FILE
    root: Path
    entry_prefix: tuple[str, ...] = ()  # folders between the root and the entries: ("submitted",) in a course folder
    single_entry: bool = False  # the root is one student's entry itself
    student: str = ""  # single_entry: whose it is
    assignment: str | None = None  # nbgrader, a root `<student>/<assignment>`: that assignment
    repositories: frozenset[str] = frozenset()  # classroom: the entries (git repositories) at the top
    slug: str = ""  # classroom: the `<assignment-slug>-` every repository's name starts with
    submitters: Mapping[str, str] = dataclasses.field(default_factory=dict)  # gradescope: folder -> its submitters
    metadata_error: str | None = None  # gradescope: why submission_metadata.yml could not be read
    error: str | None = None  # FILE: why the layout could not be decided, if it failed


def identify_all(found: list[tuple[Path, Path]], assignments: Iterable[str],
                 layouts: dict[Path, RootLayout] | None = None) -> list[Identity]:
    """The identity of each (file, root it was found under), in order; the layout is decided once per root.

    `layouts`: those already decided (see `empty_entries`); the ones decided here are added to it.
    Never raises for what a root or file holds: a file whose identity cannot
    be read is graded under its file name, with a note.
    """
    known = frozenset(assignments)
    layouts = {} if layouts is None else layouts
    identities = []
    for file, root in found:
        if root not in layouts:
            layouts[root] = layout_of(root, known)
        identities.append(_identify_safely(layouts[root], file, known))
    return identities


def empty_entries(roots: Iterable[Path], holding: Iterable[Path], assignments: Iterable[str],
                  layouts: dict[Path, RootLayout] | None = None) -> list[tuple[Path, Path]]:
    """(folder, root) for each student entry a root's layout names that holds none of the files in `holding`.

    So a student whose folder is empty (or holds only what the layout itself
    leaves there, like nbgrader's timestamp.txt) still gets a row. In an
    nbgrader entry whose only content is one `<assignment>/` folder, that
    folder is returned, so the row is filed under its assignment. `layouts`: as `identify_all`'s, shared
    with it so that each root's layout (a Gradescope export's metadata, read) is decided once.
    """
    known = frozenset(assignments)
    layouts = {} if layouts is None else layouts
    held = [os.path.abspath(path) for path in holding]
    empty = []
    for root in roots:
        try:
            if root not in layouts:
                layouts[root] = layout_of(root, known)
            for entry in entry_folders(layouts[root]):
                inside = os.path.abspath(entry) + os.sep
                if not any(path.startswith(inside) for path in held):
                    empty.append((_assignment_folder(entry, known), root))
        except Exception:  # an unreadable root: its files, if any, are named one by one as before
            continue
    return empty


def entry_folders(layout: RootLayout) -> list[Path]:
    """Every student entry that the layout names at its top, empty or not (none for a flat folder or one entry)."""
    if layout.kind == FILE or layout.single_entry:  # one entry named directly and empty: refused as a path
        return []
    base = layout.root.joinpath(*layout.entry_prefix)
    names = sorted(name for name in _subfolders(base) if not name.startswith(".") and _is_entry(layout, name))
    if layout.kind == CLASSROOM:
        names = sorted(layout.repositories)
    return [base / name for name in names]


def _assignment_folder(entry: Path, known: frozenset[str]) -> Path:
    """nbgrader's `<student>/<assignment>/` when it is the entry's only folder; else the entry itself."""
    folders = _subfolders(entry)
    return entry / next(iter(folders)) if len(folders) == 1 and folders <= known else entry


# A file that does not exist, standing in an empty entry (`<folder>/<this>`): `identify` names a file's entry.
EMPTY_FOLDER_STAND_IN = "(nothing handed in)"


def _identify_safely(layout: RootLayout, file: Path, known: frozenset[str]) -> Identity:
    """`identify`, or the file name with a note: naming one file must not stop the batch."""
    try:
        return identify(layout, file, known)
    except Exception as error:  # whatever it is, it concerns this file alone
        return _by_file_name(file, _describe(error))


def _by_file_name(file: Path, error: str) -> Identity:
    return Identity(file.stem, FILE, notes=(messages.text("batch.identity_failed", error=error, student=file.stem),))


def _describe(error: BaseException) -> str:
    first_line = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {first_line}"[:300]


# --- Deciding the layout of a root ----------------------------------------------------------------

def layout_of(root: Path, known: frozenset[str]) -> RootLayout:
    """The layout of `root`, from its top: Gradescope, then GitHub Classroom, then nbgrader, else files."""
    try:
        return (_gradescope_layout(root) or _classroom_layout(root) or _nbgrader_layout(root, known)
                or RootLayout(FILE, root))
    except Exception as error:  # its files are named by their file names, each with a note saying why
        return RootLayout(FILE, root, error=_describe(error))


def _gradescope_layout(root: Path) -> RootLayout | None:
    if _is_file(root / GRADESCOPE_METADATA):
        submitters, error = read_gradescope_metadata(root / GRADESCOPE_METADATA)
        return RootLayout(GRADESCOPE, root, submitters=submitters, metadata_error=error)
    if root.name.startswith("submission_") and _is_file(root.parent / GRADESCOPE_METADATA):
        submitters, error = read_gradescope_metadata(root.parent / GRADESCOPE_METADATA)
        return RootLayout(GRADESCOPE, root, single_entry=True, student=submitters.get(root.name, root.name),
                          submitters=submitters, metadata_error=error)
    return None


def _classroom_layout(root: Path) -> RootLayout | None:
    repositories = _repositories(root)
    if repositories:
        return RootLayout(CLASSROOM, root, repositories=frozenset(repositories), slug=_shared_slug(repositories))
    if _exists(root / ".git") and root.parent != root:
        # One repository named directly: its user shows only beside the others, which share its slug.
        siblings = _repositories(root.parent)
        slug = _shared_slug(siblings)
        if len(siblings) > 1 and slug and root.name.startswith(slug):
            return RootLayout(CLASSROOM, root, single_entry=True, student=root.name[len(slug):] or root.name)
    return None


def _nbgrader_layout(root: Path, known: frozenset[str]) -> RootLayout | None:
    if root.name in NBGRADER_FOLDERS:
        return RootLayout(NBGRADER, root)
    if _is_dir(root / "submitted"):  # a course folder: its students are under submitted/
        return RootLayout(NBGRADER, root, entry_prefix=("submitted",))
    folders = _subfolders(root)
    if any(_subfolders(root / folder) & known for folder in folders):  # `<student>/<assignment>/`
        return RootLayout(NBGRADER, root)
    student_folder = root.parent.name
    if root.name in known and student_folder not in ("", ".", "..", *NBGRADER_FOLDERS) \
            and _holds_nbgrader_submission(root):
        return RootLayout(NBGRADER, root, single_entry=True, student=student_folder, assignment=root.name)
    if root.name not in ("", ".", "..") and (root.parent.name in NBGRADER_FOLDERS
                                             or any(_holds_nbgrader_submission(root / a) for a in folders & known)):
        return RootLayout(NBGRADER, root, single_entry=True, student=root.name)
    return None


def _holds_nbgrader_submission(folder: Path) -> bool:
    """An assignment folder as nbgrader leaves it: a timestamp.txt, or the notebook named like the assignment.

    Otherwise a folder named after an assignment only sorts files by
    assignment (examples/02_where/perfect_02_where.ipynb), and its file
    names are the students.
    """
    if _is_file(folder / "timestamp.txt"):
        return True
    return any(Path(name).stem == folder.name and Path(name).suffix in (".ipynb", ".py") for name in _names(folder))


def _repositories(folder: Path) -> list[str]:
    """The names of the git repositories directly in `folder` (Classroom's clones)."""
    return sorted(name for name in _subfolders(folder) if _exists(folder / name / ".git"))


def _shared_slug(repositories: list[str]) -> str:
    """The `<assignment-slug>-` that all of several repositories' names start with; "" for one."""
    if len(repositories) < 2:
        return ""
    prefix = os.path.commonprefix(repositories)
    return prefix[: prefix.rfind("-") + 1] if "-" in prefix else ""


# --- Applying a root's layout to one file ---------------------------------------------------------

def identify(layout: RootLayout, file: Path, known: frozenset[str]) -> Identity:
    """Who handed in `file`, found under `layout.root`: the student of the entry that holds it."""
    if layout.kind == FILE:
        return Identity(file.stem, FILE) if layout.error is None else _by_file_name(file, layout.error)
    parts = _relative_parts(file, layout.root)
    if layout.single_entry:
        entry, inside, student = layout.root, parts, layout.student
    else:
        prefix = len(layout.entry_prefix)
        if len(parts) < prefix + 2 or parts[:prefix] != layout.entry_prefix \
                or not _is_entry(layout, parts[prefix]):
            note = messages.text("batch.identity_outside", root=layout.root.name or str(layout.root),
                                 layout=LAYOUT_NAMES[layout.kind], student=file.stem)
            return Identity(file.stem, FILE, notes=(note,))
        entry, inside = layout.root.joinpath(*parts[: prefix + 1]), parts[prefix + 1:]
        student = _entry_student(layout, entry.name)
    own: tuple[str, ...] = ()  # the entry's own `<assignment>/` folder (nbgrader)
    folders, assignment = inside[:-1], layout.assignment
    if layout.kind == NBGRADER and assignment is None and folders and folders[0] in known:
        own, folders, assignment = folders[:1], folders[1:], folders[0]
    notes = _naming_notes(layout, entry.name)
    if _looks_like_another_entry(entry, own, folders, known):
        notes.append(messages.text("batch.identity_nested", student=student, entry=entry.name,
                                   inner="/".join(inside)))
    if layout.kind == NBGRADER:
        return Identity(student, NBGRADER, assignment, f"{student}/{assignment or ''}", tuple(notes))
    return Identity(student, layout.kind, None, entry.name, tuple(notes))


def _is_entry(layout: RootLayout, name: str) -> bool:
    if layout.kind == GRADESCOPE:
        return name.startswith("submission_")
    if layout.kind == CLASSROOM:
        return name in layout.repositories
    return name not in ("", ".", "..")


def _entry_student(layout: RootLayout, name: str) -> str:
    if layout.kind == GRADESCOPE:
        return layout.submitters.get(name, name)
    if layout.kind == CLASSROOM:
        return name[len(layout.slug):] if name.startswith(layout.slug) and name != layout.slug else name
    return name


def _naming_notes(layout: RootLayout, folder: str) -> list[str]:
    """Gradescope: a note when the metadata names no submitter for the folder, so its name stands in."""
    if layout.kind != GRADESCOPE or folder in layout.submitters:
        return []
    if layout.metadata_error is not None:
        return [messages.text("batch.identity_metadata_unreadable", error=layout.metadata_error, folder=folder)]
    return [messages.text("batch.identity_no_submitter", folder=folder)]


def _looks_like_another_entry(entry: Path, own: tuple[str, ...], folders: tuple[str, ...],
                              known: frozenset[str]) -> bool:
    """Whether the folders inside an entry (after its own assignment folder, `own`) imitate another layout.

    `<someone>/<assignment>/` (nbgrader's), `submitted/` or `submission_<id>/`,
    or a folder that is a git repository or a Gradescope export of its own.
    """
    for depth, name in enumerate(folders):
        if name in NBGRADER_FOLDERS or name.startswith("submission_") or (depth >= 1 and name in known):
            return True
        folder = entry.joinpath(*own, *folders[: depth + 1])
        if _exists(folder / ".git") or _exists(folder / GRADESCOPE_METADATA):
            return True
    return False


def _relative_parts(file: Path, root: Path) -> tuple[str, ...]:
    try:
        return file.relative_to(root).parts
    except ValueError:
        return (file.name,)


# --- Gradescope's metadata ------------------------------------------------------------------------

def read_gradescope_metadata(path: Path) -> tuple[dict[str, str], str | None]:
    """submission folder -> its submitters (emails, else names, else sids), and why none could be read.

    The export's YAML maps `submission_<id>` to a dict whose `:submitters:` is a
    list of dicts with `:name:`, `:sid:` and `:email:` (Ruby symbols as keys,
    which YAML reads as ":submitters" and so on). Read with yaml.safe_load
    (no objects built from tags), at most MAX_METADATA_BYTES; a file that
    cannot be read gives no names and the reason (the folder names stand in).
    """
    import yaml

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_METADATA_BYTES + 1)
        if len(raw) > MAX_METADATA_BYTES:
            return {}, f"larger than {MAX_METADATA_BYTES >> 20} MiB"
        data = yaml.safe_load(raw)
    except RecursionError:  # PyYAML composes nested collections by recursion
        return {}, "nested too deeply"
    except Exception as error:  # OSError, YAMLError, and ValueError from a date like 2026-13-01
        return {}, _describe(error)
    if not isinstance(data, dict):
        return {}, "not a mapping of submission folders"
    students = {}
    for folder, entry in data.items():
        submitters = _field(entry, "submitters") if isinstance(entry, dict) else None
        names = [_submitter(s) for s in submitters if isinstance(s, dict)] if isinstance(submitters, list) else []
        names = [n for n in names if n]
        if isinstance(folder, str) and names:
            students[folder] = "+".join(sorted(names))
    return students, None


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


# --- The filesystem, never raising ----------------------------------------------------------------

def _subfolders(folder: Path) -> set[str]:
    """The names of the directories directly in `folder` (not through symbolic links)."""
    try:
        with os.scandir(folder) as entries:
            return {entry.name for entry in entries if entry.is_dir(follow_symlinks=False)}
    except OSError:
        return set()


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _exists(path: Path) -> bool:
    try:
        return os.path.lexists(path)
    except OSError:
        return False
