"""`autograder i18n sync`: add the English catalog's new keys to every translation catalog, in place.

A new key's entry goes right after the entry of the nearest key before it in the English order,
with an empty msgstr (untranslated: it shows in English, and tests/test_translations.py names it
until it is translated). No existing line is moved or rewritten, so the diff is exactly the new
entries; on a catalog with no new key the file is not touched. Entries whose English changed, or
whose key is gone, are reported for the translator, never edited.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

_CONTEXT = re.compile(r'^msgctxt "(.*)"$')
_MSGID = re.compile(r'^msgid "(.*)"$')
_CONTINUED = re.compile(r'^"(.*)"$')


@dataclasses.dataclass(frozen=True)
class SyncResult:
    """One catalog after sync: its new text, the keys added, and what a translator must look at."""

    path: Path
    text: str
    added: tuple[str, ...]
    english_changed: tuple[str, ...]
    unknown: tuple[str, ...]

    def summary(self) -> str:
        """One line per kind of change, for the terminal."""
        lines = [f"{self.path}: added {len(self.added)} untranslated entr{'y' if len(self.added) == 1 else 'ies'}"
                 + (f" ({', '.join(self.added)})" if self.added else "")]
        if self.english_changed:
            lines.append(f"  English changed since translated (re-translate, then update msgid): "
                         f"{', '.join(self.english_changed)}")
        if self.unknown:
            lines.append(f"  keys no longer in the English catalog (delete or mark obsolete): "
                         f"{', '.join(self.unknown)}")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class _Entry:
    key: str
    msgid: str
    end: int  # index of the entry's last line (its msgstr)


def sync_text(path: Path, text: str, english: list[tuple[str, str]]) -> SyncResult:
    """`text` (a PO catalog) with an untranslated entry for every key of `english` it lacks, in English order."""
    lines = text.splitlines(keepends=True)
    entries = _entries(lines)
    present = {entry.key: entry for entry in entries}
    insertions: dict[int, list[str]] = {}
    anchor = _header_end(lines)
    added = []
    for key, english_text in english:
        if key in present:
            anchor = present[key].end
            continue
        insertions.setdefault(anchor, []).append(_entry_text(key, english_text))
        added.append(key)
    out = []
    for index, line in enumerate(lines):
        out.append(line)
        if index in insertions:
            out.extend("\n" + block for block in insertions[index])
    if -1 in insertions:  # a catalog with no header and no entry
        out.extend(block + "\n" for block in insertions[-1])
    known = dict(english)
    changed = tuple(e.key for e in entries if e.key in known and e.msgid != known[e.key])
    unknown = tuple(e.key for e in entries if e.key not in known)
    return SyncResult(path, "".join(out), tuple(added), changed, unknown)


def sync_file(path: Path, english: list[tuple[str, str]]) -> SyncResult:
    """Sync the catalog at `path` and write it back only if an entry was added (a missing file is begun with
    `header`, and written only then)."""
    original = path.read_text(encoding="utf-8") if path.is_file() else header(path)
    result = sync_text(path, original, english)
    if result.added:
        path.write_text(result.text, encoding="utf-8")
    return result


def header(path: Path) -> str:
    """The first lines of a new PO catalog at `path` (<name>.<language>.po or <language>.po): its comment, and
    the header entry saying its language and encoding."""
    language = path.name.removesuffix(".po").rsplit(".", 1)[-1]
    lines = [f"# {language} translations of the sentences of {path.name.removesuffix('.po').rsplit('.', 1)[0]}.py: "
             "msgctxt is the catalog's key, msgid its English",
             "# template ({field} placeholders stay exactly as there). autograder/catalog/locale/README.md and "
             "GLOSSARY.md say how.",
             'msgid ""', 'msgstr ""', '"Project-Id-Version: autograder\\n"', f'"Language: {language}\\n"',
             '"MIME-Version: 1.0\\n"', '"Content-Type: text/plain; charset=UTF-8\\n"',
             '"Content-Transfer-Encoding: 8bit\\n"']
    return "\n".join(lines) + "\n"


def _entries(lines: list[str]) -> list[_Entry]:
    """The live (not obsolete) entries with a msgctxt, each with its msgid and the line where it ends."""
    found = []
    for start, line in enumerate(lines):
        match = _CONTEXT.match(line.rstrip("\n"))
        if match:
            msgid_line = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("msgid ")), None)
            if msgid_line is None:
                raise ValueError(f"line {start + 1}: msgctxt {match.group(1)!r} has no msgid after it; "
                                 "fix the catalog (msgfmt --check names the problem), then sync again")
            msgid, after = _string_at(lines, msgid_line, _MSGID)
            end = after
            while end + 1 < len(lines) and lines[end + 1].strip():  # msgstr and its continuation lines
                end += 1
            found.append(_Entry(_unescape(match.group(1)), msgid, end))
    return found


def _string_at(lines: list[str], index: int, first: re.Pattern) -> tuple[str, int]:
    """A PO string starting at line `index` (a keyword line, then any "..." continuation lines)."""
    match = first.match(lines[index].rstrip("\n"))
    if match is None:
        raise ValueError(f"line {index + 1} is not a PO string: {lines[index]!r}")
    parts = [match.group(1)]
    while index + 1 < len(lines) and (more := _CONTINUED.match(lines[index + 1].rstrip("\n"))):
        parts.append(more.group(1))
        index += 1
    return _unescape("".join(parts)), index


def _header_end(lines: list[str]) -> int:
    """The last line of the header entry (msgid ""), after which a first entry goes; -1 if there is none."""
    for index, line in enumerate(lines):
        if line.startswith('msgid ""') and not any(_CONTEXT.match(x) for x in lines[max(0, index - 1):index]):
            end = index
            while end + 1 < len(lines) and lines[end + 1].strip():
                end += 1
            return end
    return -1


def _entry_text(key: str, english: str) -> str:
    flags = "#, python-brace-format\n" if re.search(r"\{[^{}]*\}", english.replace("{{", "").replace("}}", "")) \
        else ""
    return f"{flags}msgctxt {_quoted(key)}\nmsgid {_quoted(english)}\nmsgstr \"\"\n"


def _quoted(value: str) -> str:
    """A PO string as polib writes it unwrapped: one line, or "" then one line per \\n-ended piece."""
    if "\n" not in value.rstrip("\n") or value == "":
        return f'"{_escape(value)}"'
    pieces = value.splitlines(keepends=True)
    return '""\n' + "\n".join(f'"{_escape(piece)}"' for piece in pieces)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _unescape(value: str) -> str:
    return re.sub(r'\\(.)', lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), value)
