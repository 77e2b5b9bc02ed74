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
    # The cause its first hint must name: a catalog key (its sentence, in the language graded), or
    # `cause_text`, words that read the same in every language (the student's own error message).
    cause: str = ""
    cause_text: str = ""
    not_causes: tuple[str, ...] = ()  # catalog keys of causes this code does not have: never said
    also: tuple[str, ...] = ()  # known-mistake keys this code also has (a later check may say them)
    # The pattern of real code it is modelled on (tutorials, course repositories, research code, Q&A), in words;
    # "" for the cases written from the curriculum's list of mistakes.
    models: str = ""
    # Why the first hint does not yet name the declared cause ("" when it does): the test holds the miss as
    # recorded (a gap closed must be recorded too) and scripts/corpus_hint_accuracy.py counts it as a miss.
    cause_gap: str = ""

    @property
    def names_a_cause(self) -> bool:
        return bool(self.cause or self.cause_text)

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
                                     tuple(case["fails"]), case.get("feedback", ""), case.get("cause", ""),
                                     case.get("cause_text", ""), tuple(case.get("not_causes", ())),
                                     tuple(case.get("also", ())), case.get("models", ""),
                                     case.get("cause_gap", "")))
    return found


def corrects() -> list[CorrectCase]:
    found = []
    for folder in sorted(p for p in CORPUS.iterdir() if (p / "cases.toml").exists()):
        for case in _cases(folder).get("correct", []):
            found.append(CorrectCase(folder.name, folder / case["file"], tuple(case["functions"]), case["why"]))
    return found
