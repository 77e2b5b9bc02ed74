"""The repository cites no file outside itself: a reader of a clone finds every file its docs and code name.

The course's specification, design notes, reviews and seed tutorials live outside the repository (its copy of
the specification is docs/curriculum.md); a doc, comment or test that sends its reader there sends them
nowhere.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(?:reviews|seeds)\b|\b(?:CURRICULUM|DESIGN|KOREAN)\.md\b")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".po", ".ini", ".txt", ".cfg", ".sh", ".json", ".ipynb"}


def _tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in listed.splitlines()
            if Path(name).suffix in TEXT_SUFFIXES or name in ("Makefile", ".ci/run")]


def test_no_tracked_file_cites_a_file_outside_the_repository():
    cited = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
             for path in _tracked_files() if path.is_file() and path != Path(__file__)
             for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if OUTSIDE.search(line)]
    assert not cited, "files outside the repository are cited:\n" + "\n".join(cited)


def test_the_scan_sees_a_citation():
    assert OUTSIDE.search("see ../shared/CURRICULUM.md") and OUTSIDE.search("as KOREAN.md says")
    assert not OUTSIDE.search("docs/curriculum.md")
