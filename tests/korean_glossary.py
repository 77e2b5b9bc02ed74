"""What the Korean glossary (autograder/catalog/locale/GLOSSARY.md) rules out, and where a text breaks it."""

from __future__ import annotations

import dataclasses
import re
import string

from conftest import REPO

GLOSSARY = REPO / "autograder" / "catalog" / "locale" / "GLOSSARY.md"

# Not read: code spans and blocks, math, quoted strings (dict keys, names), an English gloss in parentheses.
_NOT_PROSE = re.compile(r"```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\"[^\"\n]*\"|\([A-Za-z][A-Za-z .,'-]*\)", re.S)
# Korean particles whose form depends on the sound before them (받침): 이/가, 을/를, 은/는, 와/과, (으)로, ...
_PARTICLE = re.compile(r"[`'\"]*(으로|이나|이라는|이라고|라는|라고|이랑|랑|이|가|을|를|은|는|과|와|로|나|아|야)"
                       r"(?![가-힣])")


@dataclasses.dataclass(frozen=True)
class Replaced:
    term: str  # the word the glossary replaces
    instead: str  # the glossary's word for the idea
    kept: tuple[str, ...]  # Korean words that contain `term` and are right (랜덤 워크 for 워크)

    def pattern(self) -> re.Pattern[str]:
        before = r"(?<![A-Za-z0-9_.])" if self.term[0].isascii() else r"(?<![가-힣])"
        after = r"(?![A-Za-z0-9_])" if self.term[-1].isascii() and self.term[-1].isalnum() else ""
        return re.compile(before + re.escape(self.term) + after, re.IGNORECASE if self.term.isascii() else 0)


def replaced_terms() -> list[Replaced]:
    """The first table's rows: English | Korean | replaced, one Replaced per replaced word."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").split("\n\n| English | Korean | not |")[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("English", "---") or not cells[2]:
            continue
        korean = tuple(word.split(" (")[0].replace("`", "") for word in cells[1].split(", "))
        rows.extend(Replaced(term, cells[1], korean) for term in cells[2].split(", "))
    return rows


def kept_in_english() -> frozenset[str]:
    """The words Korean text keeps in English: GLOSSARY.md's list (its section "Words Korean text keeps in
    English") and each assignment catalog's KEPT_IN_ENGLISH, lower case."""
    from autograder.catalog import assignment_catalogs

    section = GLOSSARY.read_text(encoding="utf-8").split("## Words Korean text keeps in English", 1)[1]
    listed = section.split("```text", 1)[1].split("```", 1)[0].split()
    own = [word for catalog in assignment_catalogs.found() for word in getattr(catalog, "KEPT_IN_ENGLISH", ())]
    return frozenset(word.lower() for word in [*listed, *own])


def glossary_breaches(text: str, terms: list[Replaced]) -> list[str]:
    """The replaced words `text` uses in its prose, each with the word to use instead.

    Line breaks read as spaces: a markdown cell wraps its lines anywhere, so a replaced word
    split over two lines (`float` ending one, `결과` starting the next) is still found."""
    prose = re.sub(r"\s+", " ", _NOT_PROSE.sub(" ", text))
    found = []
    for replaced in terms:
        checked = prose
        for kept in replaced.kept:
            checked = checked.replace(kept, " ")
        if replaced.pattern().search(checked):
            found.append(f"{replaced.term!r} (use {replaced.instead})")
    return found


def particles_after_placeholders(template: str) -> list[str]:
    """Each `{field}` followed by a particle whose form depends on the value, e.g. `{call}이`."""
    parsed = list(string.Formatter().parse(template))
    found = []
    for (_, field, _, _), (after, _, _, _) in zip(parsed, parsed[1:], strict=False):
        match = _PARTICLE.match(after) if field is not None else None
        if match:
            found.append("{" + field + "}" + after[:match.end()])
    return found
