"""Loading tests/corpus/*/cases.toml into test parameters."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"


@dataclasses.dataclass(frozen=True)
class MistakeCase:
    assignment: str
    file: Path
    function: str
    why: str
    fails: tuple[str, ...]
    feedback: str

    @property
    def id(self) -> str:
        return f"{self.assignment}/{self.file.stem}"


@dataclasses.dataclass(frozen=True)
class CorrectCase:
    assignment: str
    file: Path
    functions: tuple[str, ...]
    why: str

    @property
    def id(self) -> str:
        return f"{self.assignment}/{self.file.stem}"


def _cases(assignment_dir: Path) -> dict:
    return tomllib.loads((assignment_dir / "cases.toml").read_text(encoding="utf-8"))


def mistakes() -> list[MistakeCase]:
    found = []
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "cases.toml").exists()):
        for case in _cases(folder).get("mistake", []):
            found.append(MistakeCase(folder.name, folder / case["file"], case["function"], case["why"],
                                     tuple(case["fails"]), case.get("feedback", "")))
    return found


def corrects() -> list[CorrectCase]:
    found = []
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "cases.toml").exists()):
        for case in _cases(folder).get("correct", []):
            found.append(CorrectCase(folder.name, folder / case["file"], tuple(case["functions"]), case["why"]))
    return found
